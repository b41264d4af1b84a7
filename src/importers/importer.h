/*
 * importer.h — from inputs to profiles.
 *
 * An importer knows one producer's format and fills an ml_profile.  The
 * loader (load.c) opens each input, detects its format by content, and calls
 * the matching importer; a directory is walked and each profile found in it
 * becomes one rank.
 *
 * To add a format: write importers/NAME.c with a sniff and an import function,
 * declare them here, and add one row to the table in load.c.
 */
#ifndef ML_IMPORTER_H
#define ML_IMPORTER_H

#include "err.h"
#include "needs.h"
#include "profile.h"
#include "source.h"

/* sniff: given the first decoded bytes of a file (up to 4 KiB) and its path,
 * returns how sure it is that the file is its format, 0 (no) .. 100 (certain). */
typedef int (*ml_sniff_fn)(const char *path, const unsigned char *head, size_t n);
/* import: reads the whole source into p (already created, path and format
 * set; p->trace created when the command reads the time side), keeping what
 * keep asks (model/keep.h; NULL: everything), and finishes it
 * (ml_profile_finish).  Errors name the file and the position. */
typedef int (*ml_import_fn)(ml_source *src, ml_profile *p, const ml_keep *keep, ml_err *e);

typedef struct ml_importer {
    const char *format;          /* "kineto", "torch-snapshot", ... (the --json "format") */
    ml_sniff_fn sniff;
    ml_import_fn import;
} ml_importer;

/* The importers (one file each). */
int ml_kineto_sniff(const char *path, const unsigned char *head, size_t n);
/* Whether head could begin a Kineto trace at all (a JSON object or array):
 * the loader tries the Kineto importer on such a file when no sniffer
 * recognised it, since a trace's first 4 KiB may hold no telling key. */
bool ml_kineto_may_be(const unsigned char *head, size_t n);
int ml_kineto_import(ml_source *src, ml_profile *p, const ml_keep *keep, ml_err *e);
/* Reads the events of a Chrome-format trace into p->trace only (no ops, no
 * memory events, no ml_profile_finish): for other producers' trace files
 * (Ascend trace_view.json).  Does nothing when p->trace is NULL. */
int ml_kineto_trace_add(ml_source *src, ml_profile *p, ml_err *e);
int ml_snapshot_sniff(const char *path, const unsigned char *head, size_t n);
int ml_snapshot_import(ml_source *src, ml_profile *p, const ml_keep *keep, ml_err *e);
/* Ascend (importers/ascend.h): one CSV file, or one SQLite export. */
int ml_ascend_text_sniff(const char *path, const unsigned char *head, size_t n);
int ml_ascend_text_import(ml_source *src, ml_profile *p, const ml_keep *keep, ml_err *e);
int ml_ascend_db_sniff(const char *path, const unsigned char *head, size_t n);
int ml_ascend_db_import(ml_source *src, ml_profile *p, const ml_keep *keep, ml_err *e);
/* An Ascend time file alone: trace_view.json (any vintage), kernel_details.csv,
 * step_trace_time.csv (ascend_time.c). */
int ml_ascend_time_sniff(const char *path, const unsigned char *head, size_t n);
int ml_ascend_time_import(ml_source *src, ml_profile *p, const ml_keep *keep, ml_err *e);
/* What an input memlens cannot read is, when it is a known kind of page
 * (PyTorch's .html memory timeline ...): one sentence, or NULL (memtimeline_html.c). */
const char *ml_html_page_what(const unsigned char *head, size_t n);
/* Whether the regular file at path is such a page (not a format memlens
 * reads); then e holds the error loading it gives ("PATH: byte 0: ...").
 * Anything else, unreadable files included, is left to the loader: 0. */
int ml_html_page_refuse(const char *path, ml_err *e);
/* PyTorch memory timelines (export_memory_timeline .json/.json.gz/.raw.json.gz). */
int ml_memtimeline_sniff(const char *path, const unsigned char *head, size_t n);
int ml_memtimeline_import(ml_source *src, ml_profile *p, const ml_keep *keep, ml_err *e);

/* An importer's answer when the lean storage it tried (ml_keep_lean) cannot
 * hold the input (a snapshot whose trace is out of time order): the loader
 * reads it again, into a fresh profile, without lean storage. */
#define ML_IMPORT_AGAIN (-2)

/* A set of loaded profiles (ranks), in rank order after ml_load. */
typedef struct ml_profiles {
    ml_needs needs;              /* what the command reads (needs.h): set before ml_load */
    ml_input_limits limits;      /* applied to each file ml_load_file opens (source.h); zeros: none */
    VEC(ml_profile *) items;
    VEC(char *) skipped;         /* "path: why" for inputs a directory walk skipped */
} ml_profiles;

/* A skipped entry is "path: why", and the why never contains ": ", so the
 * path is what comes before the last ": ".  A path that exists but could not
 * be read (permission denied, I/O error) has a why that starts with
 * ML_SKIP_UNREADABLE, e.g. "cannot read (Permission denied)": outputs warn
 * about those, since a rank may be missing because of them. */
#define ML_SKIP_UNREADABLE "cannot read"
size_t ml_skipped_path_len(const char *entry);
bool ml_skipped_unreadable(const char *entry);

/* Loads one input (file, "-", or directory) and appends its profiles.  Each
 * profile is imported, finished and prepared (ml_prepare) before it is added. */
int ml_load(const char *path, ml_profiles *out, ml_err *e);
/* What every loaded profile goes through after its import, as the command
 * needs: attribution of memory to operators (ml_attribute, unless
 * needs->no_op_memory), then categories (ml_categorize, which reads the
 * top-level ops, unless needs->no_categories).  One step for files and for
 * directories (load.c, walk.c), so that both give the same profile. */
void ml_prepare(ml_profile *p, const ml_needs *needs);
/* Loads one file (or "-"), detecting its format by content. */
int ml_load_file(const char *path, ml_profiles *out, ml_err *e);
/* The importer most sure that head (the first bytes of path) is its format, or NULL. */
const ml_importer *ml_detect_format(const char *path, const unsigned char *head, size_t n);
/* Loads every profile found below dir (walk.c): Ascend `*_ascend_pt` folders,
 * and files any importer recognises.  Each becomes one rank. */
int ml_load_dir(const char *dir, ml_profiles *out, ml_err *e);
/* What ml_load_dir would load, without loading it: the path of each unit
 * (a file or an Ascend `*_ascend_pt` folder; ml_load(path) loads one) and
 * what it passed over.  For `memlens serve`, which imports ranks lazily. */
typedef struct ml_units {
    VEC(char *) paths;
    VEC(char *) skipped;         /* "path: why" */
} ml_units;
int ml_list_dir(const char *dir, ml_units *out, ml_err *e);
void ml_units_free(ml_units *u);
/* Loads one unit of a listing as the walk would have: a file, or an Ascend
 * folder (listed: found below a directory, so that an unreadable one is
 * skipped, and one without memory data yields no profile and a skipped
 * entry).  A path that was not listed is loaded as ml_load() does. */
int ml_load_unit(const char *path, bool listed, ml_profiles *out, ml_err *e);
/* The error of a directory walk that found no profile, listing what it
 * skipped (n entries, "path: why"). */
int ml_no_profiles_error(const char *dir, char *const *skipped, size_t n, ml_err *e);
/* Keeps only the profiles of that rank (--rank); fails naming the ranks loaded. */
int ml_profiles_keep_rank(ml_profiles *ps, int rank, ml_err *e);
/* Its error when no profile has that rank: loaded[0..n) the ranks there
 * are, in rank order. */
int ml_rank_missing_error(int rank, const int *loaded, size_t n, ml_err *e);
/* Sorts by rank (unknown last, then by path). */
void ml_profiles_sort(ml_profiles *ps);
void ml_profiles_free(ml_profiles *ps);

#endif
