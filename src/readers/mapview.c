/*
 * mapview.c — see mapview.h.
 *
 * The pager keeps [unmapped, populated) mapped around the reader's position
 * `done`: it populates STEP bytes at a time while populated < done + AHEAD,
 * and unmaps STEP bytes at a time once they lie BEHIND bytes behind done.
 * A 1 GB snapshot is parsed at ~1.7 GB/s: 2 MB ahead is 1.2 ms, and paging
 * in 512 KB takes ~50 us.  The reader wakes the pager only once its lead is
 * down to 1 MB (a wake-up per 512 KB was ~40 ms of the parser's thread).
 * The window (~3.5 MB) counts in the peak RSS: a 256 MB snapshot's must
 * stay below a third of the file (bench/snapshot.sh).
 * The pager shares its core with the event pipe's thread and may not run
 * for a few ms at a time: the window then grew by what the reader parsed
 * meanwhile (RssFile of a 256 MB snapshot from 7.7 to 14 MB, run to run).
 * So once more than LAG bytes lie behind the reader, the reader unmaps them
 * itself; with the pager running, it never has to.
 * MADV_POPULATE_READ (Linux 5.14) maps the file's pages from the page cache
 * in one call; where it is missing the pager touches one byte per page.  No
 * MADV_SEQUENTIAL: it would drop the file from the page cache behind the
 * reader, and the next run (or a second read of the same file) would come
 * from the disk again.
 */
#include "mapview.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "err.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

#define STEP ((size_t)512 << 10)
#define AHEAD ((size_t)2 << 20)
#define BEHIND ((size_t)64 << 10) /* (the reader never reads before where it said it is: a margin only) */
#define LAG ((size_t)2 << 20)      /* behind the reader and still mapped: past this the reader unmaps */

struct ml_mapview {
    const unsigned char *bytes;  /* what the reader sees: base + offset */
    size_t len;
    unsigned char *base;         /* the mapping (NULL for memory), from file offset 0 */
    size_t map_len;
    /* offsets from base; [unmapped, map_len) is mapped, or being unmapped
     * by whoever claimed it (under the lock, before its munmap) */
    size_t unmapped, populated;
    size_t paging_from;          /* where the pager is populating (SIZE_MAX: it is not): never unmapped meanwhile */
    size_t done;                 /* the reader's position, from base (written by the reader) */
    size_t page;                 /* the page size: what madvise() and munmap() align to */
    bool pager_waits, stop, has_pager, no_populate;
    pthread_t pager;
    pthread_mutex_t lock;
    pthread_cond_t wake;
};

static void populate(ml_mapview *v, size_t from, size_t n)
{
    if (!v->no_populate) {
        if (madvise(v->base + from, n, MADV_POPULATE_READ) == 0) return;
        if (errno != EINVAL) return; /* (the pages fault in as the reader reads them) */
    }
    v->no_populate = true; /* an older kernel (or valgrind): fault them in by hand */
    for (size_t i = 0; i < n; i += v->page) (void)*(volatile const unsigned char *)(v->base + from + i);
}

/* The next thing for the pager to do, under the lock: 1 unmap, 2 populate, 0 none. */
static int next_job(const ml_mapview *v, size_t *from, size_t *n)
{
    size_t done = __atomic_load_n(&v->done, __ATOMIC_ACQUIRE);
    if (v->unmapped + STEP + BEHIND <= done) {
        *from = v->unmapped;
        *n = STEP;
        return 1;
    }
    /* (a reader faster than the pager: what it passed is not paged in, and may be unmapped already) */
    size_t from_here = v->populated > v->unmapped ? v->populated : v->unmapped;
    if (from_here < done) from_here = done & ~(v->page - 1);
    if (from_here < v->map_len && from_here < done + AHEAD) {
        *from = from_here;
        *n = v->map_len - from_here < STEP ? v->map_len - from_here : STEP;
        return 2;
    }
    return 0;
}

static void *pager_main(void *arg)
{
    ml_mapview *v = arg;
    pthread_mutex_lock(&v->lock);
    while (!v->stop) {
        size_t from, n;
        int job = next_job(v, &from, &n);
        if (!job) {
            /* (a reader that advanced just before this flag was set wakes it
             * at its next advance: a late MB, never a lost one) */
            __atomic_store_n(&v->pager_waits, true, __ATOMIC_RELEASE);
            pthread_cond_wait(&v->wake, &v->lock);
            __atomic_store_n(&v->pager_waits, false, __ATOMIC_RELEASE);
            continue;
        }
        if (job == 1) __atomic_store_n(&v->unmapped, from + n, __ATOMIC_RELEASE); /* claimed */
        else v->paging_from = from;
        pthread_mutex_unlock(&v->lock);
        if (job == 1) munmap(v->base + from, n);
        else populate(v, from, n);
        pthread_mutex_lock(&v->lock);
        if (job == 2) {
            v->paging_from = SIZE_MAX;
            __atomic_store_n(&v->populated, from + n, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&v->lock);
    return NULL;
}

ml_mapview *ml_mapview_open_fd(int fd, uint64_t offset, uint64_t size)
{
    if (size <= offset || size > SIZE_MAX) return NULL;
    void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) return NULL;
    ml_mapview *v = ml_calloc(1, sizeof *v);
    v->base = m;
    v->map_len = (size_t)size;
    v->page = (size_t)sysconf(_SC_PAGESIZE);
    v->bytes = v->base + offset;
    v->len = (size_t)(size - offset);
    /* pages before offset (and before the first page it lies on) go as the pager's first unmap */
    v->unmapped = 0;
    v->populated = (size_t)offset & ~(STEP - 1);
    v->done = (size_t)offset;
    v->paging_from = SIZE_MAX;
    pthread_mutex_init(&v->lock, NULL);
    pthread_cond_init(&v->wake, NULL);
    v->has_pager = pthread_create(&v->pager, NULL, pager_main, v) == 0;
    return v;
}

ml_mapview *ml_mapview_of_memory(const void *bytes, size_t n)
{
    ml_mapview *v = ml_calloc(1, sizeof *v);
    v->bytes = bytes;
    v->len = n;
    return v;
}

const unsigned char *ml_mapview_bytes(const ml_mapview *v) { return v->bytes; }
size_t ml_mapview_len(const ml_mapview *v) { return v->len; }

/* The reader unmaps what lies behind it (done), up to the page the pager is
 * populating, if any: with no pager, every STEP; with one, only what it let
 * lag LAG behind. */
static void unmap_behind(ml_mapview *v, size_t done)
{
    pthread_mutex_lock(&v->lock);
    size_t from = v->unmapped, to = (done - BEHIND) & ~(v->page - 1);
    if (to > v->paging_from) to = v->paging_from & ~(v->page - 1);
    if (to > from) __atomic_store_n(&v->unmapped, to, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&v->lock);
    if (to > from) munmap(v->base + from, to - from);
}

void ml_mapview_advance(ml_mapview *v, size_t upto)
{
    if (!v->base) return;
    size_t done = (size_t)(v->bytes - v->base) + upto;
    __atomic_store_n(&v->done, done, __ATOMIC_RELEASE);
    /* (with no pager the pages fault in as the reader reads them) */
    if (done > __atomic_load_n(&v->unmapped, __ATOMIC_ACQUIRE) + (v->has_pager ? LAG : STEP) + BEHIND)
        unmap_behind(v, done);
    if (!v->has_pager) return;
    /* A wake-up is a futex call and an interrupt of the other core (~15 us
     * here): only once the pager's lead is down to half of AHEAD, so that
     * each wake-up pages in half of it (and unmaps what is behind by then;
     * more than LAG behind, the reader has unmapped it itself). */
    if (__atomic_load_n(&v->pager_waits, __ATOMIC_ACQUIRE) &&
        __atomic_load_n(&v->populated, __ATOMIC_ACQUIRE) < done + AHEAD / 2) {
        pthread_mutex_lock(&v->lock);
        pthread_cond_signal(&v->wake);
        pthread_mutex_unlock(&v->lock);
    }
}

void ml_mapview_close(ml_mapview *v)
{
    if (!v) return;
    if (v->base) {
        if (v->has_pager) {
            pthread_mutex_lock(&v->lock);
            v->stop = true;
            pthread_cond_signal(&v->wake);
            pthread_mutex_unlock(&v->lock);
            pthread_join(v->pager, NULL);
        }
        pthread_mutex_destroy(&v->lock);
        pthread_cond_destroy(&v->wake);
        if (v->unmapped < v->map_len) munmap(v->base + v->unmapped, v->map_len - v->unmapped);
    }
    free(v);
}
