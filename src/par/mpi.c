/*
 * mpi.c — memlens across machines: build/memlens-mpi (built by `make` where
 * mpicc is found, Open MPI from Debian).  The one module that calls MPI: it is
 * the transport of transport.h and the program's main.
 *
 *     mpirun -n K build/memlens-mpi summary|perf|check|report ARGS...
 *     srun --ntasks=K build/memlens-mpi summary /shared/job/
 *
 * Every process lists the job's ranks alike; each reads its share (job.h);
 * process 0 gathers the records and writes exactly what one process would.
 * The other processes write nothing to standard output or error (process 0
 * reports their failures).  `check` judges each process's share of the
 * pairs of ranks (runpair.c).  Other commands run on process 0 alone.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "err.h"
#include "transport.h"

/* Bytes per message: MPI counts are ints. */
#define CHUNK ((size_t)1 << 30)

static int gather(const void *mine, size_t n, char **all, uint64_t **lens)
{
    int size, me;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    uint64_t len = n;
    uint64_t *ls = me == 0 ? calloc((size_t)size, sizeof *ls) : NULL;
    *all = NULL;
    if (lens) *lens = NULL;
    if (MPI_Gather(&len, 1, MPI_UINT64_T, ls, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
    if (me != 0) {
        const char *p = mine;
        for (size_t at = 0; at < n; at += CHUNK) {
            size_t k = n - at < CHUNK ? n - at : CHUNK;
            if (MPI_Send(p + at, (int)k, MPI_BYTE, 0, 1, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
        }
        return 0;
    }
    uint64_t total = 0;
    for (int i = 0; i < size; i++) total += ls[i];
    char *buf = malloc(total ? total : 1);
    if (!buf) {
        fprintf(stderr, "memlens: out of memory (asked for %llu bytes)\n", (unsigned long long)total);
        exit(1);
    }
    if (n) memcpy(buf, mine, n);
    uint64_t at = ls[0];
    for (int p = 1; p < size; p++) {
        for (uint64_t got = 0; got < ls[p];) {
            size_t k = ls[p] - got < CHUNK ? (size_t)(ls[p] - got) : CHUNK;
            if (MPI_Recv(buf + at + got, (int)k, MPI_BYTE, p, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
                free(buf);
                free(ls);
                return -1;
            }
            got += k;
        }
        at += ls[p];
    }
    *all = buf;
    if (lens) *lens = ls;
    else free(ls);
    return 0;
}

static int64_t bcast(int64_t v)
{
    MPI_Bcast(&v, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    return v;
}

static int bcast_bytes(char **p, size_t *n)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    uint64_t len = me == 0 ? *n : 0;
    if (MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
    if (me != 0) {
        *p = malloc(len ? len : 1);
        if (!*p) {
            fprintf(stderr, "memlens: out of memory (asked for %llu bytes)\n", (unsigned long long)len);
            exit(1);
        }
        *n = len;
    }
    for (uint64_t at = 0; at < len; at += CHUNK) {
        size_t k = len - at < CHUNK ? (size_t)(len - at) : CHUNK;
        if (MPI_Bcast(*p + at, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
    }
    return 0;
}

/* The commands that read a job on every process (job.h; check: runpair.c). */
static int shared_command(const char *name)
{
    static const char *const names[] = {"summary", "perf", "report", "check"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (name && !strcmp(name, names[i])) return 1;
    return 0;
}

/* Out of memory on one process ends the job: the message, then MPI_Abort. */
static void fatal_abort(const char *msg)
{
    fprintf(stderr, "memlens: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

int main(int argc, char **argv)
{
    ml_set_fatal_handler(fatal_abort);
    MPI_Init(&argc, &argv);
    int size, me;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    static ml_transport t;
    t = (ml_transport){"mpi", size, me, gather, bcast, bcast_bytes};
    int rc = 0;
    if (!shared_command(argc > 1 ? argv[1] : NULL)) {
        if (me == 0) rc = ml_cli_main(argc, argv); /* one process is enough */
    } else {
        if (me != 0) { /* process 0 speaks for all */
            if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) rc = 2;
        }
        ml_transport_now = &t;
        int r = ml_cli_main(argc, argv);
        if (!rc) rc = r;
    }
    MPI_Finalize();
    return rc;
}
