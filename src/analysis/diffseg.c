/*
 * diffseg.c — snapshot segments and allocator settings compared (diffseg.h).
 */
#include "diffseg.h"

#include <stdlib.h>
#include <string.h>

typedef struct seg_key {
    const char *device;
    uint64_t address;
    int64_t size;
    uint8_t side;
    uint32_t index;
} seg_key;

static int cmp_key(const void *x, const void *y)
{
    const seg_key *a = x, *b = y;
    int c = strcmp(a->device, b->device);
    if (c) return c;
    if (a->address != b->address) return a->address < b->address ? -1 : 1;
    if (a->size != b->size) return a->size < b->size ? -1 : 1;
    return (a->side > b->side) - (a->side < b->side);
}

static int cmp_only(const void *x, const void *y)
{
    const seg_key *a = x, *b = y;
    if (a->side != b->side) return a->side < b->side ? -1 : 1;
    return cmp_key(a, b);
}

/* The end of a Python literal starting at s (a quoted string, or anything up
 * to a top-level ',' or the closing bracket), or NULL if it never ends. */
static const char *literal_end(const char *s)
{
    int depth = 0;
    for (const char *c = s; *c; c++) {
        if (*c == '\'' || *c == '"') {
            char q = *c;
            for (c++; *c && *c != q; c++)
                if (*c == '\\' && c[1]) c++;
            if (!*c) return NULL;
        } else if (*c == '{' || *c == '[' || *c == '(') depth++;
        else if (*c == '}' || *c == ']' || *c == ')') {
            if (!depth) return c;
            depth--;
        } else if ((*c == ',' || *c == ':') && !depth) return c;
    }
    return NULL;
}

static char *trimmed(const char *a, const char *b)
{
    while (a < b && (*a == ' ' || *a == '\n')) a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\n')) b--;
    return ml_strndup(a, (size_t)(b - a));
}

int ml_repr_dict_split(const char *repr, char **keys, char **values, int cap)
{
    const char *c = repr;
    while (*c == ' ') c++;
    if (*c != '{') return -1;
    c++;
    int n = 0;
    for (;;) {
        while (*c == ' ' || *c == '\n') c++;
        if (*c == '}') return n;
        const char *ke = literal_end(c);
        if (!ke || *ke != ':') goto bad;
        char *key = trimmed(c, ke);
        size_t kl = strlen(key);
        if (kl >= 2 && (key[0] == '\'' || key[0] == '"') && key[kl - 1] == key[0]) {
            memmove(key, key + 1, kl - 2);
            key[kl - 2] = 0;
        }
        const char *ve = literal_end(ke + 1);
        if (!ve || *ve == ':') {
            free(key);
            goto bad;
        }
        if (n < cap) {
            keys[n] = key;
            values[n] = trimmed(ke + 1, ve);
            n++;
        } else free(key);
        c = *ve == ',' ? ve + 1 : ve;
    }
bad:
    for (int i = 0; i < n; i++) free(keys[i]), free(values[i]);
    return -1;
}

#define MAX_SETTINGS 256

static void settings_diff(const ml_profile *base, const ml_profile *nw, ml_segdiff *out)
{
    const ml_profile *ps[2] = {base, nw};
    char *keys[2][MAX_SETTINGS], *vals[2][MAX_SETTINGS];
    int n[2];
    for (int s = 0; s < 2; s++) {
        out->settings_known[s] = ps[s]->allocator_settings != 0;
        n[s] = 0;
        if (!out->settings_known[s]) continue;
        const char *text = ml_s(ps[s], ps[s]->allocator_settings);
        n[s] = ml_repr_dict_split(text, keys[s], vals[s], MAX_SETTINGS);
        if (n[s] < 0) { /* not a dict: the whole text is one value */
            keys[s][0] = ml_strdup("(allocator_settings)");
            vals[s][0] = ml_strdup(text);
            n[s] = 1;
        }
    }
    if (!out->settings_known[0] || !out->settings_known[1]) goto done;
    out->settings = ml_calloc((size_t)(n[0] + n[1]) + 1, sizeof *out->settings);
    for (int i = 0; i < n[0]; i++) {
        int j = 0;
        while (j < n[1] && strcmp(keys[0][i], keys[1][j]) != 0) j++;
        if (j < n[1] && !strcmp(vals[0][i], vals[1][j])) continue;
        ml_setting_diff *d = &out->settings[out->n_settings++];
        d->key = ml_strdup(keys[0][i]);
        d->value[0] = ml_strdup(vals[0][i]);
        d->value[1] = j < n[1] ? ml_strdup(vals[1][j]) : NULL;
    }
    for (int j = 0; j < n[1]; j++) {
        int i = 0;
        while (i < n[0] && strcmp(keys[0][i], keys[1][j]) != 0) i++;
        if (i < n[0]) continue;
        ml_setting_diff *d = &out->settings[out->n_settings++];
        d->key = ml_strdup(keys[1][j]);
        d->value[1] = ml_strdup(vals[1][j]);
    }
done:
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < n[s]; i++) free(keys[s][i]), free(vals[s][i]);
}

void ml_segdiff_compute(const ml_profile *base, const ml_profile *nw, ml_segdiff *out)
{
    memset(out, 0, sizeof *out);
    const ml_profile *ps[2] = {base, nw};
    size_t total = base->segments.len + nw->segments.len;
    seg_key *k = ml_malloc((total ? total : 1) * sizeof *k);
    size_t m = 0;
    for (int s = 0; s < 2; s++) {
        const ml_profile *p = ps[s];
        out->has[s] = p->segments.len > 0 || p->allocator_settings != 0;
        out->segments[s] = p->segments.len;
        for (size_t i = 0; i < p->segments.len; i++) {
            const ml_segment *g = &p->segments.v[i];
            out->bytes[s] = ml_add_sat(out->bytes[s], g->total_size);
            k[m++] = (seg_key){p->devices.v[g->device].id, g->address, g->total_size, (uint8_t)s, (uint32_t)i};
        }
    }
    qsort(k, m, sizeof *k, cmp_key);
    /* Equal keys sit together, base first: a base segment followed by an
     * equal new one is common to both; every other one is only on its side
     * (a key twice on one side, never in a real snapshot, pairs in order). */
    size_t w = 0;
    for (size_t i = 0; i < m; i++) {
        if (i + 1 < m && k[i].side == 0 && k[i + 1].side == 1 && !strcmp(k[i].device, k[i + 1].device) &&
            k[i].address == k[i + 1].address && k[i].size == k[i + 1].size) {
            out->common++;
            i++;
            continue;
        }
        k[w++] = k[i];
    }
    qsort(k, w, sizeof *k, cmp_only);
    out->only = ml_malloc((w ? w : 1) * sizeof *out->only);
    for (size_t i = 0; i < w; i++) {
        out->only[i] = (ml_seg_only){k[i].side, k[i].index};
        out->only_bytes[k[i].side] = ml_add_sat(out->only_bytes[k[i].side], k[i].size);
    }
    out->n_only = w;
    free(k);
    if (out->has[0] && out->has[1]) settings_diff(base, nw, out);
}

void ml_segdiff_free(ml_segdiff *d)
{
    for (size_t i = 0; i < d->n_settings; i++) {
        free(d->settings[i].key);
        free(d->settings[i].value[0]);
        free(d->settings[i].value[1]);
    }
    free(d->settings);
    free(d->only);
    memset(d, 0, sizeof *d);
}
