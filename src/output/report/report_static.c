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

void ml_report_static(const ml_profile *p, uint16_t dev, ml_buf *m)
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
    ml_buf_puts(m, ",\"static\":{\"graphs\":[");
    for (size_t g = 0; g < graphs.len; g++) {
        const char *label = ml_s(p, graphs.v[g]);
        char model[256], graph[256];
        split_label(label, model, sizeof model, graph, sizeof graph);
        ml_buf_puts(m, g ? ",{\"label\":" : "{\"label\":");
        ml_json_str(m, label);
        ml_buf_puts(m, ",\"model\":");
        ml_json_str(m, model);
        ml_buf_puts(m, ",\"graph\":");
        ml_json_str(m, graph);
        /* TOTAL rows: [node, bytes] */
        ml_buf_puts(m, ",\"total\":[");
        const ml_series *tot = ml_series_find(p, dev, ML_SERIES_RESERVED, label, 0);
        for (size_t j = 0; tot && j < tot->ts.len; j++)
            ml_buf_printf(m, "%s[%lld,%lld]", j ? "," : "", (long long)tot->ts.v[j], (long long)tot->value.v[j]);
        /* operator rows: [name, start, end (-1: to the graph's end), bytes] */
        ml_buf_puts(m, "],\"rows\":[");
        size_t n = 0;
        for (size_t i = 0; i < a->size.len; i++) {
            if (a->device.v[i] != dev || a->op_top.v[i] != graphs.v[g]) continue;
            ml_buf_puts(m, n++ ? ",[" : "[");
            ml_json_str(m, a->op.v[i] ? ml_s(p, a->op.v[i]) : "");
            int64_t end = a->t_free.v[i] == ML_TIME_END ? -1 : a->t_free.v[i] - 1;
            ml_buf_printf(m, ",%lld,%lld,%lld]", (long long)a->t_alloc.v[i], (long long)end, (long long)a->size.v[i]);
        }
        ml_buf_puts(m, "]}");
    }
    ml_buf_puts(m, "]}");
    VEC_FREE(&graphs);
}
