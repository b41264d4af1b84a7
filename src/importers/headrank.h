/*
 * headrank.h — the rank a Kineto trace names itself, read from the head of
 * its file without parsing the rest: `memlens serve DIR` lists a job's ranks
 * by their own numbers before it imports them (the import takes seconds a
 * rank; the head is the first kilobytes).
 */
#ifndef ML_HEADRANK_H
#define ML_HEADRANK_H

#include <stdbool.h>
#include <stddef.h>

/* Scans head[0..n) (the first bytes of a file, maybe cut anywhere) for the
 * top-level "distributedInfo" object of a Kineto trace and its own "rank"
 * and "world_size" keys (those of the object itself, not of pg_config's
 * objects inside it).  true with *rank (and *world, -1 where absent) when
 * a whole non-negative integer rank was found; false otherwise (no such
 * object in the head, a rank that is not an integer, cut before it). */
bool ml_head_rank(const char *head, size_t n, int *rank, int *world);

/* The same for a file: reads its first 64 KiB (of a gzip file, the first
 * 64 KiB it decodes to; one that cannot be read answers false). */
bool ml_head_rank_file(const char *path, int *rank, int *world);
/* The same, telling "none" from "cannot tell": 1 with *rank and *world as
 * above; 0 when the file names no rank (a file short enough to be read
 * whole, ML_HEAD_RANK_BYTES once decoded, with no distributedInfo rank in
 * it); -1 when its head cannot say (longer, unreadable, a corrupt or cut
 * gzip stream, a rank that is not a whole number).  A gzip file is judged
 * by the bytes it decodes to, so that .gz ranks are told from the start
 * too.  serve uses it to know from the start that inputs are no job. */
#define ML_HEAD_RANK_BYTES (64 * 1024)
int ml_head_rank_file_known(const char *path, int *rank, int *world);

#endif
