/*
 * server.h — the HTTP side of `memlens serve`: libmicrohttpd, the page and
 * the API routes (api.h), nothing else.
 *
 * Serves exactly: "/" (the web UI, embedded at build time, reading its data
 * from the API) and /api/... ; every other path is 404 and no path is ever
 * mapped to a file.  Only GET and HEAD.  When bound to a loopback address,
 * requests whose Host header names another host are refused (403), so that
 * a web page elsewhere cannot reach the server through DNS rebinding.
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
