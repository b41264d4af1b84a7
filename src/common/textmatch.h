/*
 * textmatch.h — whether a text contains another, ignoring ASCII case: the
 * page's search boxes (the table's filter, the Trace view's search) match
 * names this way, in the server as in web/src.
 */
#ifndef ML_TEXTMATCH_H
#define ML_TEXTMATCH_H

#include <ctype.h>
#include <stddef.h>

/* Whether hay contains needle[0..nlen) (ASCII case ignored); true for nlen 0. */
static inline int ml_contains_ci(const char *hay, const char *needle, size_t nlen)
{
    if (!nlen) return 1;
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < nlen && hay[k] && tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k])) k++;
        if (k == nlen) return 1;
    }
    return 0;
}

#endif
