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
 * 422 (the importer's one-line error, as `memlens summary FILE` prints it
 * after "memlens: "), 507 (disk) with {"error"}.  The folder is removed by
 * ml_server_stop.  An upload with an Origin header other than this server
 * (a page elsewhere posting to localhost) is refused (403).  When bound to a loopback address, requests whose Host
 * header names another host are refused (403), so that a web page elsewhere
 * cannot reach the server through DNS rebinding.
 *
 * A thread per connection, polled (no select() limit), up to ~2000 at once
 * (the open-file limit is raised to its hard limit), idle ones closed after
 * 30 s: hundreds of idle or slow clients never lock a new one out.
 */
#ifndef ML_SERVER_SERVER_H
#define ML_SERVER_SERVER_H

#include "err.h"
#include "ranks.h"

typedef struct ml_server ml_server;

/* Starts serving rs on host:port (port 0 = any free port); threads of its own.
 * title: the page's title (the input's name). */
ml_server *ml_server_start(ml_ranks *rs, const char *host, int port, const char *title, ml_err *e);
/* The port it listens on, and its URL ("http://127.0.0.1:PORT/"). */
int ml_server_port(const ml_server *s);
const char *ml_server_url(const ml_server *s);
/* Stops accepting, waits for the requests in flight, frees. */
void ml_server_stop(ml_server *s);

#endif
