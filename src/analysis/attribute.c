/* attribute.c — sweep each thread's ops and allocations in time order; see attribute.h. */
#include "attribute.h"
#include "decimal.h"

#include <stdlib.h>
#include <string.h>

uint32_t ml_python_frame(ml_profile *p, ml_str text)
{
    const char *s = ml_s(p, text);
    size_t n = ml_strlen(p->strings, text);
    const char *paren = memchr(s, '(', n);
    const char *close = paren ? memchr(paren, ')', n - (size_t)(paren - s)) : NULL;
    if (paren && close && close + 2 < s + n && close[1] == ':' && close[2] == ' ' && paren > s) {
        int64_t line;
        if (ml_parse_i64(paren + 1, (size_t)(close - paren - 1), &line) == 0) {
            ml_str file = ml_intern(p->strings, s, (size_t)(paren - s));
            ml_str name = ml_intern(p->strings, close + 3, n - (size_t)(close + 3 - s));
            return ml_frame_get(p, name, file, (int32_t)line);
        }
    }
    return ml_frame_get(p, text, 0, -1);
}

/* Sorts idx[] (indices into ops) by (ts asc, dur desc) so that an outer op
 * precedes the inner ops that start at the same instant.  Input is sorted by ts. */
static void order_equal_starts(const ml_ops *ops, uint32_t *idx, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t x = idx[i];
        size_t j = i;
        while (j > 0 && ops->ts.v[idx[j - 1]] == ops->ts.v[x] && ops->dur.v[idx[j - 1]] < ops->dur.v[x]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = x;
    }
}

/* Groups indices 0..n-1 by key (a thread), keeping their order within a group. */
static void bucket_by(const uint32_t *key, size_t n, size_t nkeys, uint32_t **order, uint32_t **start)
{
    uint32_t *st = ml_calloc(nkeys + 2, sizeof *st);
    for (size_t i = 0; i < n; i++)
        if (key[i] < nkeys) st[key[i] + 1]++;
    for (size_t k = 0; k < nkeys; k++) st[k + 1] += st[k];
    uint32_t *o = ml_malloc((n ? n : 1) * sizeof *o), *fill = ml_malloc((nkeys + 1) * sizeof *fill);
    memcpy(fill, st, (nkeys + 1) * sizeof *fill);
    for (size_t i = 0; i < n; i++)
        if (key[i] < nkeys) o[fill[key[i]]++] = (uint32_t)i;
    free(fill);
    *order = o;
    *start = st;
}

void ml_attribute(ml_profile *p)
{
    ml_allocs *a = &p->allocs;
    const ml_ops *ops = &p->ops;
    size_t nthreads = p->thread_pid.len, nallocs = a->t_alloc.len;
    if (!nallocs || !ops->ts.len || !nthreads) return;

    uint32_t *op_order, *op_start, *al_order, *al_start;
    bucket_by(ops->thread.v, ops->ts.len, nthreads, &op_order, &op_start);
    bucket_by(a->thread.v, nallocs, nthreads, &al_order, &al_start);

    VEC(uint32_t) open = {0};       /* ops containing the current time, outermost first */
    VEC(uint32_t) frames = {0};
    /* Frame + 1 of each python op name, parsed once: the stack is rebuilt
     * whenever a python op starts or ends, from frames seen many times. */
    size_t nnames = ml_strpool_count(p->strings);
    uint32_t *frame_of = ml_calloc(nnames ? nnames : 1, sizeof *frame_of);
    for (size_t th = 0; th < nthreads; th++) {
        uint32_t *tops = op_order + op_start[th];
        size_t nops = op_start[th + 1] - op_start[th], next = 0;
        if (!nops) continue;
        order_equal_starts(ops, tops, nops);
        open.len = 0;
        uint32_t last_stack = 0;
        bool python_changed = true;
        for (uint32_t k = al_start[th]; k < al_start[th + 1]; k++) {
            uint32_t i = al_order[k];
            int64_t t = a->t_alloc.v[i];
            if (t == ML_TIME_NONE) continue;
            while (next < nops && ops->ts.v[tops[next]] <= t) {
                VEC_PUSH(&open, tops[next]);
                if (ops->kind.v[tops[next]] == ML_OP_PYTHON) python_changed = true;
                next++;
            }
            /* Drop the ops that ended by t (anywhere in the list: annotations may overlap). */
            size_t w = 0;
            for (size_t j = 0; j < open.len; j++) {
                uint32_t o = open.v[j];
                if (ops->ts.v[o] + ops->dur.v[o] > t) open.v[w++] = o;
                else if (ops->kind.v[o] == ML_OP_PYTHON) python_changed = true;
            }
            open.len = w;
            ml_str inner = 0, top = 0;
            for (size_t j = 0; j < open.len; j++) {
                uint32_t o = open.v[j];
                if (ops->kind.v[o] != ML_OP_CPU) continue;
                if (!top) top = ops->name.v[o];
                inner = ops->name.v[o];
            }
            /* an operator the importer named (Ascend's operator memory) is kept */
            if (!a->op.v[i]) a->op.v[i] = inner;
            if (top || !a->op_top.v[i]) a->op_top.v[i] = top;
            if (a->stack.v[i]) continue;
            if (python_changed) {
                frames.len = 0;
                for (size_t j = open.len; j-- > 0;)
                    if (ops->kind.v[open.v[j]] == ML_OP_PYTHON) {
                        ml_str name = ops->name.v[open.v[j]];
                        if (name < nnames && !frame_of[name]) frame_of[name] = ml_python_frame(p, name) + 1;
                        VEC_PUSH(&frames, name < nnames ? frame_of[name] - 1 : ml_python_frame(p, name));
                    }
                last_stack = ml_stack_get(p, frames.v, frames.len);
                python_changed = false;
            }
            a->stack.v[i] = last_stack;
        }
    }
    VEC_FREE(&open);
    VEC_FREE(&frames);
    free(frame_of);
    free(op_order);
    free(op_start);
    free(al_order);
    free(al_start);
}
