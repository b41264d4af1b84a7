/*
 * export.h — `memlens export INPUT -o FILE`: the allocations and their
 * categories in other tools' formats, chosen by FILE's extension:
 *
 *   .raw.json.gz, .raw.json  PyTorch memory timeline, raw: [[t_ns, action, bytes, category], ...]
 *                            (action 1 PREEXISTING, 2 CREATE, 4 DESTROY; category 0..7 in
 *                            PyTorch's order, PARAMETER_OR_STATE written as 7 = Unknown)
 *   .timeline.json[.gz]      PyTorch memory timeline: [times_us, sizes], sizes[i] = 9 running
 *                            totals (index 0 unused, then the 8 categories), coalesced per µs
 *                            exactly as torch.profiler's export_memory_timeline does
 *   .trace.json[.gz]         Chrome/Perfetto trace (chrome_json.h): the slices, and per device
 *                            the counters allocated, reserved and bytes by category on the
 *                            slices' clock (absolute µs), with the allocator events as Kineto
 *                            writes them, so that memlens reads the file back
 *   .json, .json.gz          ambiguous (export_memory_timeline("x.json") and
 *                            export_chrome_trace("x.json") both write it): --format says which
 *   .html                    what torch.profiler's export_memory_timeline writes for .html:
 *                            the stacked category plot of one device (the .json timeline),
 *                            with the maximum allocated and reserved, as a self-contained
 *                            page (inline SVG; export_html.c)
 *   .csv                     one row per allocation: rank, device, addr, category, reason,
 *                            op, top-level op, stack top (the user frame, as summary --by
 *                            frame picks it), alloc/free time (ns), size
 *
 * The PyTorch formats hold one device: --device ID (default: the first
 * accelerator with memory) of one rank (--rank N when the input has
 * several); with --device the others hold only that device.  A device whose
 * memory events carry no addresses (old traces: no allocations) is written
 * as one Unknown curve, the running sum of the events' bytes; a CSV of no
 * allocations at all is refused.  The file is written whole or not at all
 * (outfile.h).
 */
#ifndef ML_EXPORT_H
#define ML_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "importer.h"

typedef enum { ML_EXPORT_RAW, ML_EXPORT_TIMELINE, ML_EXPORT_TRACE, ML_EXPORT_CSV, ML_EXPORT_HTML } ml_export_kind;

/* The format for a file name by its extension, ML_EXPORT_AMBIGUOUS (.json,
 * .json.gz), or -1. */
#define ML_EXPORT_AMBIGUOUS (-2)
int ml_export_kind_for(const char *path);
/* The format --format names: timeline, raw, trace, csv, html, or an
 * extension without its dot (trace.json.gz); -1 if none. */
int ml_export_kind_named(const char *format);

/* A time in ns as PyTorch's memory timeline writes it in µs: int(t / 1000)
 * with Python's float division, which rounds before it truncates. */
int64_t ml_torch_us(int64_t t_ns);

/* The PyTorch memory timeline of a device, coalesced as the .json export
 * writes it: n times (µs) and 9 totals per time (index 0 unused, then the 8
 * categories in PyTorch's order).  Free both arrays. */
size_t ml_export_timeline(const ml_profile *p, int device, int64_t **times_us, int64_t **sizes);
/* The .html export of one device (export_html.c). */
int ml_export_html(FILE *f, const ml_profile *p, int device);

/* Writes one device of one profile in a PyTorch format (RAW, TIMELINE or HTML). */
int ml_export_torch(FILE *f, const ml_profile *p, int device, ml_export_kind kind);
/* Writes every device of every profile (TRACE or CSV), or with device
 * non-NULL only the devices of that id (in every profile). */
int ml_export_all(FILE *f, const ml_profiles *ps, ml_export_kind kind, const char *device);

#endif
