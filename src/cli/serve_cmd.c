/*
 * serve_cmd.c — the `memlens serve` command line: lists the inputs into
 * ranks (imported lazily, the first one at once), starts the local server,
 * prints its URL, and runs until SIGINT/SIGTERM, then stops cleanly.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "textwidth.h"
#include "follow.h"
#include "ranks.h"
#include "cli.h"
#include "server.h"

extern char **environ;

static void usage(FILE *f)
{
    fprintf(f, "usage: memlens serve [INPUT...|DIR] [--host ADDR] [--port N] [--open] [--threads N]\n"
               "                     [--max-upload SIZE] [--max-imports N] [--no-follow]\n"
               "                     [--keep-uploads N] [--keep-upload-bytes SIZE]\n"
               "  Serves the report's UI live from memory, with an HTTP/JSON API that answers\n"
               "  each view for exactly the window and width asked (see README).\n"
               "  --host ADDR   address to listen on (default 127.0.0.1: this machine only)\n"
               "  --port N      port (default 8000; 0 = any free port, printed)\n"
               "  --open        open the page in a browser (xdg-open, when installed)\n"
               "  --threads N   ranks imported in parallel (default: one per core)\n"
               "  --max-upload SIZE  bytes an upload may hold, decompressed (default 4G;\n"
               "                suffix K, M, G); larger uploads are answered 413\n"
               "  --max-imports N  uploads imported at once (default 2); 8 more may wait,\n"
               "                past that an upload is answered 503\n"
               "  --no-follow   do not watch the directories served\n"
               "  --keep-uploads N, --keep-upload-bytes SIZE  uploads held at once (default 8,\n"
               "                their files 2G): past either, the least recently viewed is evicted\n"
               "                (the upload's answer and the rank's status say so)\n"
               "  Ranks of a directory are imported the first time they are viewed.  A directory\n"
               "  is followed: traces written below it later (a file once it has stopped growing)\n"
               "  are new ranks, runs or spans of the page, within seconds (inotify, else polling).\n"
               "  A TensorBoard logdir (LOGDIR/RUN/WORKER.TIMESTAMP.pt.trace.json) is shown as runs,\n"
               "  each with its workers' spans.\n"
               "  Without INPUT the page opens empty, to upload files to (drop or Browse);\n"
               "  uploads are kept in a temporary folder, removed when the server stops.\n");
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* "N" or "N[KMG]" (binary units) in 1..2^50 bytes. */
static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno || s[0] == '-') return -1;
    int shift = 0;
    if (*end == 'K' || *end == 'k') shift = 10, end++;
    else if (*end == 'M' || *end == 'm') shift = 20, end++;
    else if (*end == 'G' || *end == 'g') shift = 30, end++;
    if (*end || v == 0 || v > (1ull << 50) >> shift) return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

/* Opens url with xdg-open if it is on PATH; never fatal. */
static void open_browser(const ml_cli_io *io, const char *url)
{
    char *argv[] = { "xdg-open", (char *)url, NULL };
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (posix_spawnp(&pid, "xdg-open", &fa, NULL, argv, environ) != 0)
        fprintf(io->err, "memlens serve: --open: xdg-open not found; open %s yourself\n", url);
    posix_spawn_file_actions_destroy(&fa);
}

int ml_cmd_serve(int argc, char **argv, const ml_cli_io *io)
{
    const char *host = "127.0.0.1";
    int port = 8000, open = 0, threads = 0, follow = 1;
    ml_server_opts opts = {.log = io->out};
    const char **inputs = ml_calloc((size_t)argc + 1, sizeof *inputs);
    size_t n = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--host") && i + 1 < argc) host = argv[++i];
        else if (!strcmp(a, "--port") && i + 1 < argc) {
            if (parse_int(argv[++i], 0, 65535, &port)) {
                fprintf(io->err, "memlens serve: --port wants a number in 0..65535\n");
                free(inputs);
                return 2;
            }
        } else if (!strcmp(a, "--threads") && i + 1 < argc) {
            if (parse_int(argv[++i], 1, 64, &threads)) {
                fprintf(io->err, "memlens serve: --threads wants a number in 1..64\n");
                free(inputs);
                return 2;
            }
        } else if (!strcmp(a, "--max-upload") && i + 1 < argc) {
            if (parse_size(argv[++i], &opts.max_upload)) {
                fprintf(io->err, "memlens serve: --max-upload wants a size in bytes (e.g. 512M, 4G)\n");
                free(inputs);
                return 2;
            }
        } else if (!strcmp(a, "--max-imports") && i + 1 < argc) {
            if (parse_int(argv[++i], 1, 64, &opts.max_imports)) {
                fprintf(io->err, "memlens serve: --max-imports wants a number in 1..64\n");
                free(inputs);
                return 2;
            }
        } else if (!strcmp(a, "--keep-uploads") && i + 1 < argc) {
            if (parse_int(argv[++i], 1, 100000, &opts.keep_uploads)) {
                fprintf(io->err, "memlens serve: --keep-uploads wants a number in 1..100000\n");
                free(inputs);
                return 2;
            }
        } else if (!strcmp(a, "--keep-upload-bytes") && i + 1 < argc) {
            uint64_t v;
            if (parse_size(argv[++i], &v) || !v || v >= (uint64_t)1 << 62) {
                fprintf(io->err, "memlens serve: --keep-upload-bytes wants a size in bytes (e.g. 512M, 2G)\n");
                free(inputs);
                return 2;
            }
            opts.keep_bytes = (int64_t)v;
        } else if (!strcmp(a, "--open")) open = 1;
        else if (!strcmp(a, "--no-follow")) follow = 0;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(io->out); free(inputs); return 0; }
        else if (a[0] == '-' && a[1]) {
            fprintf(io->err, "memlens serve: unknown option %s\n", a);
            usage(io->err);
            free(inputs);
            return 2;
        } else inputs[n++] = a;
    }

    /* Ranks are imported when first viewed; an input that is no profiler
     * data at all (PyTorch's .html timeline) is refused now, as summary does. */
    for (size_t k = 0; k < n; k++) {
        ml_err page = {{0}};
        if (ml_html_page_refuse(inputs[k], &page)) {
            free(inputs);
            fprintf(io->err, "memlens: %s\n", ML_TEXT_SAFE(page.msg));
            return 2;
        }
    }

    /* SIGINT/SIGTERM are taken by sigwait below: block them before any thread starts. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    /* The page's title: the first input's name (argv outlives the server). */
    const char *title = !n ? "upload a profile"
                        : strrchr(inputs[0], '/') && strrchr(inputs[0], '/')[1] ? strrchr(inputs[0], '/') + 1 : inputs[0];
    ml_err e = {{0}};
    ml_ranks *rs = ml_ranks_open(inputs, n, threads, &e);
    if (!rs) { free(inputs); fprintf(io->err, "memlens: %s\n", ML_TEXT_SAFE(e.msg)); return 2; }
    /* the directories served are followed: traces written there later are new ranks (follow.h) */
    ml_follow_opts fo = {.no_inotify = getenv("MEMLENS_FOLLOW_POLL") != NULL};
    ml_follow *fw = follow ? ml_follow_start(rs, (const char *const *)inputs, n, &fo) : NULL;
    free(inputs);
    ml_ranks_request(rs, 0); /* the page opens on it: start now */
    ml_server *s = ml_server_start(rs, host, port, title, &opts, &e);
    if (!s) {
        fprintf(io->err, "memlens serve: %s\n", ML_TEXT_SAFE(e.msg));
        ml_follow_stop(fw);
        ml_ranks_free(rs);
        return 2;
    }
    fprintf(io->out, "memlens serve: %s\n", ml_server_url(s));
    if (!n) fprintf(io->out, "memlens serve: ready: no input yet: upload files in the page; Ctrl-C to stop\n");
    else fprintf(io->out, "memlens serve: ready: %zu rank%s (imported when first viewed); Ctrl-C to stop\n",
                ml_ranks_count(rs), ml_ranks_count(rs) == 1 ? "" : "s");
    if (fw) fprintf(io->out, "memlens serve: following the directories (%s): traces written there are picked up\n", ml_follow_mode(fw));
    fflush(io->out);
    if (open) open_browser(io, ml_server_url(s));

    int sig = 0;
    sigwait(&sigs, &sig);
    fprintf(io->err, "memlens serve: %s: stopping\n", sig == SIGINT ? "interrupted" : "terminated");
    ml_server_stop(s);
    ml_follow_stop(fw);
    ml_ranks_free(rs);
    while (waitpid(-1, NULL, WNOHANG) > 0) {} /* reap xdg-open */
    return 0;
}
