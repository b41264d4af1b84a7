/*
 * bytesize.h — a number of bytes as people read it ("12.76 GiB", "512 B"),
 * here in common/ so that importers' notes read like the rest of the output
 * (output/format.h, which layers above the importers, includes it).
 */
#ifndef ML_BYTESIZE_H
#define ML_BYTESIZE_H

#include <stddef.h>
#include <stdint.h>

/* "6.17 GiB", "512 B", "-1.50 MiB": binary units up to PiB, two decimals. */
char *ml_fmt_bytes(int64_t bytes, char *buf, size_t cap);

#endif
