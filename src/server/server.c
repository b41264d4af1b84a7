/*
 * server.c — libmicrohttpd glue for `memlens serve`: routing, the Host
 * check, the page, JSON responses; see server.h.  The API itself is api.c.
 */
#include "server.h"
#include "jsonw.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "api.h"
#include "chrome_json.h"
#include "colbuf.h"
#include "upload.h"
#include "web_assets.h"

struct ml_server {
    struct MHD_Daemon *d;
    ml_ranks *rs;
    int port;
    int loopback;
    char url[300];
    char host[256];             /* as given, for the Host check */
    ml_buf page;
    ml_uploads *uploads;
    uint64_t max_upload;        /* ml_server_opts, defaults filled in */
    int max_imports;
    int keep_uploads;
    int64_t keep_bytes;
    pthread_mutex_t up_mu;      /* guards the two counts below */
    pthread_cond_t up_turn;     /* an import finished */
    int uploads_open;           /* uploads accepted and not yet answered */
    int importing;              /* of them, being imported now (<= max_imports) */
};

/* What a request carries between the calls of handle(): a GET only that its
 * headers were seen; an upload its file and any error found on the way (the
 * body is always read to its end before the answer: a client still sending
 * would otherwise see the connection reset instead of the answer). */
typedef struct req {
    int upload;
    int entered;                /* counted in by ml_ranks_enter */
    int counted;                /* counted in uploads_open */
    ml_upload *f;
    char *name;
    int status;                 /* != 0: fails with this status and err */
    char err[ML_ERR_MAX];
} req;

/* The page: the report's UI without data; app.js sees #ml-server and reads
 * everything from the API (web/src/source.js HttpSource). */
static void build_page(ml_buf *b, const char *title)
{
    ml_buf_puts(b, "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                   "<meta name=\"generator\" content=\"memlens\">\n<link rel=\"icon\" href=\"data:,\">\n<title>memlens — ");
    for (const char *c = title; *c; c++) { /* the only text put raw into the page */
        if (*c == '<') ml_buf_puts(b, "&lt;");
        else if (*c == '&') ml_buf_puts(b, "&amp;");
        else ml_buf_put(b, c, 1);
    }
    ml_buf_puts(b, "</title>\n<style>\n");
    ml_buf_put(b, ml_asset_uplot_css, ml_asset_uplot_css_len);
    ml_buf_put(b, ml_asset_style, ml_asset_style_len);
    ml_buf_puts(b, "</style>\n</head>\n<body>\n");
    ml_buf_put(b, ml_asset_body, ml_asset_body_len);
    ml_buf_puts(b, "<script type=\"application/json\" id=\"ml-server\">{\"api\":\"/api/\"}</script>\n<script>\n");
    ml_buf_put(b, ml_asset_uplot_js, ml_asset_uplot_js_len);
    ml_buf_puts(b, "</script>\n<script type=\"module\">\n");
    ml_buf_put(b, ml_asset_app, ml_asset_app_len);
    ml_buf_puts(b, "</script>\n</body>\n</html>\n");
}

static enum MHD_Result reply(struct MHD_Connection *c, int status, const char *ctype, const void *data, size_t n,
                             int copy)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(n, (void *)data,
                                                              copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", ctype);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result reply_error(struct MHD_Connection *c, int status, const char *msg)
{
    ml_buf b = {0};
    jw w;
    jw_init_buf(&w, &b, false);
    jw_obj(&w);
    jw_key(&w, "error"), jw_str(&w, msg);
    jw_key(&w, "status"), jw_i64(&w, status);
    jw_end(&w);
    enum MHD_Result ok = MHD_NO;
    struct MHD_Response *r = MHD_create_response_from_buffer(b.len, b.p, MHD_RESPMEM_MUST_COPY);
    if (r) {
        MHD_add_response_header(r, "Content-Type", "application/json; charset=utf-8");
        MHD_add_response_header(r, "Cache-Control", "no-store");
        MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
        MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
        if (status == 503) MHD_add_response_header(r, "Retry-After", "5");
        ok = MHD_queue_response(c, (unsigned)status, r);
        MHD_destroy_response(r);
    }
    ml_buf_free(&b);
    return ok;
}

static const char *get_arg(void *user, const char *key)
{
    return MHD_lookup_connection_value((struct MHD_Connection *)user, MHD_GET_ARGUMENT_KIND, key);
}

/* A body made while it is sent: read() until it gives 0, then done(x).
 * Without x (the request was refused), the error JSON in err. */
typedef size_t (*stream_read_fn)(void *x, char *buf, size_t max);

typedef struct stream {
    void *x;
    stream_read_fn read;
    void (*done)(void *x);
} stream;

static ssize_t stream_chunk(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    stream *st = cls;
    size_t n = st->read(st->x, buf, max);
    return n ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM;
}

static void stream_done(void *cls)
{
    stream *st = cls;
    st->done(st->x);
    free(st);
}

static enum MHD_Result reply_stream(struct MHD_Connection *c, int status, ml_buf *err, stream how, const char *type,
                                    const char *disposition)
{
    if (!how.x) {
        enum MHD_Result ok = reply(c, status, "application/json; charset=utf-8", err->p ? err->p : "", err->len, 1);
        ml_buf_free(err);
        return ok;
    }
    ml_buf_free(err);
    stream *st = ml_malloc(sizeof *st);
    *st = how;
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, stream_chunk, st, stream_done);
    if (!r) { stream_done(st); return MHD_NO; }
    MHD_add_response_header(r, "Content-Type", type);
    if (disposition) MHD_add_response_header(r, "Content-Disposition", disposition);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ok = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ok;
}

static size_t export_read(void *x, char *buf, size_t max) { return ml_api_export_read(x, buf, max); }
static void export_free(void *x) { ml_api_export_free(x); }

/* /api/export: the table's rows as CSV or TSV. */
static enum MHD_Result reply_export(ml_server *s, struct MHD_Connection *c)
{
    ml_export *x;
    ml_buf err = {0};
    int status = ml_api_export_open(s->rs, get_arg, c, &x, &err);
    int tsv = x && ml_api_export_tsv(x);
    return reply_stream(c, status, &err, (stream){x, export_read, export_free},
                        tsv ? "text/tab-separated-values; charset=utf-8" : "text/csv; charset=utf-8",
                        tsv ? "attachment; filename=\"memlens-allocations.tsv\""
                            : "attachment; filename=\"memlens-allocations.csv\"");
}

static size_t trace_json_read(void *x, char *buf, size_t max) { return ml_chrome_json_read(x, buf, max); }
static void trace_json_free(void *x) { ml_chrome_json_close(x); }

/* /api/trace.json: a rank's slices as a Chrome trace. */
static enum MHD_Result reply_trace_json(ml_server *s, struct MHD_Connection *c)
{
    ml_chrome_json *x;
    ml_buf err = {0};
    int status = ml_api_trace_json_open(s->rs, get_arg, c, &x, &err);
    return reply_stream(c, status, &err, (stream){x, trace_json_read, trace_json_free},
                        "application/json; charset=utf-8", NULL);
}

/* %XX escapes decoded as libmicrohttpd's own unescaper does, except that a
 * control byte (%00-%1F, %7F) becomes DEL: the path is a C string, so a %00
 * would silently cut it ("/api/meta%00" would be /api/meta); as DEL it stays
 * visible to request_ok(), which refuses it. */
static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    char *w = s;
    for (const char *r = s; *r;) {
        int hi, lo;
        if (r[0] == '%' && (hi = hexval(r[1])) >= 0 && (lo = hexval(r[2])) >= 0) {
            unsigned char b = (unsigned char)(hi << 4 | lo);
            *w++ = (char)(b < 0x20 || b == 0x7f ? 0x7f : b);
            r += 3;
        } else {
            *w++ = *r++;
        }
    }
    *w = 0;
    return (size_t)(w - s);
}

static bool has_control(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) return true;
    return false;
}

/* The query's parameters: each at most once, without control bytes. */
typedef struct arg_check {
    const char *keys[64];
    size_t n;
    char why[160];
} arg_check;

static enum MHD_Result check_arg(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                                 const char *value, size_t value_size)
{
    (void)kind;
    arg_check *a = cls;
    char shown[48];
    snprintf(shown, sizeof shown, "%.*s", (int)(key_size < 40 ? key_size : 40), key);
    for (char *p = shown; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    if (has_control(key, key_size) || (value && has_control(value, value_size))) {
        snprintf(a->why, sizeof a->why, "parameter '%s' has a control byte (%%00-%%1F or %%7F)", shown);
        return MHD_NO;
    }
    for (size_t i = 0; i < a->n; i++)
        if (!strcmp(a->keys[i], key)) {
            snprintf(a->why, sizeof a->why, "parameter '%s' is given more than once", shown);
            return MHD_NO;
        }
    if (a->n == sizeof a->keys / sizeof *a->keys) {
        snprintf(a->why, sizeof a->why, "more than %zu parameters", a->n);
        return MHD_NO;
    }
    a->keys[a->n++] = key;
    return MHD_YES;
}

/* NULL if the path and parameters are acceptable, else why not (for a 400). */
static const char *request_bad(struct MHD_Connection *c, const char *url, arg_check *a)
{
    if (has_control(url, strlen(url))) return "the path has a control byte (%00-%1F or %7F)";
    a->n = 0;
    a->why[0] = 0;
    MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, check_arg, a);
    return a->why[0] ? a->why : NULL;
}

/* Whether name (a host, IPv6 without brackets) is one of this machine's
 * loopback names, or the address the server was told to bind. */
static int loopback_name(const ml_server *s, const char *name)
{
    return !strcmp(name, "127.0.0.1") || !strcasecmp(name, "localhost") || !strcmp(name, "::1") ||
           !strcmp(name, s->host);
}

/* With a loopback bind, the Host header must name this machine. */
static int host_ok(const ml_server *s, struct MHD_Connection *c)
{
    if (!s->loopback) return 1;
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    if (!h) return 1; /* HTTP/1.0 clients */
    char name[300];
    snprintf(name, sizeof name, "%s", h);
    char *colon = name[0] == '[' ? strchr(name, ']') : strrchr(name, ':');
    if (name[0] == '[' && colon) colon[1] = 0, memmove(name, name + 1, strlen(name)), name[strlen(name) - 1] = 0;
    else if (colon) *colon = 0;
    return loopback_name(s, name);
}

/* /api/upload: the body into a file of the uploads' folder as it arrives,
 * then imported as new ranks (ml_ranks_add, in this connection's thread). */
static enum MHD_Result upload_step(ml_server *s, struct MHD_Connection *c, req *q, const char *data, size_t *size)
{
    ml_err e = {{0}};
    if (*size) {
        if (!q->status && (uint64_t)ml_upload_bytes(q->f) + *size > s->max_upload) {
            /* the rest is read and dropped: nothing more goes to disk */
            q->status = 413;
            snprintf(q->err, sizeof q->err, "%s: more than %llu bytes (memlens serve --max-upload)", q->name,
                     (unsigned long long)s->max_upload);
        }
        if (!q->status && ml_upload_write(q->f, data, *size, &e) != 0) {
            q->status = 507;
            snprintf(q->err, sizeof q->err, "%s", e.msg);
        }
        *size = 0;
        return MHD_YES;
    }
    if (!q->status && ml_upload_close(q->f, &e) != 0) {
        q->status = 507;
        snprintf(q->err, sizeof q->err, "%s", e.msg);
    }
    if (q->status) {
        ml_upload_end(q->f, 1);
        q->f = NULL;
        return reply_error(c, q->status, q->err);
    }
    /* at most max_imports at once: the others wait their turn here */
    pthread_mutex_lock(&s->up_mu);
    while (s->importing >= s->max_imports) pthread_cond_wait(&s->up_turn, &s->up_mu);
    s->importing++;
    pthread_mutex_unlock(&s->up_mu);
    ml_input_limits lim = {s->max_upload, ML_UPLOAD_MAX_VALUE, "the upload limit: memlens serve --max-upload",
                           "the limit for uploads; memlens on the command line reads up to 512 MiB"};
    long k = ml_ranks_add(s->rs, ml_upload_path(q->f), q->name, &lim, &e);
    pthread_mutex_lock(&s->up_mu);
    s->importing--;
    pthread_cond_signal(&s->up_turn);
    pthread_mutex_unlock(&s->up_mu);
    if (k < 0) { /* the importer's message, naming the file as the user did (as `memlens summary NAME` would) */
        char msg[ML_ERR_MAX];
        ml_upload_strip(e.msg, ml_upload_prefix(q->f), msg, sizeof msg);
        ml_upload_end(q->f, 1);
        q->f = NULL;
        return reply_error(c, 422, msg);
    }
    ml_upload_end(q->f, 0);
    q->f = NULL;
    size_t n = ml_ranks_count(s->rs);
    ml_buf b = {0}, gone = {0};
    /* within the bounds again: the least recently viewed uploads go, and the answer says which */
    size_t n_gone = ml_ranks_evict_uploads(s->rs, (size_t)s->keep_uploads, s->keep_bytes, &gone);
    jw w;
    jw_init_buf(&w, &b, false);
    jw_obj(&w);
    jw_key(&w, "index"), jw_i64(&w, k);
    jw_key(&w, "added"), jw_i64(&w, (int64_t)(n - (size_t)k));
    jw_key(&w, "ranks"), jw_arr(&w);
    for (size_t i = (size_t)k; i < n; i++) {
        jw_paste_begin(&w); /* each slot's object, written by ranks.c */
        ml_ranks_slot_json(s->rs, i, &b);
    }
    jw_end(&w);
    jw_key(&w, "evicted"), jw_rawn(&w, gone.p, gone.len);
    if (n_gone) {
        char msg[300];
        snprintf(msg, sizeof msg, "%zu earlier upload%s evicted (the least recently viewed): the server keeps at most %d uploads "
                                  "and %lld MB of them (memlens serve --keep-uploads N, --keep-upload-bytes SIZE)",
                 n_gone, n_gone == 1 ? "" : "s", s->keep_uploads, (long long)(s->keep_bytes / 1000000));
        jw_key(&w, "message"), jw_str(&w, msg);
    }
    jw_end(&w);
    ml_buf_free(&gone);
    enum MHD_Result ok = reply(c, 200, "application/json; charset=utf-8", b.p, b.len, 1);
    ml_buf_free(&b);
    return ok;
}

/* Splits "HOST[:PORT]" / "[V6][:PORT]" into host (no brackets) and port
 * (-1 when absent); 0 when it has that shape. */
static int split_hostport(const char *hp, char *host, size_t cap, long *port)
{
    const char *end, *colon;
    if (hp[0] == '[') {
        if (!(end = strchr(hp, ']'))) return -1;
        hp++;
        colon = end[1] == ':' ? end + 1 : end[1] ? NULL : end + 1;
        if (!colon) return -1;
    } else {
        colon = strchr(hp, ':');
        end = colon ? colon : hp + strlen(hp);
        if (colon && strchr(colon + 1, ':')) return -1;
    }
    if ((size_t)(end - hp) >= cap || end == hp) return -1;
    memcpy(host, hp, (size_t)(end - hp));
    host[end - hp] = 0;
    *port = -1;
    if (colon && *colon == ':') {
        char *stop;
        *port = strtol(colon + 1, &stop, 10);
        if (stop == colon + 1 || *stop || *port < 0 || *port > 65535) return -1;
    }
    return 0;
}

/* An upload sent by a page must come from this server's own page: a page
 * elsewhere may POST to 127.0.0.1 (a "simple" cross-origin request, with no
 * preflight) and its Host header would pass; its Origin would not.  With a
 * loopback bind, the same server reached by another loopback name (a page
 * at http://localhost:PORT posting to 127.0.0.1:PORT) is this server: its
 * origin is http, a loopback name and this port (a page of another port is
 * another server, another origin).  Clients that are not browsers send no
 * Origin. */
static int origin_ok(const ml_server *s, struct MHD_Connection *c)
{
    const char *o = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
    if (!o) return 1;
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    if (strncmp(o, "http://", 7) != 0) return 0;
    if (h && !strcmp(o + 7, h)) return 1;
    char host[300];
    long port;
    if (!s->loopback || split_hostport(o + 7, host, sizeof host, &port) != 0) return 0;
    return loopback_name(s, host) && (port < 0 ? 80 : port) == s->port;
}

/* Counts an upload in, unless max_imports + ML_UPLOAD_WAITING are already
 * under way (then 0: the upload is answered 503). */
static int upload_count(ml_server *s, req *q)
{
    pthread_mutex_lock(&s->up_mu);
    int ok = s->uploads_open < s->max_imports + ML_UPLOAD_WAITING;
    if (ok) s->uploads_open++, q->counted = 1;
    pthread_mutex_unlock(&s->up_mu);
    return ok;
}

/* The first call of an upload (headers only): checks, and opens its file. */
static req *upload_begin(ml_server *s, struct MHD_Connection *c)
{
    req *q = ml_calloc(1, sizeof *q);
    q->upload = 1;
    const char *name = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "name");
    const char *why = ml_upload_name_problem(name);
    ml_err e = {{0}};
    arg_check args;
    const char *bad;
    if (!host_ok(s, c)) q->status = 403, snprintf(q->err, sizeof q->err, "Host header names another host");
    else if ((bad = request_bad(c, "/api/upload", &args))) q->status = 400, snprintf(q->err, sizeof q->err, "upload: %s", bad);
    else if (!origin_ok(s, c)) q->status = 403, snprintf(q->err, sizeof q->err, "upload from a page of another origin");
    else if (why) q->status = 400, snprintf(q->err, sizeof q->err, "upload: %s", why);
    else if (!upload_count(s, q))
        q->status = 503, snprintf(q->err, sizeof q->err, "busy: %d uploads are under way; try again later",
                                  s->max_imports + ML_UPLOAD_WAITING);
    else if (!(q->f = ml_upload_begin(s->uploads, name, &e))) q->status = 500, snprintf(q->err, sizeof q->err, "%s", e.msg);
    else q->name = ml_strdup(name);
    return q;
}

/* The end of an upload counted by upload_count. */
static void upload_uncount(ml_server *s, req *q)
{
    if (!q->counted) return;
    q->counted = 0;
    pthread_mutex_lock(&s->up_mu);
    s->uploads_open--;
    pthread_mutex_unlock(&s->up_mu);
}

static void request_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode why)
{
    (void)c, (void)why;
    req *q = *con_cls;
    if (!q) return;
    if (q->entered) ml_ranks_leave(((ml_server *)cls)->rs);
    upload_uncount(cls, q);
    ml_upload_end(q->f, 1); /* an upload cut short: its partial file goes */
    free(q->name);
    free(q);
    *con_cls = NULL;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    ml_server *s = cls;
    (void)version;
    req *q = *con_cls;
    int is_get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    if (!q) { /* first call for this request: headers only */
        if (!is_get && (!strcmp(method, "PUT") || !strcmp(method, "POST")) && !strcmp(url, "/api/upload"))
            q = upload_begin(s, c);
        else q = ml_calloc(1, sizeof *q);
        ml_ranks_enter(s->rs); /* views it reads are not freed before it is done */
        q->entered = 1;
        *con_cls = q;
        return MHD_YES;
    }
    if (q->upload) return upload_step(s, c, q, upload, upload_size);
    if (!is_get) {
        if (*upload_size) { *upload_size = 0; return MHD_YES; } /* drain, then answer */
        return reply_error(c, 405, "only GET and HEAD (and PUT or POST to /api/upload)");
    }
    if (!host_ok(s, c)) return reply_error(c, 403, "Host header names another host");
    arg_check args;
    const char *bad = request_bad(c, url, &args);
    if (bad) return reply_error(c, 400, bad);
    if (!strcmp(url, "/") || !strcmp(url, "/index.html"))
        return reply(c, 200, "text/html; charset=utf-8", s->page.p, s->page.len, 0);
    if (!strcmp(url, "/api/export")) return reply_export(s, c);
    if (!strcmp(url, "/api/trace.json")) return reply_trace_json(s, c);
    if (!strncmp(url, "/api/", 5) && strlen(url) < 64) {
        ml_buf b = {0};
        int status = ml_api_route(s->rs, url, get_arg, c, &b);
        const char *ctype = ml_cb_is_binary(b.p, b.len) ? "application/octet-stream" : "application/json; charset=utf-8";
        enum MHD_Result ok = reply(c, status, ctype, b.p ? b.p : "", b.len, 1);
        ml_buf_free(&b);
        return ok;
    }
    return reply_error(c, 404, "not found");
}

/* Raises the open-file limit to its hard limit (each connection is a file)
 * and returns how many connections to accept: what the limit leaves after
 * the files of imports and uploads, at most ML_MAX_CONNECTIONS. */
#define ML_MAX_CONNECTIONS 2048
static unsigned connection_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 64;
    if (rl.rlim_cur < rl.rlim_max) {
        struct rlimit want = rl;
        want.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
        if (want.rlim_cur > rl.rlim_cur && setrlimit(RLIMIT_NOFILE, &want) == 0) rl = want;
    }
    rlim_t n = rl.rlim_cur == RLIM_INFINITY ? 65536 : rl.rlim_cur;
    n = n > 256 ? n - 128 : n / 2;
    return n > ML_MAX_CONNECTIONS ? ML_MAX_CONNECTIONS : (unsigned)n;
}

#define ML_CONN_TIMEOUT 30 /* seconds */

static int parse_addr(const char *host, int port, struct sockaddr_storage *ss, ml_err *e)
{
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int rc = getaddrinfo(host, ps, &hints, &res);
    if (rc != 0 || !res) return ml_fail(e, "--host %s: %s", host, gai_strerror(rc));
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return 0;
}

static int is_loopback(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
    if (ss->ss_family == AF_INET6) return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
    return 0;
}

ml_server *ml_server_start(ml_ranks *rs, const char *host, int port, const char *title, const ml_server_opts *o,
                           ml_err *e)
{
    struct sockaddr_storage ss;
    if (parse_addr(host, port, &ss, e)) return NULL;
    ml_server *s = ml_calloc(1, sizeof *s);
    s->rs = rs;
    s->max_upload = o && o->max_upload ? o->max_upload : ML_UPLOAD_DEFAULT_MAX;
    s->max_imports = o && o->max_imports > 0 ? o->max_imports : ML_UPLOAD_DEFAULT_IMPORTS;
    s->keep_uploads = o && o->keep_uploads > 0 ? o->keep_uploads : ML_UPLOAD_DEFAULT_KEEP;
    s->keep_bytes = o && o->keep_bytes > 0 ? o->keep_bytes : ML_UPLOAD_DEFAULT_KEEP_BYTES;
    pthread_mutex_init(&s->up_mu, NULL);
    pthread_cond_init(&s->up_turn, NULL);
    s->loopback = is_loopback(&ss);
    snprintf(s->host, sizeof s->host, "%s", host);
    build_page(&s->page, title ? title : "memlens serve");
    s->uploads = ml_uploads_new(o ? o->log : NULL);
    /* One thread per connection: a request that waits for a rank to load
     * (/api/rank?wait=) or imports an upload never holds up another, nor
     * does a client that is slow to send.  poll(), not select(): connections
     * past file descriptor 1023 must work too.  Idle connections are closed
     * after ML_CONN_TIMEOUT seconds without a byte; hundreds may be open at
     * once (connection_limit) without locking new clients out. */
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL_INTERNAL_THREAD;
    if (ss.ss_family == AF_INET6) flags |= MHD_USE_IPv6;
    s->d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, handle, s,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit(),
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)ML_CONN_TIMEOUT,
                            MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024,
                            MHD_OPTION_NOTIFY_COMPLETED, request_done, (void *)s,
                            MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
                            MHD_OPTION_END);
    if (!s->d) {
        ml_fail(e, "cannot listen on %s port %d (in use, or not an address of this machine?)", host, port);
        ml_buf_free(&s->page);
        ml_uploads_free(s->uploads);
        pthread_mutex_destroy(&s->up_mu);
        pthread_cond_destroy(&s->up_turn);
        free(s);
        return NULL;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di ? di->port : port;
    snprintf(s->url, sizeof s->url, ss.ss_family == AF_INET6 ? "http://[%s]:%d/" : "http://%s:%d/", host, s->port);
    return s;
}

int ml_server_port(const ml_server *s) { return s->port; }
const char *ml_server_url(const ml_server *s) { return s->url; }

void ml_server_stop(ml_server *s)
{
    if (!s) return;
    MHD_stop_daemon(s->d);
    ml_uploads_free(s->uploads);
    ml_buf_free(&s->page);
    pthread_mutex_destroy(&s->up_mu);
    pthread_cond_destroy(&s->up_turn);
    free(s);
}
