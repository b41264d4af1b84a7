/*
 * http_load.c — a bounded load generator for `memlens serve` benchmarks
 * (bench/serve.sh).  Loopback only: it refuses any address but 127.0.0.1
 * and ::1.
 *
 *     http_load PORT CLIENTS SECONDS KIND DEV T0 T1
 *
 * CLIENTS threads each keep one HTTP/1.1 connection and send GET requests
 * back to back for SECONDS: KIND "allocs" asks /api/allocs, "curve"
 * /api/curve (curve 0), for random windows of [T0, T1] (relative ns; spans
 * from the whole range down to 1/10^4 of it) at 2000 px, on rank 0 device DEV.
 * Prints the number of requests, errors and latency percentiles in ms.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct client {
    int port, dev;
    double seconds, t0, t1;
    const char *kind;
    unsigned seed;
    double *lat;
    size_t n, cap, errors;
} client;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int connect_loopback(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* 127.0.0.1, never anything else */
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* Sends one request and reads the whole response; returns the status or -1. */
static int request(int fd, const char *path, char *buf, size_t cap)
{
    char req[512];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n", path);
    if (write(fd, req, (size_t)n) != n) return -1;
    size_t got = 0;
    char *body = NULL;
    long clen = -1;
    for (;;) {
        ssize_t r = read(fd, buf + got, cap - got - 1);
        if (r <= 0) return -1;
        got += (size_t)r;
        buf[got] = 0;
        if (!body && (body = strstr(buf, "\r\n\r\n"))) {
            body += 4;
            char *cl = strcasestr(buf, "Content-Length:");
            if (!cl) return -1;
            clen = strtol(cl + 15, NULL, 10);
        }
        if (body && (long)(got - (size_t)(body - buf)) >= clen) break;
        if (got + 1 >= cap) { /* large body: keep only the headers' worth */
            size_t keep = body ? (size_t)(body - buf) : 0;
            if (!body) return -1;
            clen -= (long)(got - keep);
            got = keep;
        }
    }
    return atoi(buf + 9);
}

static void *run(void *arg)
{
    client *c = arg;
    size_t cap = 1 << 20;
    char *buf = malloc(cap);
    int fd = connect_loopback(c->port);
    double end = now() + c->seconds, span = c->t1 - c->t0;
    while (fd >= 0 && now() < end) {
        double zoom = 1.0;
        int z = (int)(rand_r(&c->seed) % 5);
        for (int k = 0; k < z; k++) zoom /= 10;
        double w = span * zoom, a = c->t0 + (span - w) * (rand_r(&c->seed) / (double)RAND_MAX);
        char path[256];
        if (!strcmp(c->kind, "curve"))
            snprintf(path, sizeof path, "/api/curve?rank=0&dev=%d&curve=0&px=2000&fmt=bin&t0=%.0f&t1=%.0f", c->dev, a, a + w);
        else
            snprintf(path, sizeof path, "/api/allocs?rank=0&dev=%d&px=2000&fmt=bin&t0=%.0f&t1=%.0f", c->dev, a, a + w);
        double t = now();
        int st = request(fd, path, buf, cap);
        double ms = (now() - t) * 1000;
        if (st != 200) {
            c->errors++;
            close(fd);
            fd = connect_loopback(c->port);
            continue;
        }
        if (c->n == c->cap) c->lat = realloc(c->lat, (c->cap = c->cap ? c->cap * 2 : 1024) * sizeof *c->lat);
        c->lat[c->n++] = ms;
    }
    if (fd >= 0) close(fd);
    free(buf);
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: http_load PORT CLIENTS SECONDS allocs|curve DEV T0 T1\n");
        return 2;
    }
    int port = atoi(argv[1]), nc = atoi(argv[2]);
    double secs = atof(argv[3]);
    if (port <= 0 || port > 65535 || nc < 1 || nc > 64 || secs <= 0 || secs > 600) {
        fprintf(stderr, "http_load: port 1..65535, 1..64 clients, 0..600 s\n");
        return 2;
    }
    client *cs = calloc((size_t)nc, sizeof *cs);
    pthread_t *th = calloc((size_t)nc, sizeof *th);
    for (int i = 0; i < nc; i++) {
        cs[i] = (client){ .port = port, .seconds = secs, .kind = argv[4], .seed = 1234u + (unsigned)i,
                          .dev = atoi(argv[5]), .t0 = atof(argv[6]), .t1 = atof(argv[7]) };
        pthread_create(&th[i], NULL, run, &cs[i]);
    }
    size_t total = 0, errors = 0;
    for (int i = 0; i < nc; i++) { pthread_join(th[i], NULL); total += cs[i].n; errors += cs[i].errors; }
    double *all = malloc((total ? total : 1) * sizeof *all);
    size_t k = 0;
    for (int i = 0; i < nc; i++) { memcpy(all + k, cs[i].lat, cs[i].n * sizeof *all); k += cs[i].n; free(cs[i].lat); }
    qsort(all, total, sizeof *all, cmp);
#define P(q) (total ? all[(size_t)((q) * (double)(total - 1))] : 0)
    printf("requests %zu errors %zu rate %.0f/s p50 %.2f p95 %.2f p99 %.2f max %.2f ms\n", total, errors,
           total / secs, P(0.5), P(0.95), P(0.99), P(1.0));
    free(all);
    free(cs);
    free(th);
    return errors ? 1 : 0;
}
