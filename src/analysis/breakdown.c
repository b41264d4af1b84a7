/* breakdown.c — grouping the live set at an instant; see breakdown.h. */
#include "breakdown.h"
#include "categories.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const by_names[] = {"toplevel", "innermost", "stack", "frame", "size", "category"};

int ml_group_by_parse(const char *s)
{
    for (int i = 0; i < (int)(sizeof by_names / sizeof *by_names); i++)
        if (strcmp(s, by_names[i]) == 0) return i;
    return -1;
}

const char *ml_group_by_name(ml_group_by by) { return by_names[by]; }

ml_group_by ml_group_by_default(const ml_profile *p)
{
    const ml_allocs *a = &p->allocs;
    bool stacks = false;
    for (size_t i = 0; i < a->op_top.len; i++) {
        if (a->op_top.v[i]) return ML_BY_TOPLEVEL;
        stacks |= a->stack.v[i] != 0;
    }
    return stacks ? ML_BY_FRAME : ML_BY_TOPLEVEL;
}

static bool is_python_frame(const ml_profile *p, const ml_frame *f)
{
    size_t n = f->file ? ml_strlen(p->strings, f->file) : 0;
    return n >= 3 && memcmp(ml_s(p, f->file) + n - 3, ".py", 3) == 0;
}

/* Library code is not what a user wants to see as "who allocated this". */
static bool is_library_frame(const ml_profile *p, const ml_frame *f)
{
    const char *file = f->file ? ml_s(p, f->file) : ml_s(p, f->name);
    static const char *const markers[] = {"/torch/", "torch/nn/", "torch/_", "/site-packages/", "/dist-packages/",
                                          "<frozen", "<built-in", "/lib/python3", "threading.py", "runpy.py",
                                          "torch/utils/", "torch/autograd/", "torch/optim/optimizer.py"};
    for (size_t i = 0; i < sizeof markers / sizeof *markers; i++)
        if (strstr(file, markers[i])) return true;
    if (is_python_frame(p, f)) return false;
    /* Native frames of the CUDA allocator's own stack capture and of the
     * dispatcher between an operator and the allocator (snapshots): noise. */
    static const char *const native_files[] = {"Register", "VariableType_", "core/boxing", "Redispatch"};
    for (size_t i = 0; f->file && i < sizeof native_files / sizeof *native_files; i++)
        if (strstr(file, native_files[i])) return true;
    static const char *const native[] = {"unwind::unwind", "CapturedTraceback::", "gather_with_cpp",
                                         "CachingAllocator::", "at::detail::", "at::_ops::", "c10::impl::",
                                         "at::TensorIteratorBase::", "at::native::empty", "at::meta::",
                                         "at::(anonymous namespace)::"};
    const char *name = ml_s(p, f->name);
    for (size_t i = 0; i < sizeof native / sizeof *native; i++)
        if (strstr(name, native[i])) return true;
    return false;
}

/* The frames of a stack that a user recognises, innermost first, into
 * out[] (at most cap); returns how many.  Snapshot stacks mix native frames
 * (torch::unwind, at::native::..., .cpp) with Python ones: when a stack has
 * Python frames outside libraries, those; else its innermost Python frame
 * (library code, but Python); else its frames outside libraries; else its
 * innermost frame. */
static size_t user_frames(const ml_profile *p, uint32_t stack, uint32_t *out, size_t cap)
{
    size_t depth = ml_stack_depth(p, stack), n = 0;
    const uint32_t *fr = ml_stack_frames(p, stack);
    if (!depth || !cap) return 0;
    for (size_t i = 0; i < depth && n < cap; i++) {
        const ml_frame *f = &p->frames.v[fr[i]];
        if (is_python_frame(p, f) && !is_library_frame(p, f)) out[n++] = fr[i];
    }
    if (n) return n;
    for (size_t i = 0; i < depth; i++)
        if (is_python_frame(p, &p->frames.v[fr[i]])) { out[0] = fr[i]; return 1; }
    for (size_t i = 0; i < depth && n < cap; i++)
        if (!is_library_frame(p, &p->frames.v[fr[i]])) out[n++] = fr[i];
    if (n) return n;
    out[0] = fr[0];
    return 1;
}

static int frame_text(const ml_profile *p, uint32_t fid, char *buf, size_t cap)
{
    const ml_frame *f = &p->frames.v[fid];
    if (f->file && f->line >= 0) return snprintf(buf, cap, "%s (%s:%d)", ml_s(p, f->name), ml_s(p, f->file), f->line);
    if (f->file) return snprintf(buf, cap, "%s (%s)", ml_s(p, f->name), ml_s(p, f->file));
    return snprintf(buf, cap, "%s", ml_s(p, f->name));
}

/* Frames a --by stack label shows; stacks whose user frames agree this far are one group. */
#define STACK_LABEL_FRAMES 6

/* The user frame of a stack, as PyTorch's MemoryViz takes it: from its
 * Python frames only (outside libraries if it has such, else the innermost
 * Python frame).  A stack without Python frames (the autograd engine's
 * thread, C++ only) has no user frame: "(no Python frame)", naming the
 * autograd node when a frame shows one ("(no Python frame: BmmBackward0)"),
 * never a C++/ATen frame as if it were the user's.  Returns false for those. */
static bool python_user_frame(const ml_profile *p, uint32_t stack, uint32_t *out)
{
    size_t depth = ml_stack_depth(p, stack);
    const uint32_t *fr = ml_stack_frames(p, stack);
    for (size_t i = 0; i < depth; i++) {
        const ml_frame *f = &p->frames.v[fr[i]];
        if (is_python_frame(p, f) && !is_library_frame(p, f)) { *out = fr[i]; return true; }
    }
    for (size_t i = 0; i < depth; i++)
        if (is_python_frame(p, &p->frames.v[fr[i]])) { *out = fr[i]; return true; }
    return false;
}

static void no_python_label(const ml_profile *p, uint32_t stack, char *buf, size_t cap)
{
    size_t depth = ml_stack_depth(p, stack);
    const uint32_t *fr = ml_stack_frames(p, stack);
    static const char gen[] = "torch::autograd::generated::";
    for (size_t i = 0; i < depth; i++) {
        const char *name = ml_s(p, p->frames.v[fr[i]].name), *g = strstr(name, gen);
        if (!g) continue;
        g += sizeof gen - 1;
        const char *end = strstr(g, "::apply");
        if (!end || end - g > 80 || memchr(g, ':', (size_t)(end - g)) || !memmem(g, (size_t)(end - g), "Backward", 8)) continue;
        snprintf(buf, cap, "(no Python frame: %.*s)", (int)(end - g), g);
        return;
    }
    snprintf(buf, cap, "(no Python frame)");
}

void ml_stack_label(const ml_profile *p, uint32_t stack, ml_group_by by, char *buf, size_t cap)
{
    uint32_t fr[STACK_LABEL_FRAMES + 1];
    if (by == ML_BY_FRAME) {
        if (!ml_stack_depth(p, stack)) snprintf(buf, cap, "(no stack recorded)");
        else if (python_user_frame(p, stack, fr)) frame_text(p, fr[0], buf, cap);
        else no_python_label(p, stack, buf, cap);
        return;
    }
    size_t n = user_frames(p, stack, fr, STACK_LABEL_FRAMES + 1);
    if (!n) {
        snprintf(buf, cap, "(no stack recorded)");
        return;
    }
    size_t w = 0;
    for (size_t i = 0; i < n && i < STACK_LABEL_FRAMES && w + 8 < cap; i++) {
        if (i) w += (size_t)snprintf(buf + w, cap - w, " <- ");
        if (w >= cap) break;
        int k = frame_text(p, fr[i], buf + w, cap - w);
        w += k > 0 ? (size_t)k : 0;
    }
    if (n > STACK_LABEL_FRAMES && w + 8 < cap) snprintf(buf + w, cap - w, " <- ...");
}

/* A power of two in the largest binary unit that keeps it whole: "512 KiB". */
static int pow2_text(int log2, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = log2 / 10 > 5 ? 5 : log2 / 10;
    return snprintf(buf, cap, "%lld %s", 1LL << (log2 - 10 * u), units[u]);
}

/* Size class of sizes in [2^k, 2^(k+1)): "[1 MiB, 2 MiB)". */
static void size_class(int log2, char *buf, size_t cap)
{
    char lo[32], hi[32];
    pow2_text(log2, lo, sizeof lo);
    pow2_text(log2 + 1, hi, sizeof hi);
    snprintf(buf, cap, "[%s, %s)", lo, hi);
}

/* Groups are keyed by a 64-bit value (a string id, stack id or size class)
 * in a small open-addressing table. */
typedef struct keyed {
    uint64_t key;
    int64_t bytes, count;
    bool used;
} keyed;

static int by_bytes_desc(const void *x, const void *y)
{
    const ml_group *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    return strcmp(a->label, b->label);
}

static int by_label(const void *x, const void *y)
{
    return strcmp(((const ml_group *)x)->label, ((const ml_group *)y)->label);
}

void ml_breakdown_at(const ml_profile *p, int device, ml_instant at, int64_t total, ml_group_by by,
                     ml_breakdown *out)
{
    memset(out, 0, sizeof *out);
    const ml_allocs *a = &p->allocs;
    size_t cap = 1024, used = 0;
    keyed *tab = ml_calloc(cap, sizeof *tab);
    int64_t before_known = 0;
    bool all = ml_only_device(p, device);
    for (size_t i = 0; i < a->t_alloc.len; i++) {
        if ((!all && a->device.v[i] != device) || !ml_alloc_live_at(p, i, at)) continue;
        int64_t size = a->size.v[i];
        if (a->flags.v[i] & ML_ALLOC_BEFORE_TRACE) {
            before_known += size;
            out->before_count++;
            if (by != ML_BY_CATEGORY) continue; /* categories group memory from before the trace too */
        } else {
            out->traced_bytes += size;
            out->traced_count++;
        }
        uint64_t key;
        switch (by) {
        case ML_BY_TOPLEVEL: key = a->op_top.v[i]; break;
        case ML_BY_INNERMOST: key = a->op.v[i]; break;
        case ML_BY_SIZE: key = size > 0 ? (uint64_t)(63 - __builtin_clzll((unsigned long long)size)) + 1 : 0; break;
        case ML_BY_CATEGORY: key = a->category.v[i]; break;
        default: key = a->stack.v[i]; break;
        }
        size_t j = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
        while (tab[j].used && tab[j].key != key) j = (j + 1) & (cap - 1);
        if (!tab[j].used) {
            tab[j].used = true;
            tab[j].key = key;
            if (++used * 2 > cap) {
                /* grow and reinsert */
                keyed *old = tab;
                size_t oldcap = cap;
                cap *= 2;
                tab = ml_calloc(cap, sizeof *tab);
                for (size_t k = 0; k < oldcap; k++) {
                    if (!old[k].used) continue;
                    size_t q = (size_t)((old[k].key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
                    while (tab[q].used) q = (q + 1) & (cap - 1);
                    tab[q] = old[k];
                }
                free(old);
                j = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
                while (tab[j].key != key || !tab[j].used) j = (j + 1) & (cap - 1);
            }
        }
        tab[j].bytes += size;
        tab[j].count++;
    }
    out->before_bytes = before_known;
    if (total >= 0) {
        int64_t gap = total - out->traced_bytes;
        out->before_bytes = gap > 0 ? gap : 0;
    }
    out->before_grouped = by == ML_BY_CATEGORY;
    out->groups = ml_calloc(used ? used : 1, sizeof *out->groups);
    char label[1024];
    for (size_t k = 0; k < cap; k++) {
        if (!tab[k].used) continue;
        uint64_t key = tab[k].key;
        switch (by) {
        case ML_BY_TOPLEVEL:
        case ML_BY_INNERMOST:
            snprintf(label, sizeof label, "%s", key ? ml_s(p, (ml_str)key) : "(no operator)");
            break;
        case ML_BY_SIZE:
            if (key) size_class((int)key - 1, label, sizeof label);
            else snprintf(label, sizeof label, "0 B");
            break;
        case ML_BY_CATEGORY:
            snprintf(label, sizeof label, "%s", ml_category_name((int)key));
            break;
        default:
            ml_stack_label(p, (uint32_t)key, by, label, sizeof label);
        }
        ml_group *g = &out->groups[out->n++];
        g->label = ml_strdup(label);
        g->bytes = tab[k].bytes;
        g->count = tab[k].count;
    }
    free(tab);
    if (by == ML_BY_CATEGORY && out->before_bytes > before_known) /* the unexplained gap, as ml_categories_at */
        ml_breakdown_add(out, ml_category_name(ML_CAT_PARAMETER_OR_STATE), out->before_bytes - before_known, 0);
    if (by == ML_BY_FRAME || by == ML_BY_STACK) {
        /* Different stacks can share a label (same user frame): merge them. */
        qsort(out->groups, out->n, sizeof *out->groups, by_label);
        size_t w = 0;
        for (size_t i = 0; i < out->n; i++) {
            if (w && strcmp(out->groups[w - 1].label, out->groups[i].label) == 0) {
                out->groups[w - 1].bytes += out->groups[i].bytes;
                out->groups[w - 1].count += out->groups[i].count;
                free(out->groups[i].label);
            } else {
                out->groups[w++] = out->groups[i];
            }
        }
        out->n = w;
    }
    qsort(out->groups, out->n, sizeof *out->groups, by_bytes_desc);
}

void ml_breakdown_add(ml_breakdown *b, const char *label, int64_t bytes, int64_t count)
{
    size_t i = 0;
    while (i < b->n && strcmp(b->groups[i].label, label)) i++;
    if (i == b->n) {
        b->groups = ml_realloc(b->groups, (b->n + 1) * sizeof *b->groups);
        b->groups[b->n++] = (ml_group){ml_strdup(label), 0, 0};
    }
    b->groups[i].bytes += bytes;
    b->groups[i].count += count;
    qsort(b->groups, b->n, sizeof *b->groups, by_bytes_desc);
}

void ml_breakdown_free(ml_breakdown *b)
{
    for (size_t i = 0; i < b->n; i++) free(b->groups[i].label);
    free(b->groups);
    memset(b, 0, sizeof *b);
}
