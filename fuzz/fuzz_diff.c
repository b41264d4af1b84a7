/* libFuzzer target: `memlens diff` and `memlens check` on arbitrary bytes.
 * The input is cut in two at its first NUL (or in the middle): each half is
 * imported as a Kineto trace with its time side and the two runs compared
 * (analysis/diff.h: devices, groups, steps, operators by name, the tree
 * diff), written as text and JSON to /dev/null, and every check rule judged.
 * The allocator-settings splitter and the rules' limits get the first half
 * as text.  Any bytes: a comparison or an error, never a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compare.h"
#include "importer.h"

static ml_profile *load(const uint8_t *data, size_t size, ml_diff_time *t, bool *has)
{
    ml_source *src = ml_source_from_memory("fuzz.json", data, size);
    ml_profile *p = ml_profile_new("fuzz.json", "kineto");
    p->trace = ml_trace_new();
    ml_err e;
    int rc = ml_kineto_import(src, p, NULL, &e);
    ml_source_close(src);
    if (rc != 0) {
        ml_profile_free(p);
        return NULL;
    }
    *has = ml_diff_time_compute(p, t);
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *null;
    if (!null) null = fopen("/dev/null", "w");
    const uint8_t *cut = memchr(data, 0, size);
    size_t a = cut ? (size_t)(cut - data) : size / 2, b = cut ? a + 1 : a;

    char *text = malloc(a + 1);
    memcpy(text, data, a);
    text[a] = 0;
    char *keys[16], *vals[16];
    int n = ml_repr_dict_split(text, keys, vals, 16);
    for (int i = 0; i < n; i++) free(keys[i]), free(vals[i]);
    for (int k = 0; k < ML_RULE__COUNT; k++) {
        ml_rule r;
        ml_err e;
        ml_rule_parse((ml_rule_kind)k, "--rule", text, &r, &e);
    }
    free(text);

    ml_diff_time t[2];
    bool has[2] = {false, false};
    ml_profile *p[2] = {load(data, a, &t[0], &has[0]), load(data + b, size - b, &t[1], &has[1])};
    if (p[0] && p[1]) {
        ml_diff_side s[2];
        for (int i = 0; i < 2; i++) s[i] = (ml_diff_side){p[i], has[i] ? &t[i] : NULL};
        ml_diff *d = ml_diff_compute(&s[0], &s[1], NULL);
        ml_diff *pairs[1] = {d};
        ml_compare_opts o = {.top = 3, .width = 80};
        /* the pair's text section and its --json element, then each document (diff_cmd.c) */
        ml_compare_piece piece[2] = {{0}, {0}};
        FILE *f = open_memstream(&piece[0].text, &piece[0].len);
        if (f) ml_compare_pair_text(f, d, &o), fclose(f);
        f = open_memstream(&piece[1].text, &piece[1].len);
        if (f) {
            jw w;
            jw_init_in(&w, f, true, 2, false);
            ml_compare_pair_json(&w, d, &o);
            fclose(f);
        }
        for (int k = 0; k < 2; k++) {
            ml_compare_doc doc = {{"a", "b"}, &piece[k], piece[k].text ? 1 : 0, NULL, 0};
            if (k == 0) ml_compare_text(null, &doc);
            else ml_compare_json(null, &doc);
            free(piece[k].text);
        }
        for (int k = 0; k < ML_RULE__COUNT; k++) {
            ml_rule r = {.kind = (ml_rule_kind)k, .option = "--rule", .arg = "1", .limit = 1};
            ml_rule_result res;
            ml_check_eval(&r, pairs, 1, true, &res);
        }
        ml_diff_free(d);
    }
    for (int i = 0; i < 2; i++) {
        if (!p[i]) continue;
        if (has[i]) ml_diff_time_free(&t[i]);
        ml_profile_free(p[i]);
    }
    return 0;
}
