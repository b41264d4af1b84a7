/*
 * kineto_split.c — a big plain Kineto trace read as two halves on two
 * threads (kt_import_in_two_halves, called by ml_kineto_import for files of
 * KT_SPLIT_MIN_BYTES or more).  The file is split at an event boundary
 * guessed near the middle ("}," then "{").  A second thread parses the
 * second half as if inside the event list; this thread parses the first
 * half.  The guess was right only if the first half ends exactly where the
 * next event of the list is due: then the second half's profile is
 * appended, and the result is the same as reading the file in one pass.
 * Otherwise the caller reads everything again in one pass.
 */
#include "kineto_int.h"
#include "phase.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPLIT_WINDOW (1 << 20)

typedef struct half {
    kineto k;
    ml_profile *p;
    ml_err err;
    const char *stack;   /* containers open at the split: "oa" ({"traceEvents": [...) or "a" ([...) */
    int rc;
} half;

/* Finds where to split: the offset just after a ',' that separates two
 * events near the middle, and the containers open there.  0 or -1. */
static int find_split(const char *path, uint64_t size, uint64_t *at, const char **stack)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char head[256], *win = ml_malloc(SPLIT_WINDOW);
    ssize_t hn = pread(fd, head, sizeof head, 0);
    uint64_t mid = size / 2;
    ssize_t wn = pread(fd, win, SPLIT_WINDOW, (off_t)mid);
    close(fd);
    int rc = -1;
    size_t i = 0;
    while (hn > 0 && i < (size_t)hn && strchr(" \t\r\n", head[i])) i++;
    if (hn > 0 && i < (size_t)hn && (head[i] == '{' || head[i] == '[')) {
        *stack = head[i] == '{' ? "oa" : "a";
        for (ssize_t j = 0; wn > 0 && j + 2 < wn; j++) {
            if (win[j] != '}' || win[j + 1] != ',') continue;
            ssize_t q = j + 2;
            while (q < wn && strchr(" \t\r\n", win[q])) q++;
            if (q < wn && win[q] == '{') {
                *at = mid + (uint64_t)j + 2;
                rc = 0;
                break;
            }
        }
    }
    free(win);
    return rc;
}

static void *read_second_half(void *arg)
{
    half *h = arg;
    kineto *k = &h->k;
    h->rc = kt_read_events(k);
    if (h->rc == 0 && !js_truncated(k->js) && h->stack[0] == 'o') h->rc = kt_read_top_object(k);
    if (h->rc == 0 && !js_truncated(k->js) && js_next(k->js) == JS_ERROR)
        h->rc = ml_fail(k->e, "%s", js_error(k->js));
    return NULL;
}

/* Empties p (keeping its path, format, capabilities and whether it has a
 * time side), for a fresh start. */
static void profile_reset(ml_profile *p)
{
    ml_profile *fresh = ml_profile_new(p->path, p->format);
    bool trace = p->trace != NULL;
    ml_caps caps = p->caps;
    ml_profile tmp = *p;
    *p = *fresh;
    *fresh = tmp;
    ml_profile_free(fresh);
    if (trace) p->trace = ml_trace_new();
    p->caps = caps;
}

int kt_import_in_two_halves(const char *path, uint64_t size, ml_profile *p, const ml_keep *keep, ml_err *e)
{
    uint64_t at;
    const char *stack;
    if (find_split(path, size, &at, &stack) < 0) return KT_SPLIT_RETRY;
    ml_source *first_src, *second_src;
    if (ml_source_open_range(path, 0, at, &first_src, e) < 0) return -1;
    if (ml_source_open_range(path, at, size - at, &second_src, e) < 0) {
        ml_source_close(first_src);
        return -1;
    }
    half second;
    memset(&second, 0, sizeof second);
    second.p = ml_profile_new(path, p->format);
    if (p->trace) {
        second.p->trace = ml_trace_new();
        /* the first half's for the whole file: the sort gathers both
         * halves' rows into the columns this half leaves (ml_bufpool), so
         * that they hold every row with only the pages past its own fresh;
         * the second half's as large (its pages are virtual until used), so
         * that the columns it leaves can take the finish's new ones (parent,
         * depth, launcher, flows) with its rows' pages already in */
        ml_slices_reserve(second.p->trace, size / 400);
        ml_slices_reserve(p->trace, size / 400);
    }
    /* the memory side's tables likewise (the first half's for the whole
     * file: the second's rows are appended with no regrowth) */
    ml_profile_reserve(second.p, (size - at) / 400, (size - at) / 400);
    ml_profile_reserve(p, size / 400, size / 400);
    second.stack = stack;
    kt_init(&second.k, js_open_inside(second_src, at, stack), second.p, keep, &second.err);
    pthread_t thread;
    bool threaded = pthread_create(&thread, NULL, read_second_half, &second) == 0;

    kineto first;
    kt_init(&first, js_open(first_src), p, keep, e);
    int rc = kt_read_document(&first);
    ml_phase("first half parsed");
    if (threaded) pthread_join(thread, NULL);
    ml_phase("parse two halves");

    /* An "E" in the second half may close a "B" of the first; and the halves'
     * sizes must add up to less than the limit, or the error found by one
     * pass names the event where they reach it. */
    bool split_ok = threaded && rc == 0 && first.events_open && js_ended_after_comma(first.js, stack) &&
                    !(first.open.len && second.k.orphan_ends) &&
                    (second.rc < 0 || first.bytes_moved + second.k.bytes_moved < ML_VALUE_LIMIT);
    if (split_ok && second.rc < 0) {
        *e = second.err; /* a real error in the second half; its offsets count from the file start */
        rc = -1;
    } else if (split_ok) {
        kineto *k2 = &second.k;
        if (k2->has_times) kt_note_times(&first, k2->min_ts, k2->max_end);
        kt_close_open_ops(k2, first.max_end); /* nothing after the second half can close them */
        ml_profile_append(p, second.p);
        first.unclosed += k2->unclosed;
        first.list_objects += k2->list_objects;
        first.memory_events += k2->memory_events;
        first.memory_without_addr += k2->memory_without_addr;
        first.memory_without_totals += k2->memory_without_totals;
        if (!first.reserved_below && k2->reserved_below) {
            first.reserved_below_off = k2->reserved_below_off;
            memcpy(first.reserved_below_dev, k2->reserved_below_dev, sizeof first.reserved_below_dev);
        }
        first.reserved_below += k2->reserved_below;
        first.oom_events += k2->oom_events;
        first.orphan_ends += k2->orphan_ends;
        first.unclosed_slices += k2->unclosed_slices;
        first.bytes_moved += k2->bytes_moved;
        first.memory_profiled |= k2->memory_profiled;
        if (k2->saw_base_time) {
            first.saw_base_time = true;
            first.base_time_off = k2->base_time_off;
        }
        for (size_t i = 0; i < k2->props.len; i++) {
            device_prop d = k2->props.v[i];
            d.name = ml_intern(p->strings, ml_s(second.p, d.name), ml_strlen(second.p->strings, d.name));
            VEC_PUSH(&first.props, d);
        }
        ml_phase("append second half");
        rc = kt_finish(&first, js_truncated(k2->js));
        ml_phase("kt_finish");
    } else if (rc == 0 || js_input_ended(first.js)) {
        /* The guess was wrong, or the first half failed once its input ran
         * out (perhaps only because of the cut): read it all in one pass. */
        rc = KT_SPLIT_RETRY;
        profile_reset(p);
    }
    kt_free(&first);
    kt_free(&second.k);
    ml_profile_free(second.p);
    ml_source_close(first_src);
    ml_source_close(second_src);
    return rc;
}
