/*
 * heap_policy.h — how the memlens programs set up the C heap before their
 * command runs (main.c, par/mpi.c); the library itself sets nothing
 * process-wide (an embedder such as the Python extension keeps its own).
 *
 * Why: a command reads a trace into columns of millions of rows and its
 * analyses write more of them; on 4 KB pages the first touch of that memory
 * is one page fault per 4 KB.  On a 400 MB trace with glibc's defaults
 * `report` took 126,000 faults and spent a third of its CPU in the kernel
 * (docs/benchmarks.md, "The heap").  So the program:
 *  - keeps every thread in one arena, the main heap (M_ARENA_MAX 1): a
 *    thread's own arena is a 64 MB mapping this cannot advise;
 *  - fixes the mmap threshold at 32 MB (glibc's largest), which also stops
 *    glibc from moving it: below it a block comes from the heap and is
 *    reused once freed, above it the block is its own mapping, which the
 *    allocator's functions advise (ml_malloc, common/err.c);
 *  - grows the heap once by the size of its inputs (at least 256 MB, at most
 *    a quarter of the RAM) and asks for transparent huge pages on it, so that
 *    it is faulted in 2 MB at a time.  The reservation is address space, not
 *    memory: a page counts only once it is written.  The pad stays: glibc
 *    trims the heap's free top down to it, and a trimmed heap would grow
 *    back without the advice (a new mapping does not inherit it).
 * Where brk cannot grow, or under valgrind or a sanitizer (which replace
 * malloc), the advice is simply not given and the program runs as before.
 */
#ifndef ML_HEAP_POLICY_H
#define ML_HEAP_POLICY_H

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { ML_HEAP_HUGE_PAGE = 2 << 20 };

/* What to reserve: the regular files among the arguments, as a guess at the
 * heap the command needs, within [256 MB, RAM / 4]. */
static inline size_t ml_heap_reserve(int argc, char **argv)
{
    uint64_t want = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (argv[i][0] != '-' && stat(argv[i], &st) == 0 && S_ISREG(st.st_mode)) want += (uint64_t)st.st_size;
    }
    uint64_t lo = (uint64_t)256 << 20;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t hi = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 4 : lo;
    if (want < lo) want = lo;
    if (want > hi) want = hi > lo ? hi : lo;
    if (want > (uint64_t)1 << 30) want = (uint64_t)1 << 30; /* (M_TOP_PAD is an int) */
    return (size_t)want;
}

static inline void ml_heap_policy(int argc, char **argv)
{
#ifdef MADV_HUGEPAGE
    if (!mallopt(M_ARENA_MAX, 1) || !mallopt(M_MMAP_THRESHOLD, 32 << 20)) return;
    mallopt(M_TOP_PAD, (int)ml_heap_reserve(argc, argv));
    char *lo = sbrk(0);
    void *volatile grow = malloc(4 << 20); /* (below the threshold: from the heap, which grows by the pad) */
    free(grow);
    char *hi = sbrk(0);
    if (lo == (char *)-1 || hi == (char *)-1) return;
    uintptr_t from = ((uintptr_t)lo + ML_HEAP_HUGE_PAGE - 1) & ~(uintptr_t)(ML_HEAP_HUGE_PAGE - 1);
    if ((uintptr_t)hi > from) (void)madvise((void *)from, (uintptr_t)hi - from, MADV_HUGEPAGE);
#else
    (void)argc, (void)argv;
#endif
}

#endif
