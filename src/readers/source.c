/*
 * source.c — file / stdin / memory byte streams, with gzip inflated on a
 * second thread into a ring of buffers (see source.h).
 */
#include "source.h"
#include "mapview.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define RAW_CHUNK  (1u << 20)   /* compressed bytes read at a time */
#define RING_SLOTS 4
#define SLOT_SIZE  (1u << 20)   /* decompressed bytes per ring slot */

typedef struct slot {
    unsigned char *data;
    size_t len;
    bool full;                  /* written by the inflater, not yet consumed */
} slot;

struct ml_source {
    char *name;
    int fd;                     /* -1 for memory sources */
    bool own_fd;
    const unsigned char *mem;   /* memory source */
    size_t mem_len, mem_pos;
    uint64_t limit;             /* bytes the fd may still deliver (ranges); UINT64_MAX = all */

    unsigned char *head;        /* raw bytes read to detect gzip, replayed first */
    size_t head_len, head_pos;

    unsigned char *peeked;      /* decoded bytes peeked at, handed out before the rest */
    size_t peeked_len, peeked_pos;
    uint64_t offset;

    bool gzip;
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    slot ring[RING_SLOTS];
    unsigned produce, consume;  /* slot indices, mod RING_SLOTS */
    bool producer_done;         /* no more slots will be filled */
    bool stop;                  /* consumer asks the producer to quit */
    char gz_error[200];
    size_t cur_pos;             /* read position inside ring[consume] */
    size_t read_limit;          /* tests: reads return 1..read_limit bytes (0 = no limit) */
    size_t reads;
    ml_input_limits lim;        /* ml_source_set_limits(); zeros = none */
    uint64_t decoded;           /* decoded bytes read from the stream (peeks included) */
    bool over_limit;            /* the stream went past lim.max_bytes: every read fails */
    unsigned char *map;         /* ml_source_map(): the mapping (page aligned), NULL if none */
    size_t map_len;             /* its length */
    size_t map_delta;           /* where the data begins in it */
    size_t map_done;            /* offset in it before which the pages were let go */
    size_t map_ahead;           /* offset in it before which the pages were mapped in */
};

/* Raw (compressed or plain) bytes: the detection head first, then the fd or memory. */
static ssize_t raw_read(ml_source *s, unsigned char *buf, size_t n)
{
    if (s->head_pos < s->head_len) {
        size_t k = s->head_len - s->head_pos;
        if (k > n) k = n;
        memcpy(buf, s->head + s->head_pos, k);
        s->head_pos += k;
        return (ssize_t)k;
    }
    if (s->fd < 0) {
        size_t k = s->mem_len - s->mem_pos;
        if (k > n) k = n;
        memcpy(buf, s->mem + s->mem_pos, k);
        s->mem_pos += k;
        return (ssize_t)k;
    }
    if (n > s->limit) n = (size_t)s->limit;
    for (;;) {
        ssize_t r = read(s->fd, buf, n);
        if (r > 0) s->limit -= (uint64_t)r;
        if (r >= 0 || errno != EINTR) return r;
    }
}

static void *inflate_thread(void *arg)
{
    ml_source *s = arg;
    unsigned char *in = ml_malloc(RAW_CHUNK);
    z_stream z;
    memset(&z, 0, sizeof z);
    const char *err = NULL;
    if (inflateInit2(&z, 15 + 32) != Z_OK) err = "cannot start zlib";
    bool in_eof = false, member_end = false, done = false;
    uint64_t raw_total = 0;

    while (!err && !done) {
        pthread_mutex_lock(&s->lock);
        while (s->ring[s->produce].full && !s->stop) pthread_cond_wait(&s->changed, &s->lock);
        bool stop = s->stop;
        pthread_mutex_unlock(&s->lock);
        if (stop) break;

        slot *sl = &s->ring[s->produce];
        z.next_out = sl->data;
        z.avail_out = SLOT_SIZE;
        while (z.avail_out > 0) {
            if (z.avail_in == 0 && !in_eof) {
                ssize_t r = raw_read(s, in, RAW_CHUNK);
                if (r < 0) { err = strerror(errno); break; }
                in_eof = r == 0;
                z.next_in = in;
                z.avail_in = (uInt)r;
                raw_total += (uint64_t)r;
            }
            if (member_end) {
                /* Concatenated gzip members form one stream, as zcat reads them. */
                if (z.avail_in == 0) {
                    if (in_eof) { done = true; break; }
                    continue;
                }
                if (inflateReset(&z) != Z_OK) { err = "cannot restart zlib"; break; }
                member_end = false;
            }
            if (z.avail_in == 0 && in_eof) {
                err = "truncated gzip stream (the file ends inside compressed data)";
                break;
            }
            int zr = inflate(&z, Z_NO_FLUSH);
            if (zr == Z_STREAM_END) member_end = true;
            else if (zr != Z_OK && !(zr == Z_BUF_ERROR && z.avail_in == 0)) {
                err = z.msg ? z.msg : "corrupt gzip data";
                break;
            }
        }
        size_t produced = SLOT_SIZE - z.avail_out;
        pthread_mutex_lock(&s->lock);
        if (produced > 0) {
            sl->len = produced;
            sl->full = true;
            s->produce = (s->produce + 1) % RING_SLOTS;
        }
        if (err)
            snprintf(s->gz_error, sizeof s->gz_error, "%s (near compressed byte %llu)", err,
                     (unsigned long long)(raw_total - z.avail_in));
        if (err || done) s->producer_done = true;
        pthread_cond_broadcast(&s->changed);
        pthread_mutex_unlock(&s->lock);
    }
    if (!s->producer_done) { /* stopped early by the consumer, or init failed */
        pthread_mutex_lock(&s->lock);
        if (err && !s->gz_error[0]) snprintf(s->gz_error, sizeof s->gz_error, "%s", err);
        s->producer_done = true;
        pthread_cond_broadcast(&s->changed);
        pthread_mutex_unlock(&s->lock);
    }
    inflateEnd(&z);
    free(in);
    return NULL;
}

static int start(ml_source *s, ml_err *e)
{
    /* Read enough raw bytes to see the gzip magic. */
    s->head = ml_malloc(4096);
    while (s->head_len < 2) {
        ssize_t r;
        if (s->fd < 0) {
            size_t k = s->mem_len - s->mem_pos < 4096 ? s->mem_len - s->mem_pos : 4096;
            memcpy(s->head, s->mem, k);
            s->mem_pos = k;
            r = (ssize_t)k;
        } else {
            r = read(s->fd, s->head + s->head_len, 4096 - s->head_len);
            if (r < 0 && errno == EINTR) continue;
        }
        if (r < 0) return ml_fail(e, "%s: %s", s->name, strerror(errno));
        if (r == 0) break;
        s->head_len += (size_t)r;
        if (s->fd < 0) break;
    }
    s->gzip = s->head_len >= 2 && s->head[0] == 0x1f && s->head[1] == 0x8b;
    if (!s->gzip) return 0;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    for (int i = 0; i < RING_SLOTS; i++) s->ring[i].data = ml_malloc(SLOT_SIZE);
    if (pthread_create(&s->thread, NULL, inflate_thread, s) != 0)
        return ml_fail(e, "%s: cannot start the gzip thread", s->name);
    s->thread_started = true;
    return 0;
}

int ml_source_open(const char *path, ml_source **out, ml_err *e)
{
    ml_source *s = ml_calloc(1, sizeof *s);
    s->limit = UINT64_MAX;
    if (strcmp(path, "-") == 0) {
        s->name = ml_strdup("<stdin>");
        s->fd = 0;
    } else {
        s->name = ml_strdup(path);
        s->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (s->fd < 0) {
            ml_fail(e, "%s: %s", path, strerror(errno));
            free(s->name);
            free(s);
            return -1;
        }
        s->own_fd = true;
    }
    if (start(s, e) < 0) {
        ml_source_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

int ml_source_open_range(const char *path, uint64_t offset, uint64_t length, ml_source **out, ml_err *e)
{
    ml_source *s = ml_calloc(1, sizeof *s);
    s->name = ml_strdup(path);
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0 || lseek(s->fd, (off_t)offset, SEEK_SET) < 0) {
        ml_fail(e, "%s: %s", path, strerror(errno));
        if (s->fd >= 0) close(s->fd);
        free(s->name);
        free(s);
        return -1;
    }
    s->own_fd = true;
    s->limit = length;
    s->offset = 0;
    *out = s;
    return 0;
}

int64_t ml_source_plain_size(const ml_source *s)
{
    struct stat st;
    if (s->fd < 0 || !s->own_fd || s->gzip || s->limit != UINT64_MAX) return -1;
    if (fstat(s->fd, &st) < 0 || !S_ISREG(st.st_mode)) return -1;
    return (int64_t)st.st_size;
}

ml_mapview *ml_source_mapview(ml_source *s)
{
    if (s->gzip || s->read_limit || s->limit != UINT64_MAX) return NULL;
    if (s->fd < 0) return ml_mapview_of_memory(s->mem + s->offset, s->mem_len - s->offset);
    struct stat st;
    if (!s->own_fd || fstat(s->fd, &st) < 0 || !S_ISREG(st.st_mode)) return NULL;
    /* (the stream offset is the file's: the peeked bytes were read from 0) */
    return ml_mapview_open_fd(s->fd, s->offset, (uint64_t)st.st_size);
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#define MAP_AHEAD ((size_t)2 << 20)

char *ml_source_map(ml_source *s, size_t *len)
{
    struct stat st;
    if (s->fd < 0 || !s->own_fd || s->gzip || s->read_limit || s->lim.max_bytes || s->map) return NULL;
    if (fstat(s->fd, &st) < 0 || !S_ISREG(st.st_mode)) return NULL;
    off_t cur = lseek(s->fd, 0, SEEK_CUR);
    if (cur < 0) return NULL;
    /* the stream's position: the fd's, less the bytes read ahead and not handed out */
    uint64_t pending = (s->head_len - s->head_pos) + (s->peeked_len - s->peeked_pos);
    if ((uint64_t)cur < pending) return NULL;
    uint64_t at = (uint64_t)cur - pending, size = (uint64_t)st.st_size;
    if (at > size) return NULL;
    uint64_t n = s->limit == UINT64_MAX ? size - at : pending + s->limit;
    if (at + n > size) n = size - at;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint64_t from = at & ~(uint64_t)(page - 1), delta = at - from;
    uint64_t want = delta + n + ML_SOURCE_MAP_PAD, file_part = size - from < want ? size - from : want;
    if (want > SIZE_MAX / 2) return NULL;
    size_t total = ((size_t)want + page - 1) & ~(page - 1);
    /* zeros first, the file over them: past the file's end the reader finds zeros, not a fault */
    unsigned char *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return NULL;
    if (file_part && mmap(m, (size_t)file_part, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED | MAP_NORESERVE, s->fd,
                          (off_t)from) == MAP_FAILED) {
        munmap(m, total);
        return NULL;
    }
    s->map = m;
    s->map_len = total;
    s->map_delta = (size_t)delta;
    s->map_done = 0;
    *len = (size_t)n;
    return (char *)m + delta;
}

void ml_source_map_done(ml_source *s, size_t upto)
{
    if (!s->map) return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), to = (s->map_delta + upto) & ~(page - 1);
    if (to > s->map_len) to = s->map_len & ~(page - 1);
    if (to > s->map_done) {
        madvise(s->map + s->map_done, to - s->map_done, MADV_DONTNEED);
        s->map_done = to;
    }
    /* The next pages mapped in at once, not one fault per 16 of them. */
    size_t ahead = to + MAP_AHEAD > s->map_len ? s->map_len : to + MAP_AHEAD;
    if (ahead > s->map_ahead + MAP_AHEAD / 2) {
        size_t from = s->map_ahead > to ? s->map_ahead : to;
        if (madvise(s->map + from, ahead - from, MADV_POPULATE_READ) == 0) s->map_ahead = ahead;
    }
}

ml_source *ml_source_from_memory(const char *name, const void *data, size_t n)
{
    ml_source *s = ml_calloc(1, sizeof *s);
    s->limit = UINT64_MAX;
    s->name = ml_strdup(name);
    s->fd = -1;
    s->mem = data;
    s->mem_len = n;
    if (start(s, NULL) < 0) s->gzip = false; /* cannot fail for memory except thread start */
    return s;
}

void ml_source_set_limits(ml_source *s, const ml_input_limits *lim) { s->lim = *lim; }
size_t ml_source_max_value(const ml_source *s) { return s->lim.max_value; }
const char *ml_source_value_hint(const ml_source *s) { return s->lim.value_hint; }

static ssize_t decoded_read_unlimited(ml_source *s, unsigned char *buf, size_t n, ml_err *e);

/* Decoded bytes, without the peek buffer; past lim.max_bytes, an error (the
 * inflater is stopped by ml_source_close: a bomb is not inflated to its end). */
static ssize_t decoded_read(ml_source *s, unsigned char *buf, size_t n, ml_err *e)
{
    uint64_t max = s->lim.max_bytes;
    if (max && s->decoded >= max) {
        /* one byte more tells a file of exactly max bytes from a longer one */
        unsigned char extra;
        ssize_t r = s->over_limit ? 1 : decoded_read_unlimited(s, &extra, 1, e);
        if (r <= 0) return r;
        s->over_limit = true;
        return ml_fail(e, "%s: more than %llu bytes%s%s%s%s", s->name, (unsigned long long)max,
                       s->gzip ? " once decompressed" : "", s->lim.bytes_hint ? " (" : "",
                       s->lim.bytes_hint ? s->lim.bytes_hint : "", s->lim.bytes_hint ? ")" : "");
    }
    if (max && n > max - s->decoded) n = (size_t)(max - s->decoded);
    ssize_t r = decoded_read_unlimited(s, buf, n, e);
    if (r > 0) s->decoded += (uint64_t)r;
    return r;
}

static ssize_t decoded_read_unlimited(ml_source *s, unsigned char *buf, size_t n, ml_err *e)
{
    if (!s->gzip) {
        ssize_t r = raw_read(s, buf, n);
        if (r < 0) return ml_fail(e, "%s: %s", s->name, strerror(errno));
        return r;
    }
    size_t got = 0;
    while (got < n) {
        pthread_mutex_lock(&s->lock);
        slot *sl = &s->ring[s->consume];
        while (!sl->full && !s->producer_done) pthread_cond_wait(&s->changed, &s->lock);
        if (!sl->full) { /* producer done and nothing left */
            bool failed = s->gz_error[0] != 0;
            pthread_mutex_unlock(&s->lock);
            if (failed && got == 0)
                return ml_fail(e, "%s: gzip: %s", s->name, s->gz_error);
            break;
        }
        pthread_mutex_unlock(&s->lock);
        size_t k = sl->len - s->cur_pos;
        if (k > n - got) k = n - got;
        memcpy(buf + got, sl->data + s->cur_pos, k);
        got += k;
        s->cur_pos += k;
        if (s->cur_pos == sl->len) {
            pthread_mutex_lock(&s->lock);
            sl->full = false;
            s->consume = (s->consume + 1) % RING_SLOTS;
            s->cur_pos = 0;
            pthread_cond_broadcast(&s->changed);
            pthread_mutex_unlock(&s->lock);
        }
        if (got > 0 && got >= n / 2) break; /* return promptly with a useful amount */
    }
    return (ssize_t)got;
}

void ml_source_limit_reads(ml_source *s, size_t max) { s->read_limit = max; }

ssize_t ml_source_read(ml_source *s, void *buf, size_t n, ml_err *e)
{
    if (s->read_limit) {
        size_t k = 1 + (s->reads++ * 5) % s->read_limit; /* 1, 6, 4, 2, 7, 5, 3, ... for a limit of 7 */
        if (n > k) n = k;
    }
    if (s->peeked_pos < s->peeked_len) {
        size_t k = s->peeked_len - s->peeked_pos;
        if (k > n) k = n;
        memcpy(buf, s->peeked + s->peeked_pos, k);
        s->peeked_pos += k;
        s->offset += k;
        return (ssize_t)k;
    }
    ssize_t r = decoded_read(s, buf, n, e);
    if (r > 0) s->offset += (uint64_t)r;
    return r;
}

size_t ml_source_peek(ml_source *s, const unsigned char **bytes, size_t want, ml_err *e)
{
    if (s->peeked_len - s->peeked_pos < want) {
        /* Compact, then read until `want` bytes or EOF. */
        size_t have = s->peeked_len - s->peeked_pos;
        unsigned char *p = ml_malloc(want);
        if (have) memcpy(p, s->peeked + s->peeked_pos, have);
        free(s->peeked);
        s->peeked = p;
        s->peeked_pos = 0;
        s->peeked_len = have;
        while (s->peeked_len < want) {
            ssize_t r = decoded_read(s, p + s->peeked_len, want - s->peeked_len, e);
            if (r < 0) { *bytes = p; return s->peeked_len; }
            if (r == 0) break;
            s->peeked_len += (size_t)r;
        }
    }
    *bytes = s->peeked + s->peeked_pos;
    size_t k = s->peeked_len - s->peeked_pos;
    return k < want ? k : want;
}

int ml_source_drain(ml_source *s, ml_err *e)
{
    unsigned char *scratch = ml_malloc(1 << 16);
    ssize_t r;
    s->read_limit = 0;
    while ((r = ml_source_read(s, scratch, 1 << 16, e)) > 0) {}
    free(scratch);
    return r < 0 ? -1 : 0;
}

const char *ml_source_name(const ml_source *s) { return s->name; }
int ml_source_is_gzip(const ml_source *s) { return s->gzip; }
uint64_t ml_source_offset(const ml_source *s) { return s->offset; }

void ml_source_close(ml_source *s)
{
    if (!s) return;
    if (s->thread_started) {
        pthread_mutex_lock(&s->lock);
        s->stop = true;
        pthread_cond_broadcast(&s->changed);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->thread, NULL);
    }
    if (s->gzip) {
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->changed);
        for (int i = 0; i < RING_SLOTS; i++) free(s->ring[i].data);
    }
    if (s->own_fd) close(s->fd);
    if (s->map) munmap(s->map, s->map_len);
    free(s->head);
    free(s->peeked);
    free(s->name);
    free(s);
}
