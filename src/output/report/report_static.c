/*
 * report_static.c — the static-graph part of a device's report data
 * (Ascend static_op_mem.csv): per graph its model, graph id, the TOTAL row
 * and the operator rows, by node index.  The page draws each graph's size
 * curve by node index and its operator table from it (web/src/staticview.js;
 * web/DATA.md "static").  Node indices are not times: they are written as
 * they are, not relative to the report's origin.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "components.h"
#include "report_static.h"
#include "report_enc.h"

/* "model M graph G" (ascend_text.c's label) -> M, G. */
static void split_label(const char *label, char *model, size_t mcap, char *graph, size_t gcap)
{
    const char *g = NULL;
    for (const char *s = strstr(label, " graph "); s; s = strstr(s + 1, " graph ")) g = s;
    if (strncmp(label, "model ", 6) != 0 || !g) {
        snprintf(model, mcap, "%s", "");
        snprintf(graph, gcap, "%s", label);
        return;
    }
    snprintf(model, mcap, "%.*s", (int)(g - label - 6), label + 6);
    snprintf(graph, gcap, "%s", g + 7);
}

bool ml_report_is_static(const ml_profile *p) { return p->caps.static_graph; }

void ml_report_static(const ml_profile *p, uint16_t dev, jw *w)
{
    const ml_allocs *a = &p->allocs;
    /* graphs in first-seen order */
    VEC(ml_str) graphs = {0};
    for (size_t i = 0; i < a->size.len; i++) {
        if (a->device.v[i] != dev) continue;
        ml_str g = a->op_top.v[i];
        size_t k = graphs.len;
        while (k > 0 && graphs.v[k - 1] != g) k--;
        if (!k) VEC_PUSH(&graphs, g);
    }
    /* graphs that have only a TOTAL row */
    for (size_t s = 0; s < p->series.len; s++) {
        const ml_series *se = &p->series.v[s];
        if (se->device != dev || se->kind != ML_SERIES_RESERVED || !se->component) continue;
        size_t k = graphs.len;
        while (k > 0 && graphs.v[k - 1] != se->component) k--;
        if (!k) VEC_PUSH(&graphs, se->component);
    }
    jw_key(w, "static"), jw_obj(w);
    jw_key(w, "graphs"), jw_arr(w);
    for (size_t g = 0; g < graphs.len; g++) {
        const char *label = ml_s(p, graphs.v[g]);
        char model[256], graph[256];
        split_label(label, model, sizeof model, graph, sizeof graph);
        jw_obj(w);
        jw_key(w, "label"), jw_text(w, label);
        jw_key(w, "model"), jw_text(w, model);
        jw_key(w, "graph"), jw_text(w, graph);
        /* TOTAL rows: [node, bytes] */
        jw_key(w, "total"), jw_arr(w);
        const ml_series *tot = ml_series_find(p, dev, ML_SERIES_RESERVED, label, 0);
        for (size_t j = 0; tot && j < tot->ts.len; j++) {
            jw_arr(w);
            jw_i64(w, tot->ts.v[j]), jw_i64(w, tot->value.v[j]);
            jw_end(w);
        }
        jw_end(w);
        /* operator rows: [name, start, end (-1: to the graph's end), bytes] */
        jw_key(w, "rows"), jw_arr(w);
        for (size_t i = 0; i < a->size.len; i++) {
            if (a->device.v[i] != dev || a->op_top.v[i] != graphs.v[g]) continue;
            jw_arr(w);
            jw_text(w, a->op.v[i] ? ml_s(p, a->op.v[i]) : "");
            int64_t end = a->t_free.v[i] == ML_TIME_END ? -1 : a->t_free.v[i] - 1;
            jw_i64(w, a->t_alloc.v[i]), jw_i64(w, end), jw_i64(w, a->size.v[i]);
            jw_end(w);
        }
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
    VEC_FREE(&graphs);
}
