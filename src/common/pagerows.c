/* pagerows.c — tables of rows in pages of their own once large; see pagerows.h. */
#include "pagerows.h"
#include "err.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }
static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
/* Whether a table of cap rows is a mapping (else heap memory): its capacity alone says. */
static bool paged(size_t cap, size_t elem) { return cap * elem >= ML_PAGEROWS_MIN; }
/* The bytes mapped for a paged table of cap rows. */
static size_t mapped(size_t cap, size_t elem) { return round_up(cap * elem, page_size()); }

static _Noreturn void no_memory(size_t bytes) { ml_fatal("out of memory (asked for %zu bytes)", bytes); }

/* Gives the table (len rows kept) a capacity of new_cap rows, no less than
 * it had: the heap's realloc while small, a fresh mapping when it becomes
 * large, mremap after (the pages move, their bytes are not copied). */
static void set_cap(void **v, size_t len, size_t *cap, size_t new_cap, size_t elem)
{
    if (!paged(new_cap, elem)) {
        *v = ml_realloc(*v, new_cap * elem);
    } else if (paged(*cap, elem)) {
        size_t from = mapped(*cap, elem), to = mapped(new_cap, elem);
        if (to != from) {
            void *m = mremap(*v, from, to, MREMAP_MAYMOVE);
            if (m == MAP_FAILED) {
                /* (a table joined by moving pages is several mappings, which
                 * mremap does not take as one: copied, then, this once) */
                m = mmap(NULL, to, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (m == MAP_FAILED) no_memory(to);
                memcpy(m, *v, len * elem);
                munmap(*v, from);
            }
            *v = m;
        }
    } else {
        size_t to = mapped(new_cap, elem);
        void *m = mmap(NULL, to, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) no_memory(to);
        if (len) memcpy(m, *v, len * elem);
        free(*v);
        *v = m;
    }
    *cap = new_cap;
}

void ml_pagerows_reserve(void **v, size_t len, size_t *cap, size_t n, size_t elem)
{
    if (n <= *cap) return;
    size_t c = *cap ? *cap * 2 : 16;
    while (c < n) c *= 2;
    set_cap(v, len, cap, c, elem);
}

void ml_pagerows_free(void *v, size_t cap, size_t elem)
{
    if (!v) return;
    if (paged(cap, elem)) munmap(v, mapped(cap, elem));
    else free(v);
}

void ml_pagerows_shrink(void **v, size_t len, size_t *cap, size_t elem)
{
    if (!len || len >= *cap) return;
    if (!paged(*cap, elem)) {
        *v = ml_realloc(*v, len * elem);
    } else if (!paged(len, elem)) { /* back to the heap: the rule is the capacity's */
        void *h = ml_malloc(len * elem);
        memcpy(h, *v, len * elem);
        munmap(*v, mapped(*cap, elem));
        *v = h;
    } else { /* the pages past the rows' go (munmap: a joined table is several mappings) */
        size_t keep = mapped(len, elem), had = mapped(*cap, elem);
        if (had > keep) munmap((char *)*v + keep, had - keep);
    }
    *cap = len;
}

/* The fewest rows that fill `bytes` (a capacity whose mapping holds them). */
static size_t rows_for(size_t bytes, size_t elem) { return (bytes + elem - 1) / elem; }

void ml_pagerows_append(void **dv, size_t *dlen, size_t *dcap, void **sv, size_t *slen, size_t *scap, size_t elem)
{
    size_t n1 = *dlen, n2 = *slen, pg = page_size();
    if (n2 > n1 && *scap >= n1 + n2) {
        /* src's buffer takes dst's rows in front of its own: the fewer rows move */
        char *s = *sv;
        if (n1) {
            memmove(s + n1 * elem, s, n2 * elem);
            memcpy(s, *dv, n1 * elem);
        }
        ml_pagerows_free(*dv, *dcap, elem);
        *dv = s;
        *dcap = *scap;
    } else if (n1 && paged(*dcap, elem) && paged(*scap, elem) && n2 * elem >= 4 * pg) {
        /* dst's rows end r bytes into a page (at q + r): src's rows shifted up
         * by r within their own pages, behind a copy of that page's head, are
         * then pages that can take the place of dst's from q on */
        size_t b1 = n1 * elem, r = b1 % pg, q = b1 - r, b2 = n2 * elem, span = round_up(r + b2, pg);
        ml_pagerows_reserve(sv, n2, scap, rows_for(span, elem), elem);
        ml_pagerows_reserve(dv, n1, dcap, rows_for(q + span, elem), elem); /* (room to grow: see set_cap) */
        char *s = *sv, *d = *dv;
        if (r) {
            memmove(s + r, s, b2); /* (pages already written: no fault but maybe the last) */
            memcpy(s, d + q, r);
        }
        if (mremap(s, span, span, MREMAP_MAYMOVE | MREMAP_FIXED, d + q) != MAP_FAILED) {
            size_t rest = mapped(*scap, elem) - span;
            if (rest) munmap(s + span, rest);
        } else { /* (src joined before, several mappings: mremap takes one) */
            memcpy(d + q, s, r + b2);
            ml_pagerows_free(s, *scap, elem);
        }
    } else {
        ml_pagerows_reserve(dv, n1, dcap, n1 + n2, elem);
        if (n2) memcpy((char *)*dv + n1 * elem, *sv, n2 * elem);
        ml_pagerows_free(*sv, *scap, elem);
    }
    *dlen = n1 + n2;
    *sv = NULL;
    *slen = *scap = 0;
}
