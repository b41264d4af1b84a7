/* libFuzzer target: report_lz.c's deflate (the report's encoder for planes
 * of nearly all repeats) on arbitrary bytes, inflated back by zlib's raw
 * inflate: it must give the bytes again.  The first byte chooses how the
 * rest is widened (as is; each byte repeated 1-64 times, which makes runs
 * and long matches; the input again 600 times, which reaches the 32 KB
 * window's edge) and the room given (enough, or a cut that must return 0 or
 * a complete stream).  One state serves every input, as one thread's serves
 * every blob: entries of earlier inputs must never be taken. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report_lz.h"

static ml_lz_state state;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size) return 0;
    unsigned mode = data[0];
    data++, size--;
    size_t n = 0, cap_n = (mode & 3) == 1 ? size * 64 : (mode & 3) == 2 ? size * 600 : size;
    unsigned char *in = malloc(cap_n + 1);
    if ((mode & 3) == 1) {
        for (size_t i = 0; i < size; i++)
            for (unsigned r = 0; r <= (data[i] & 63u); r++) in[n++] = data[i];
    } else if ((mode & 3) == 2) {
        for (unsigned r = 0; r < 600; r++) memcpy(in + n, data, size), n += size;
    } else {
        memcpy(in, data, size), n = size;
    }
    size_t room = n + n / 8 + 1024;
    if (mode & 4) room = (mode >> 3) * (n / 32 + 1) + 8; /* often too little */
    unsigned char *z = malloc(room), *back = malloc(n + 1);
    size_t zn = ml_lz_deflate(&state, z, room, in, n);
    if (!(mode & 4) && !zn) abort(); /* enough room was given */
    if (zn) {
        if (zn > room) abort();
        z_stream s = {0};
        if (inflateInit2(&s, -15) != Z_OK) abort();
        s.next_in = z, s.avail_in = (uInt)zn, s.next_out = back, s.avail_out = (uInt)(n + 1);
        if (inflate(&s, Z_FINISH) != Z_STREAM_END || s.total_out != n || memcmp(back, in, n)) abort();
        inflateEnd(&s);
    }
    free(in), free(z), free(back);
    return 0;
}
