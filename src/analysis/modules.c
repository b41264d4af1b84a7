/* modules.c — the nn.Module tree; see modules.h.
 *
 * One pass over the slices in their sorted order, where a parent always
 * comes before its children: each slice learns its nearest enclosing module
 * and its nearest enclosing op-or-module from its parent's, so no chain is
 * walked twice.  Device time walks the (short) module chain of each
 * launching call. */
#include "modules.h"

#include <stdlib.h>
#include <string.h>

#include "scratch.h"

#define PREFIX "nn.Module: "
#define PREFIX_LEN (sizeof PREFIX - 1)

static const char *const HINT_NO_TRACE = "no time side in this input (a Kineto trace records modules)";
static const char *const HINT_RECORD = "record with torch.profiler.profile(with_stack=True, with_modules=True)";

typedef struct row_key {
    int32_t parent;
    ml_str name;
    int64_t module_id;
} row_key;

typedef struct builder {
    VEC(ml_module_row) rows;
    VEC(row_key) keys;
    uint32_t *slots;        /* row + 1, open addressing */
    size_t mask;
} builder;

static uint64_t key_hash(const row_key *k)
{
    uint64_t h = ((uint64_t)(uint32_t)k->parent << 32 | k->name) * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)k->module_id * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static void rehash(builder *b)
{
    size_t n = b->slots ? (b->mask + 1) * 2 : 64;
    free(b->slots);
    b->slots = ml_calloc(n, sizeof *b->slots);
    b->mask = n - 1;
    for (size_t i = 0; i < b->keys.len; i++) {
        size_t j = key_hash(&b->keys.v[i]) & b->mask;
        while (b->slots[j]) j = (j + 1) & b->mask;
        b->slots[j] = (uint32_t)i + 1;
    }
}

static int32_t row_get(builder *b, const ml_profile *p, int32_t parent, ml_str name, int64_t module_id)
{
    if (!b->slots || (b->keys.len + 1) * 2 > b->mask) rehash(b);
    row_key k = {parent, name, module_id};
    size_t j = key_hash(&k) & b->mask;
    for (; b->slots[j]; j = (j + 1) & b->mask) {
        const row_key *o = &b->keys.v[b->slots[j] - 1];
        if (o->parent == parent && o->name == name && o->module_id == module_id) return (int32_t)b->slots[j] - 1;
    }
    ml_module_row r;
    memset(&r, 0, sizeof r);
    r.name = ml_s(p, name) + PREFIX_LEN;
    r.module_id = module_id;
    r.parent = parent;
    r.depth = parent < 0 ? 0 : b->rows.v[parent].depth + 1;
    VEC_PUSH(&b->rows, r);
    VEC_PUSH(&b->keys, k);
    b->slots[j] = (uint32_t)b->keys.len;
    return (int32_t)b->rows.len - 1;
}

static bool is_module(const ml_profile *p, const ml_slices *s, size_t i)
{
    return s->kind.v[i] == ML_SL_PYTHON && !strncmp(ml_s(p, s->name.v[i]), PREFIX, PREFIX_LEN);
}

/* The nearest op-or-module around a slice: none, a module, an op. */
enum { UP_NONE, UP_MODULE, UP_OP };

static bool is_op(uint8_t kind) { return kind == ML_SL_CPU_OP || kind == ML_SL_USER_ANNOTATION; }

ml_modules *ml_modules_compute(const ml_profile *p)
{
    ml_modules *m = ml_calloc(1, sizeof *m);
    const ml_trace *t = p->trace;
    if (!t) {
        m->hint = HINT_NO_TRACE;
        return m;
    }
    const ml_slices *s = &t->slices;
    size_t n = s->ts.len;
    builder b;
    memset(&b, 0, sizeof b);
    /* row_of[i]: the row of module slice i, or of the nearest module enclosing i (-1: none);
     * down[i]: what the nearest op-or-module at or around slice i is (UP_*), for its children
     * (one byte a slice: what i is is folded in, not kept apart) */
    size_t cap_row_of, cap_down;
    int32_t *row_of = ml_scratch_take(n * sizeof *row_of, &cap_row_of);
    uint8_t *down = ml_scratch_take(n, &cap_down);
    /* whether a name is a module's, found once a name (0 not yet, 1 no, 2 yes) */
    size_t nstr = ml_strpool_count(p->strings);
    uint8_t *mod_name = ml_calloc(nstr ? nstr : 1, 1);
    for (size_t i = 0; i < n; i++) {
        uint32_t q = s->parent.v[i];
        int32_t up = q == ML_NONE32 ? -1 : row_of[q];
        uint8_t up_opmod = q == ML_NONE32 ? UP_NONE : down[q]; /* the nearest op-or-module enclosing i */
        bool module = false;
        if (s->kind.v[i] == ML_SL_PYTHON) {
            ml_str nm = s->name.v[i];
            if (nm >= nstr) module = is_module(p, s, i);
            else {
                if (!mod_name[nm]) mod_name[nm] = is_module(p, s, i) ? 2 : 1;
                module = mod_name[nm] == 2;
            }
        }
        down[i] = module ? UP_MODULE : is_op(s->kind.v[i]) ? UP_OP : up_opmod;
        if (module) {
            uint32_t info = s->info.v[i];
            int64_t id = info != ML_NONE32 && info < t->op_info.len ? ml_op_python_module(t, &t->op_info.v[info]) : -1;
            int32_t r = row_get(&b, p, up, s->name.v[i], id);
            row_of[i] = r;
            b.rows.v[r].occurrences++;
            b.rows.v[r].host_ns += ml_slice_dur(s, i);
        } else {
            row_of[i] = up;
            if (is_op(s->kind.v[i]) && up_opmod == UP_MODULE && up >= 0) b.rows.v[up].operators++;
        }
    }
    /* device time: each GPU work slice adds to every module around its launch */
    ML_FOR_DEVICE_ROWS (t, i) {
        uint8_t k = s->kind.v[i];
        if (k != ML_SL_KERNEL && k != ML_SL_MEMCPY && k != ML_SL_MEMSET) continue;
        uint32_t l = s->launcher.v[i];
        if (l == ML_NONE32) continue;
        for (int32_t r = row_of[l]; r >= 0; r = b.rows.v[r].parent) b.rows.v[r].device_ns += ml_slice_dur(s, i);
    }
    ml_scratch_give(row_of, cap_row_of, n * sizeof *row_of);
    ml_scratch_give(down, cap_down, n);
    free(mod_name);
    free(b.slots);
    VEC_FREE(&b.keys);
    m->rows = b.rows.v;
    m->n = b.rows.len;
    if (!m->n) m->hint = HINT_RECORD;
    return m;
}

void ml_modules_free(ml_modules *m)
{
    if (!m) return;
    free(m->rows);
    free(m);
}
