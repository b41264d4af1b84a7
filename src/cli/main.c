/*
 * main.c — the memlens program: the command line of dispatch.c, on stdout
 * and stderr, with the program's answer to a fatal error (print, exit 3).
 *
 * The program, not the library, decides what a broken pipe means: when the
 * reader of standard output goes away (`memlens perf --json big | head`),
 * memlens stops at once, quietly, with status 0 — the reader had all it
 * wanted.  A broken pipe on any other descriptor (a FIFO given to -o) stays
 * an error the command reports.  Output to standard output that could not
 * be written (a full disk) fails the run with status 1, whichever command
 * wrote it.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "err.h"

static void on_sigpipe(int sig)
{
    (void)sig;
    struct pollfd p = {.fd = 1, .events = 0};
    if (poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP))) _exit(0);
    /* not stdout: the write returns EPIPE and its caller reports it */
}

static void fatal_exit(const char *msg)
{
    fprintf(stderr, "memlens: %s\n", msg);
    exit(3);
}

int main(int argc, char **argv)
{
    ml_set_fatal_handler(fatal_exit);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigpipe;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, NULL);
    int rc = ml_cli_main(argc, argv);
    errno = 0;
    if ((fflush(stdout) != 0 || ferror(stdout)) && rc == 0) {
        fprintf(stderr, "memlens: standard output: write failed%s%s\n", errno ? ": " : "", errno ? strerror(errno) : "");
        rc = 1;
    }
    return rc;
}
