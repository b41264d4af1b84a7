/*
 * pagerows.h — a table of fixed-size rows (a VEC's v, len, cap) kept in
 * pages of its own once it is large, so that rows can change buffers by
 * moving pages rather than bytes.
 *
 * A large table (ML_PAGEROWS_MIN bytes or more) is an anonymous mapping:
 * growing it is mremap (no byte copied, no page written), and appending
 * one such table to another (ml_pagerows_append: the two halves of a split
 * file) moves the second's pages behind the first's rows, so that rows
 * written once, by the thread that read them, are not written again into
 * fresh pages (a page fault per 4 KiB) where the join puts them.  A small
 * table is plain heap memory.  Which one a table is follows from its
 * capacity alone, so the owner keeps no flag: free it with
 * ml_pagerows_free(), grow it only with ml_pagerows_reserve(), never with
 * VEC_RESERVE or free().  Linux (mremap).
 */
#ifndef ML_PAGEROWS_H
#define ML_PAGEROWS_H

#include <stddef.h>

/* Tables from this size (bytes of capacity) on are in pages of their own. */
#define ML_PAGEROWS_MIN (256 * 1024)

/* Room for at least n rows of elem bytes (capacity doubling as
 * VEC_RESERVE's), the first len of them kept. */
void ml_pagerows_reserve(void **v, size_t len, size_t *cap, size_t n, size_t elem);
void ml_pagerows_free(void *v, size_t cap, size_t elem);
/* Gives unused capacity back (after a table shrank to len rows), as VEC_SHRINK. */
void ml_pagerows_shrink(void **v, size_t len, size_t *cap, size_t elem);
/* Appends src's rows to dst's and leaves src empty (freed): by moving src's
 * pages where both tables are in pages and src's rows fill a few, else by
 * copying (dst growing as it must); where src has more rows than dst and
 * room for both, dst's rows are copied in front of them instead.  Rows
 * [old dst len, new dst len) are src's, in order. */
void ml_pagerows_append(void **dv, size_t *dlen, size_t *dcap, void **sv, size_t *slen, size_t *scap, size_t elem);

/* The same for a VEC(T) a. */
#define ML_PAGEROWS_RESERVE(a, n) ml_pagerows_reserve((void **)&(a)->v, (a)->len, &(a)->cap, (n), sizeof *(a)->v)
#define ML_PAGEROWS_FREE(a)                                      \
    do {                                                         \
        ml_pagerows_free((a)->v, (a)->cap, sizeof *(a)->v);      \
        (a)->v = NULL;                                           \
        (a)->len = (a)->cap = 0;                                 \
    } while (0)
#define ML_PAGEROWS_SHRINK(a) ml_pagerows_shrink((void **)&(a)->v, (a)->len, &(a)->cap, sizeof *(a)->v)
#define ML_PAGEROWS_APPEND(d, s)                                                                 \
    ml_pagerows_append((void **)&(d)->v, &(d)->len, &(d)->cap, (void **)&(s)->v, &(s)->len, &(s)->cap, \
                       sizeof *(d)->v)
#define ML_PAGEROWS_PUSH(a, x)                                                \
    do {                                                                      \
        if ((a)->len == (a)->cap) ML_PAGEROWS_RESERVE(a, (a)->len + 1);       \
        (a)->v[(a)->len++] = (x);                                             \
    } while (0)

#endif
