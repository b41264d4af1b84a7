/*
 * mapview.h — a file's bytes in memory for a reader that parses in place.
 *
 * Reading a gigabyte through read(2) copies it once more, on the reader's
 * thread (0.17 s of kernel time for a 1.1 GB snapshot here), and mapping it
 * instead moves that cost to page faults, still on the reader's thread.  A
 * view maps the file and lets a helper thread, the pager, fault the pages in
 * a few MB ahead of the reader and unmap them behind it: the reader's thread
 * only parses, and no more than a window of the file is ever resident (peak
 * RSS counts mapped file pages).  The reader says how far it got with
 * ml_mapview_advance(), every MB or so.
 *
 * A view over memory (tests, fuzzers) has no pager.  Like any mapping, a view
 * of a file that another process truncates while it is read would fault:
 * memlens reads profiler output that is written before it is opened.
 */
#ifndef ML_MAPVIEW_H
#define ML_MAPVIEW_H

#include <stddef.h>
#include <stdint.h>

typedef struct ml_mapview ml_mapview;

/* Bytes [offset, size) of the regular file open as fd (the view does not
 * close fd), or NULL if they cannot be mapped (then read them instead). */
ml_mapview *ml_mapview_open_fd(int fd, uint64_t offset, uint64_t size);
/* A view of n bytes of memory that outlive it. */
ml_mapview *ml_mapview_of_memory(const void *bytes, size_t n);

const unsigned char *ml_mapview_bytes(const ml_mapview *v);
size_t ml_mapview_len(const ml_mapview *v);
/* The reader is done with bytes [0, upto): they may be unmapped, and the
 * pager pages ahead of upto.  Cheap enough to call once per MB. */
void ml_mapview_advance(ml_mapview *v, size_t upto);
void ml_mapview_close(ml_mapview *v);

#endif
