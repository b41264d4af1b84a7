/*
 * server.h — the HTTP side of `memlens serve`: libmicrohttpd, the page and
 * the API routes (api.h), nothing else.
 *
 * Serves exactly: "/" (the web UI, embedded at build time, reading its data
 * from the API) and /api/... ; every other path is 404 and no path is ever
 * mapped to a file.  Only GET and HEAD, but for PUT or POST
 * /api/upload?name=FILE: the body is a profile, streamed to a temporary
 * folder (upload.h) and imported as new ranks (ml_ranks_add): 200 +
 * {"index": first new rank, "added", "ranks": [slot...]}, or 400 (bad name),
 * 413 (larger than max_upload), 422 (the importer's one-line error, as
 * `memlens summary FILE` prints it after "memlens: "), 503 (too many
 * uploads at once), 507 (disk) with {"error"}.  Replies name an upload by
 * the name it was given, never by the server's path of it.  The folder is
 * removed by ml_server_stop.  An upload with an Origin header other than
 * this server (a page elsewhere posting to localhost) is refused (403); on a
 * loopback bind, the server's other loopback names with its port
 * (http://localhost:PORT for a server on 127.0.0.1) are this server.  When
 * bound to a loopback address, requests whose Host header names another host
 * are refused (403), so that a web page elsewhere cannot reach the server
 * through DNS rebinding.
 *
 * A thread per connection, polled (no select() limit), up to ~2000 at once
 * (the open-file limit is raised to its hard limit), idle ones closed after
 * 30 s: hundreds of idle or slow clients never lock a new one out.
 */
#ifndef ML_SERVER_SERVER_H
#define ML_SERVER_SERVER_H

#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "ranks.h"

typedef struct ml_server ml_server;

/* What uploads may cost.  max_upload: bytes per upload, as sent and once
 * decompressed (a gzip bomb stops there): past it, 413.  A single JSON
 * value (string or number) of an upload may hold at most ML_UPLOAD_MAX_VALUE
 * bytes: longer, 422 as soon as it passes that (not after reading it).
 * max_imports: uploads imported at once; up to ML_UPLOAD_WAITING more may
 * be under way (sending, or waiting their turn), and past that an upload is
 * answered 503 (with Retry-After; its body is read and dropped, never
 * written).  Zeros: the defaults below. */
#define ML_UPLOAD_DEFAULT_MAX ((uint64_t)4 << 30)
#define ML_UPLOAD_DEFAULT_IMPORTS 2
#define ML_UPLOAD_WAITING 8
#define ML_UPLOAD_MAX_VALUE ((size_t)16 << 20)
/* Uploads held at once: at most this many, their files at most this many
 * bytes (ml_ranks_evict_uploads: the least recently viewed go first). */
#define ML_UPLOAD_DEFAULT_KEEP 8
#define ML_UPLOAD_DEFAULT_KEEP_BYTES ((int64_t)2 << 30)

typedef struct ml_server_opts {
    uint64_t max_upload;
    int max_imports;
    int keep_uploads;       /* 0: ML_UPLOAD_DEFAULT_KEEP */
    int64_t keep_bytes;     /* 0: ML_UPLOAD_DEFAULT_KEEP_BYTES */
    FILE *log;              /* the caller's stream for status lines (the uploads' folder); NULL: none */
} ml_server_opts;

/* Starts serving rs on host:port (port 0 = any free port); threads of its own.
 * title: the page's title (the input's name); o may be NULL (the defaults). */
ml_server *ml_server_start(ml_ranks *rs, const char *host, int port, const char *title, const ml_server_opts *o,
                           ml_err *e);
/* The port it listens on, and its URL ("http://127.0.0.1:PORT/"). */
int ml_server_port(const ml_server *s);
const char *ml_server_url(const ml_server *s);
/* Stops accepting, waits for the requests in flight, frees. */
void ml_server_stop(ml_server *s);

#endif
