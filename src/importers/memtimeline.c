/*
 * memtimeline.c — PyTorch memory timelines (torch.profiler's
 * export_memory_timeline) as profiles.
 *
 * Two shapes, told apart by content:
 *   raw        [[t_ns, action, bytes, category], ...]  (.raw.json.gz): action 1
 *              PREEXISTING (t = -1), 2 CREATE, 3 INCREMENT_VERSION (a -bytes row in
 *              the old category, then a +bytes row in the new one), 4 DESTROY
 *              (-bytes); category 0..7 = PARAMETER ... AUTOGRAD_DETAIL, Unknown.
 *   coalesced  [[t_us, ...], [[0, c0, ..., c7], ...]]  (.json/.json.gz): per time,
 *              the running total of each category.
 *
 * How they map onto the model (one device; the files do not say which: the
 * one a token of the file name says, "cpu" or "cuda1", else cuda:0 with a note):
 *   - allocs: raw rows carry no tensor identity, so a release is paired with the
 *     latest open allocation of the same category and size (LIFO); one that
 *     pairs with none releases the latest open allocations of its category,
 *     splitting the last when it takes part of it (the part that stays keeps
 *     its allocation time), as a fall does in coalesced files, which carry
 *     only totals: there each rise of a category becomes one allocation.  Either way each category's live bytes equal the file's
 *     at every time: the per-category curves are exact, the individual rows are
 *     a reconstruction.  Categories are the file's (category_reason IMPORTED).
 *     Memory present at the start (PREEXISTING rows; in coalesced files the
 *     first entry when it repeats the second's time, which is how PyTorch
 *     writes PREEXISTING memory) is allocated before the trace.  What a release
 *     finds nothing open for is memory from before the trace, as in ml_match.
 *   - every time the file has a row or an entry at keeps a point in the curves,
 *     as PyTorch keeps an entry for it even when no total changes: a time with
 *     nothing else to show gets a zero-byte allocation there.
 *   - series: the ALLOCATED curve of the device is the sum over categories,
 *     one point per distinct time (the state after all rows at that time),
 *     after a first point 1 ns before the first row with the memory from
 *     before (when there is any), which may be the peak.
 *
 * Input is checked strictly: integers only, nothing after the top-level
 * array, no file cut short.  `[]` (no rows: what PyTorch writes for a device
 * without memory events) is an empty timeline, with a note.
 */
#include "categories.h"
#include "importer.h"
#include "jsonscan.h"
#include "sortperm.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- sniffing ---------------------------------------------------------- */

static size_t skip_ws(const char *h, size_t i, size_t n)
{
    while (i < n && (h[i] == ' ' || h[i] == '\n' || h[i] == '\r' || h[i] == '\t')) i++;
    return i;
}

int ml_memtimeline_sniff(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    const char *h = (const char *)head;
    size_t i = skip_ws(h, 0, n);
    if (i == n || h[i] != '[') return 0;
    i = skip_ws(h, i + 1, n);
    if (i < n && h[i] == ']' && skip_ws(h, i + 1, n) == n) return 50; /* [] : an empty timeline */
    if (i == n || h[i] != '[') return 0;
    /* The first inner array: numbers only. */
    size_t count = 0;
    i = skip_ws(h, i + 1, n);
    while (i < n && h[i] != ']') {
        if (!(h[i] == '-' || (h[i] >= '0' && h[i] <= '9'))) return 0;
        while (i < n && (h[i] == '-' || h[i] == '+' || h[i] == '.' || h[i] == 'e' || h[i] == 'E' ||
                         (h[i] >= '0' && h[i] <= '9')))
            i++;
        count++;
        i = skip_ws(h, i, n);
        if (i < n && h[i] == ',') i = skip_ws(h, i + 1, n);
    }
    if (i == n) return count >= 5 ? 60 : 0; /* a long list of times cut off by the head */
    i = skip_ws(h, i + 1, n);
    if (i == n) return count == 4 ? 60 : 0;
    if (h[i] == ']') return count == 4 ? 90 : 0; /* one raw row */
    if (h[i] != ',') return 0;
    i = skip_ws(h, i + 1, n);
    if (i == n || h[i] != '[') return i == n && count == 4 ? 60 : 0;
    i = skip_ws(h, i + 1, n);
    if (i == n) return 60;
    if (h[i] == '[' || h[i] == ']') return 95;                      /* [times, [[sizes]...]] */
    if ((h[i] == '-' || (h[i] >= '0' && h[i] <= '9')) && count == 4) return 95; /* raw rows */
    return 0;
}

/* ---- reading ------------------------------------------------------------ */

typedef struct reader {
    js_scanner *js;
    ml_err *e;
} reader;

/* The last token as an integer: PyTorch writes JSON integers only. */
static int token_int(reader *r, js_tok t, int64_t *x)
{
    if (t == JS_ERROR) return ml_fail(r->e, "%s", js_error(r->js));
    size_t len = 0;
    const char *text = t == JS_NUMBER ? js_text(r->js, &len) : NULL;
    size_t k = len && text[0] == '-';
    bool digits = k < len;
    for (; k < len && digits; k++) digits = text[k] >= '0' && text[k] <= '9';
    if (!digits || js_number(r->js, 0, x) < 0) return js_fail(r->js, r->e, "expected an integer in a memory timeline");
    return 0;
}

/* Reads the elements of an array whose '[' was just read, as integers. */
static int read_ints(reader *r, void *vec_)
{
    VEC(int64_t) *v = vec_;
    for (;;) {
        js_tok t = js_next(r->js);
        if (t == JS_ARRAY_END) return 0;
        int64_t x;
        if (token_int(r, t, &x) < 0) return -1;
        VEC_PUSH(v, x);
    }
}

/* After the token that should close the top-level array: nothing may follow,
 * and the file may not have ended early (a cut timeline would show wrong curves). */
static int expect_end(reader *r, js_tok closing)
{
    if (closing == JS_ERROR) return ml_fail(r->e, "%s", js_error(r->js));
    if (closing == JS_END || js_truncated(r->js))
        return js_fail(r->js, r->e, "the file ends inside the memory timeline (truncated?)");
    if (closing != JS_ARRAY_END) return js_fail(r->js, r->e, "expected the end of the memory timeline");
    js_tok t = js_next(r->js);
    if (t == JS_ERROR) return ml_fail(r->e, "%s", js_error(r->js));
    return 0;
}

/* Open allocations per (category, size): LIFO lists through `link`. */
typedef struct open_lists {
    uint64_t *key;
    uint8_t *occupied;          /* slot holds a key (whose list may be empty) */
    uint32_t *head;             /* latest open alloc index + 1, 0 = none */
    size_t mask, used;
    VEC(uint32_t) link;         /* per alloc: the previous open one of its key, + 1 */
} open_lists;

static size_t ol_slot(const open_lists *o, uint64_t key)
{
    uint64_t x = key * 0x9e3779b97f4a7c15ull;
    size_t j = (size_t)(x >> 17) & o->mask;
    while (o->occupied[j] && o->key[j] != key) j = (j + 1) & o->mask;
    return j;
}

static void ol_grow(open_lists *o)
{
    size_t cap = o->mask ? (o->mask + 1) * 2 : 1024;
    uint64_t *ok = o->key;
    uint32_t *oh = o->head;
    uint8_t *oo = o->occupied;
    size_t old = o->mask ? o->mask + 1 : 0;
    o->key = ml_calloc(cap, sizeof *o->key);
    o->head = ml_calloc(cap, sizeof *o->head);
    o->occupied = ml_calloc(cap, sizeof *o->occupied);
    o->mask = cap - 1;
    for (size_t i = 0; i < old; i++)
        if (oo[i]) {
            size_t j = ol_slot(o, ok[i]);
            o->key[j] = ok[i];
            o->head[j] = oh[i];
            o->occupied[j] = 1;
        }
    free(ok);
    free(oh);
    free(oo);
}

static void ol_push(open_lists *o, uint64_t key, uint32_t alloc)
{
    if (!o->mask || (o->used + 1) * 2 > o->mask) ol_grow(o);
    while (o->link.len <= alloc) VEC_PUSH(&o->link, 0);
    size_t j = ol_slot(o, key);
    if (!o->occupied[j]) o->used++;
    o->occupied[j] = 1;
    o->link.v[alloc] = o->head[j];
    o->key[j] = key;
    o->head[j] = alloc + 1;
}

/*
 * Takes an allocation of key off its list to release it at t: the latest one
 * still open that was allocated before t, else the latest one (allocated at
 * t).  At one time PyTorch lists creations before releases, and a release
 * there is nearly always of an older tensor (a new version replacing the old
 * one, INCREMENT_VERSION), not of one made in the same nanosecond.  Entries
 * of allocations already released another way are dropped on the way.
 * ML_NONE32 if none is open.
 */
static uint32_t ol_take(open_lists *o, uint64_t key, const ml_profile *p, int64_t t)
{
    if (!o->mask) return ML_NONE32;
    size_t j = ol_slot(o, key);
    if (!o->occupied[j]) return ML_NONE32; /* the slot keeps its key when emptied: probe runs stay intact */
    const ml_allocs *a = &p->allocs;
    uint32_t *at = &o->head[j], *latest = NULL;
    while (*at) {
        uint32_t i = *at - 1;
        if (a->t_free.v[i] != ML_TIME_END) { /* released already: unlink */
            *at = o->link.v[i];
            continue;
        }
        if (a->t_alloc.v[i] == ML_TIME_NONE || a->t_alloc.v[i] < t) {
            *at = o->link.v[i];
            return i;
        }
        if (!latest) latest = at;
        at = &o->link.v[i];
    }
    if (!latest) return ML_NONE32;
    uint32_t i = *latest - 1;
    *latest = o->link.v[i];
    return i;
}

static void ol_free(open_lists *o)
{
    free(o->key);
    free(o->head);
    free(o->occupied);
    VEC_FREE(&o->link);
}

/* The device a name token of the file's base name says ("cpu", "cuda",
 * "cuda1", "cuda:1"; tokens split at anything but letters, digits and ':'),
 * as *kind and *index; false when no token says. */
static bool device_from_name(const char *path, ml_dev_kind *kind, int *index)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    for (const char *s = b; *s;) {
        size_t n = 0;
        while (s[n] && (isalnum((unsigned char)s[n]) || s[n] == ':')) n++;
        if (n == 3 && !strncasecmp(s, "cpu", 3)) {
            *kind = ML_DEV_CPU, *index = -1;
            return true;
        }
        if (n >= 4 && !strncasecmp(s, "cuda", 4)) {
            size_t i = 4 + (n > 4 && s[4] == ':');
            int v = 0;
            bool digits = i < n;
            for (size_t j = i; j < n && digits; j++) {
                digits = isdigit((unsigned char)s[j]) && v < 100000;
                v = v * 10 + (s[j] - '0');
            }
            if (n == 4 || digits) {
                *kind = ML_DEV_CUDA, *index = n == 4 ? 0 : v;
                return true;
            }
        }
        s += n ? n : 1;
    }
    return false;
}

/* The file names no device (export_memory_timeline(path, device) writes the
 * device's curve only): its file name may say it ("timeline_cpu.json.gz"),
 * else it is shown as cuda:0, export_memory_timeline's default on a machine
 * with CUDA, and a note says so. */
static uint16_t timeline_device(ml_profile *p)
{
    ml_dev_kind kind;
    int index;
    if (device_from_name(p->path ? p->path : "", &kind, &index)) return ml_device_get(p, kind, index);
    ml_note(p, "a PyTorch memory timeline does not name its device: shown as cuda:0, export_memory_timeline's "
               "default where CUDA is; a file name with cpu or cuda1 in it (timeline_cpu.json.gz) names it");
    return ml_device_get(p, ML_DEV_CUDA, 0);
}

static size_t new_alloc(ml_profile *p, uint16_t dev, int64_t t, int64_t size, int cat)
{
    ml_alloc_row r = {
        .t_alloc = t, .t_free = ML_TIME_END, .t_free_req = ML_TIME_END, .size = size,
        .ev_alloc = ML_NONE32, .ev_free = ML_NONE32, .thread = ML_NONE32, .device = dev,
        .category = (uint8_t)cat, .category_reason = ML_REASON_IMPORTED,
        .flags = t == ML_TIME_NONE ? ML_ALLOC_BEFORE_TRACE : 0,
    };
    return ml_alloc_push(p, &r);
}

static void end_alloc(ml_profile *p, size_t i, int64_t t)
{
    p->allocs.t_free.v[i] = p->allocs.t_free_req.v[i] = t;
}

/* Releases `take` bytes of open allocation i at t, less than its size: i keeps
 * `take` bytes and ends at t; the rest lives on as a new row allocated when i
 * was (before the trace, if it was).  Returns the new row. */
static size_t split_alloc(ml_profile *p, size_t i, int64_t take, int64_t t)
{
    ml_allocs *a = &p->allocs;
    size_t b = new_alloc(p, a->device.v[i], a->t_alloc.v[i], a->size.v[i] - take, a->category.v[i]);
    a->size.v[i] = take;
    end_alloc(p, i, t);
    return b;
}

static bool is_open(const ml_profile *p, uint32_t a) { return p->allocs.t_free.v[a] == ML_TIME_END; }

/* Open allocations of a raw timeline: per (size, category) for exact pairs,
 * and per category in creation order for releases that pair with none.  An
 * allocation closed through one list stays in the other until popped. */
typedef struct raw_open {
    open_lists exact;
    VEC(uint32_t) by_cat[ML_CAT__COUNT];
} raw_open;

static uint64_t exact_key(int64_t size, int cat) { return ((uint64_t)size << 4) | (uint64_t)cat; }

static void open_push(raw_open *o, const ml_profile *p, uint32_t a)
{
    int cat = p->allocs.category.v[a];
    ol_push(&o->exact, exact_key(p->allocs.size.v[a], cat), a);
    VEC_PUSH(&o->by_cat[cat], a);
}

/* Releases `size` bytes of category cat at t: the latest open allocation of
 * that size, else the latest open ones of the category (the last one split
 * when only part of it goes), else memory from before the trace. */
static void release(raw_open *o, ml_profile *p, uint16_t dev, int64_t t, int64_t size, int cat)
{
    uint32_t a = ol_take(&o->exact, exact_key(size, cat), p, t);
    if (a != ML_NONE32) {
        end_alloc(p, a, t);
        return;
    }
    if (size == 0) { /* nothing to release: a zero-byte allocation keeps the time as a point */
        end_alloc(p, new_alloc(p, dev, t, 0, cat), t);
        return;
    }
    int64_t left = size;
    while (left > 0 && o->by_cat[cat].len) {
        a = o->by_cat[cat].v[--o->by_cat[cat].len];
        if (!is_open(p, a)) continue;
        int64_t s = p->allocs.size.v[a];
        if (s > left) {
            open_push(o, p, (uint32_t)split_alloc(p, a, left, t));
            left = 0;
        } else {
            end_alloc(p, a, t);
            left -= s;
        }
    }
    if (left > 0) /* more than is open: memory from before the trace */
        end_alloc(p, new_alloc(p, dev, ML_TIME_NONE, left, cat), t);
}

static void raw_open_free(raw_open *o)
{
    ol_free(&o->exact);
    for (int k = 0; k < ML_CAT__COUNT; k++) VEC_FREE(&o->by_cat[k]);
}

/* The ALLOCATED series: the sum of the per-category levels at each distinct time. */
static void total_series(ml_profile *p, uint16_t dev)
{
    for (size_t i = 0; i < p->allocs.t_free.len; i++)
        if (p->allocs.t_free.v[i] == ML_TIME_END) p->allocs.flags.v[i] |= ML_ALLOC_NEVER_FREED;
    ml_category_curves cc;
    if (!ml_category_curves_get(p, dev, &cc)) return;
    ml_series *s = ml_series_get(p, dev, ML_SERIES_ALLOCATED, 0, 0);
    int64_t before = 0;
    for (int k = 0; k < ML_CAT__COUNT; k++) before += cc.initial[k];
    if (before && cc.n && cc.ts[0] > INT64_MIN) /* memory from before: the level just before the first row */
        ml_series_push(s, cc.ts[0] - 1, before);
    for (size_t i = 0; i < cc.n; i++) {
        int64_t v = 0;
        for (int k = 0; k < ML_CAT__COUNT; k++) v += cc.value[k][i];
        ml_series_push(s, cc.ts[i], v);
    }
    ml_category_curves_free(&cc);
}

enum { ACT_PREEXISTING = 1, ACT_CREATE, ACT_INCREMENT_VERSION, ACT_DESTROY };

typedef struct raw_row {
    int64_t t, bytes;
    int8_t action, cat;
} raw_row;

typedef struct raw_rows {
    VEC(raw_row) v;
    int64_t created;        /* the bytes of every row that allocates, summed */
} raw_rows;

/* Checks one [t, action, bytes, category] row and appends it.  A size of
 * 2^62 bytes or more, or allocations that add up to that (whatever is freed
 * in between), cannot be real: an error, so that no running sum can wrap (two
 * rows of 2^62 made a peak of 4096 PiB and 8192 PiB never freed). */
static int add_raw_row(reader *r, raw_rows *rows, const int64_t *q)
{
    int64_t ts = q[0], action = q[1], bytes = q[2];
    if (action < 1 || action > 4) return js_fail(r->js, r->e, "unknown action %lld (1..4)", (long long)action);
    int c = ml_category_from_torch(q[3]);
    if (c < 0) return js_fail(r->js, r->e, "unknown category %lld (0..7)", (long long)q[3]);
    if (ts < -1) return js_fail(r->js, r->e, "time %lld before -1", (long long)ts);
    if (ts >= ML_VALUE_LIMIT) return js_fail(r->js, r->e, "time %lld out of range (2^62 ns or more)", (long long)ts);
    if (!ml_value_ok(bytes)) return js_fail(r->js, r->e, "row %zu: size %lld out of range (2^62 bytes or more cannot be real)", rows->v.len + 1,
                       (long long)bytes);
    if (bytes > 0 && (rows->created += bytes) >= ML_VALUE_LIMIT)
        return js_fail(r->js, r->e, "row %zu: the rows allocate 2^62 bytes or more in all (not a real memory timeline)",
                       rows->v.len + 1);
    if (ts == -1 && bytes < 0) return js_fail(r->js, r->e, "a release at time -1 (before the timeline)");
    raw_row x = {ts, bytes, (int8_t)action, (int8_t)c};
    VEC_PUSH(&rows->v, x);
    return 0;
}

/* Raw rows: `prefix` holds the rows already read (4 numbers each); with
 * `more`, the scanner is inside the top-level array and more rows follow. */
static int import_raw(reader *r, ml_profile *p, const int64_t *prefix, size_t nprefix, bool more)
{
    raw_rows all = {{0}, 0};
    VEC(int64_t) cur = {0};
    int rc = -1;
    for (size_t i = 0; i + 4 <= nprefix; i += 4)
        if (add_raw_row(r, &all, prefix + i) < 0) goto done;
    for (js_tok t; more;) {
        t = js_next(r->js);
        if (t == JS_ARRAY_END || t == JS_END || t == JS_ERROR) {
            if (expect_end(r, t) < 0) goto done;
            break;
        }
        if (t != JS_ARRAY) { js_fail(r->js, r->e, "expected a [t, action, bytes, category] row"); goto done; }
        cur.len = 0;
        if (read_ints(r, &cur) < 0) goto done;
        if (cur.len != 4) { js_fail(r->js, r->e, "a raw memory timeline row has 4 numbers, not %zu", cur.len); goto done; }
        if (add_raw_row(r, &all, cur.v) < 0) goto done;
    }
    /* Rows in time order (stable; PREEXISTING -1 first). */
    int64_t *key = ml_malloc((all.v.len ? all.v.len : 1) * sizeof *key);
    for (size_t i = 0; i < all.v.len; i++) key[i] = all.v.v[i].t;
    uint32_t *perm = ml_sort_perm_i64(key, all.v.len);
    if (perm) ml_permute(all.v.v, sizeof *all.v.v, perm, all.v.len);
    free(perm);
    free(key);
    uint16_t dev = timeline_device(p);
    raw_open o;
    memset(&o, 0, sizeof o);
    for (size_t i = 0; i < all.v.len; i++) {
        const raw_row *x = &all.v.v[i];
        int64_t t = x->t == -1 ? ML_TIME_NONE : x->t;
        if (x->bytes < 0 || (x->bytes == 0 && x->action == ACT_DESTROY)) release(&o, p, dev, t, -x->bytes, x->cat);
        else open_push(&o, p, (uint32_t)new_alloc(p, dev, t, x->bytes, x->cat));
    }
    raw_open_free(&o);
    for (size_t i = 0; i < all.v.len; i++)
        if (all.v.v[i].t >= 0) {
            p->time_is_absolute = all.v.v[i].t > 100000000000000000LL; /* after 1973 in ns: epoch times */
            break;
        }
    total_series(p, dev);
    rc = 0;
done:
    VEC_FREE(&all.v);
    VEC_FREE(&cur);
    return rc;
}

/* Coalesced: times (µs) are read, and `prefix` entries of sizes (9 numbers
 * each); with `more`, further entries follow inside the sizes list. */
static int import_coalesced(reader *r, ml_profile *p, const int64_t *times, size_t ntimes,
                            const int64_t *prefix, size_t nprefix, bool more)
{
    VEC(int64_t) sizes = {0}; /* 9 per time */
    for (size_t i = 0; i < nprefix; i++) VEC_PUSH(&sizes, prefix[i]);
    while (more) {
        js_tok t = js_next(r->js);
        if (t == JS_ARRAY_END) break;
        if (t == JS_ERROR) { ml_fail(r->e, "%s", js_error(r->js)); goto fail; }
        if (t != JS_ARRAY) { js_fail(r->js, r->e, "expected a list of 9 running totals"); goto fail; }
        size_t before = sizes.len;
        if (read_ints(r, &sizes) < 0) goto fail;
        if (sizes.len - before != 9) {
            js_fail(r->js, r->e, "a memory timeline entry has 9 totals, not %zu", sizes.len - before);
            goto fail;
        }
    }
    if (expect_end(r, js_next(r->js)) < 0) goto fail;
    if (sizes.len / 9 != ntimes) {
        js_fail(r->js, r->e, "%zu times but %zu entries of sizes", ntimes, sizes.len / 9);
        goto fail;
    }
    /* PyTorch writes PREEXISTING memory as a first entry at the smallest time,
     * which repeats the next one's, or at -1 when there is nothing else. */
    bool pre = ntimes >= 2 ? times[0] == times[1] : ntimes == 1 && times[0] == -1;
    for (size_t i = pre && ntimes == 1; i < ntimes; i++) {
        if (times[i] < 0 || times[i] > INT64_MAX / 1000) {
            js_fail(r->js, r->e, "time %lld out of range", (long long)times[i]);
            goto fail;
        }
        if (i && times[i] < times[i - 1]) { js_fail(r->js, r->e, "times go backwards at entry %zu", i); goto fail; }
        int64_t sum = 0; /* each below 2^62, and so their sum (the ALLOCATED curve) */
        for (int k = 1; k < 9; k++) {
            if (sizes.v[i * 9 + k] < 0 || sizes.v[i * 9 + k] >= ML_VALUE_LIMIT || (sum += sizes.v[i * 9 + k]) >= ML_VALUE_LIMIT) {
                js_fail(r->js, r->e, "entry %zu: total %lld out of range (the totals reach 2^62 bytes or more)", i,
                        (long long)sizes.v[i * 9 + k]);
                goto fail;
            }
        }
    }
    uint16_t dev = timeline_device(p);
    VEC(uint32_t) open[8];
    memset(open, 0, sizeof open);
    int64_t level[8] = {0};
    for (size_t i = 0; i < ntimes; i++) {
        int64_t ts = pre && i == 0 ? ML_TIME_NONE : times[i] * 1000;
        bool changed = false;
        for (int k = 0; k < 8; k++) changed |= sizes.v[i * 9 + k + 1] != level[k];
        if (!changed) { /* an entry where no total changes still marks a time (see the top) */
            size_t a = new_alloc(p, dev, ts, 0, ML_CAT_UNKNOWN);
            if (ts != ML_TIME_NONE) end_alloc(p, a, ts);
        }
        for (int k = 0; k < 8; k++) {
            int64_t want = sizes.v[i * 9 + k + 1], d = want - level[k];
            int cat = ml_category_from_torch(k);
            level[k] = want;
            if (d > 0) {
                size_t a = new_alloc(p, dev, ts, d, cat);
                VEC_PUSH(&open[k], (uint32_t)a);
            }
            /* A fall releases the latest allocations; totals are never negative, so
             * there is always enough open. */
            while (d < 0 && open[k].len) {
                uint32_t a = open[k].v[--open[k].len];
                int64_t s = p->allocs.size.v[a];
                if (s > -d) { /* falls by part of it: the rest lives on */
                    VEC_PUSH(&open[k], (uint32_t)split_alloc(p, a, -d, ts));
                    d = 0;
                } else {
                    end_alloc(p, a, ts);
                    d += s;
                }
            }
        }
    }
    for (int k = 0; k < 8; k++) VEC_FREE(&open[k]);
    if (ntimes) p->time_is_absolute = times[ntimes - 1] > 100000000000000LL; /* epoch µs */
    total_series(p, dev);
    VEC_FREE(&sizes);
    return 0;
fail:
    VEC_FREE(&sizes);
    return -1;
}

int ml_memtimeline_import(ml_source *src, ml_profile *p, const ml_keep *keep, ml_err *e)
{
    p->caps.memory_record = true;
    p->caps.memory_first = true;
    reader r = {js_open(src), e};
    VEC(int64_t) first = {0};
    VEC(int64_t) second = {0};
    int rc = -1;
    js_tok t = js_next(r.js);
    if (t == JS_ERROR) { ml_fail(e, "%s", js_error(r.js)); goto done; }
    if (t != JS_ARRAY) { js_fail(r.js, e, "a memory timeline is a JSON array"); goto done; }
    t = js_next(r.js);
    if (t == JS_ERROR) { ml_fail(e, "%s", js_error(r.js)); goto done; }
    if (t == JS_ARRAY_END || t == JS_END) { /* [] : an empty raw timeline, nothing to show */
        if (expect_end(&r, t) < 0) goto done;
        js_fail_at(r.js, e, 0, "no events: the memory timeline is empty (nothing was recorded for its device)");
        goto done;
    }
    if (t != JS_ARRAY) { js_fail(r.js, e, "expected [times, sizes] or [t, action, bytes, category] rows"); goto done; }
    if (read_ints(&r, &first) < 0) goto done;
    t = js_next(r.js);
    if (t == JS_ERROR) { ml_fail(e, "%s", js_error(r.js)); goto done; }
    if (t == JS_ARRAY_END || t == JS_END) { /* a single element: one raw row */
        if (first.len != 4) { js_fail(r.js, e, "a raw memory timeline row has 4 numbers, not %zu", first.len); goto done; }
        if (expect_end(&r, t) < 0) goto done;
        rc = import_raw(&r, p, first.v, 4, false);
        goto done;
    }
    if (t != JS_ARRAY) { js_fail(r.js, e, "expected [times, sizes] or [t, action, bytes, category] rows"); goto done; }
    /* The second element tells: a list of lists (sizes), or a row of numbers. */
    t = js_next(r.js);
    if (t == JS_ERROR) { ml_fail(e, "%s", js_error(r.js)); goto done; }
    if (t == JS_ARRAY_END) { /* [times, []] */
        rc = import_coalesced(&r, p, first.v, first.len, NULL, 0, false);
    } else if (t == JS_ARRAY) { /* the '[' of the first sizes entry */
        if (read_ints(&r, &second) < 0) goto done;
        if (second.len != 9) { js_fail(r.js, e, "a memory timeline entry has 9 totals, not %zu", second.len); goto done; }
        rc = import_coalesced(&r, p, first.v, first.len, second.v, 9, true);
    } else if (t == JS_NUMBER) { /* the second raw row */
        int64_t x;
        if (token_int(&r, t, &x) < 0) goto done;
        if (first.len != 4) { js_fail(r.js, e, "a raw memory timeline row has 4 numbers, not %zu", first.len); goto done; }
        VEC_PUSH(&first, x);
        size_t before = first.len;
        if (read_ints(&r, &first) < 0) goto done;
        if (first.len - before != 3) { js_fail(r.js, e, "a raw memory timeline row has 4 numbers, not %zu", first.len - before + 1); goto done; }
        rc = import_raw(&r, p, first.v, 8, true);
    } else {
        js_fail(r.js, e, "expected [times, sizes] or [t, action, bytes, category] rows");
    }
done:
    VEC_FREE(&first);
    VEC_FREE(&second);
    js_close(r.js);
    if (rc == 0) ml_profile_finish_keep(p, keep);
    return rc;
}
