/*
 * check_out.c — `memlens check` as text, JSON and JUnit XML (check_out.h).
 */
#include "check_out.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "format.h"
#include "jsonw.h"
#include "outfile.h"
#include "summary.h" /* MEMLENS_VERSION */
#include "textwidth.h"

static const char *unit_name(ml_rule_unit u)
{
    return u == ML_UNIT_BYTES ? "bytes" : u == ML_UNIT_PCT ? "percent" : u == ML_UNIT_NS ? "us" : "count";
}

/* A figure as people read it. */
static const char *fig(double v, ml_rule_unit u, char *buf, size_t cap)
{
    switch (u) {
    case ML_UNIT_BYTES: return ml_fmt_bytes((int64_t)llround(v), buf, cap);
    case ML_UNIT_NS: return ml_fmt_duration((int64_t)llround(v), buf, cap);
    case ML_UNIT_PCT: snprintf(buf, cap, v == floor(v) && fabs(v) < 1e15 ? "%.0f%%" : "%.1f%%", v); return buf;
    default: snprintf(buf, cap, "%.0f", v); return buf;
    }
}

static const char *subject(ml_rule_kind k)
{
    switch (k) {
    case ML_RULE_MAX_PEAK: return "peak allocated";
    case ML_RULE_MAX_RESERVED: return "peak reserved";
    case ML_RULE_MAX_PEAK_GROWTH: return "peak allocated grew";
    case ML_RULE_MAX_STEP_TIME: return "average step time";
    case ML_RULE_MAX_STEP_TIME_GROWTH: return "average step time grew";
    case ML_RULE_NO_OOM: return "out-of-memory events";
    case ML_RULE_MAX_UNUSED_RESERVED: return "reserved but not allocated at the reserved peak";
    default: return "";
    }
}

static const char *contributors_label(ml_rule_kind k)
{
    switch (k) {
    case ML_RULE_MAX_PEAK:
    case ML_RULE_MAX_RESERVED: return "largest at the peak";
    case ML_RULE_MAX_PEAK_GROWTH: return "grew most";
    case ML_RULE_MAX_STEP_TIME: return "largest parts";
    case ML_RULE_MAX_STEP_TIME_GROWTH: return "grew most per step";
    case ML_RULE_NO_OOM: return "first";
    case ML_RULE_MAX_UNUSED_RESERVED: return "most unallocated";
    default: return "";
    }
}

void ml_check_line(const ml_rule_result *r, char *buf, size_t cap)
{
    const ml_rule *rule = r->rule;
    ml_rule_unit u = ml_rule_unit_of(rule->kind);
    char name[96], m[48], l[48], a[48], b[48];
    snprintf(name, sizeof name, "%s%s%s", rule->option, rule->arg ? " " : "", rule->arg ? rule->arg : "");
    if (!r->evaluated) {
        snprintf(buf, cap, "ERROR %s: cannot be checked: %s", name, r->why);
        return;
    }
    size_t n = 0;
#define PUT(...) (n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, __VA_ARGS__))
    PUT("%s %s: %s %s", r->passed ? "PASS" : "FAIL", name, subject(rule->kind), fig(r->measured, u, m, sizeof m));
    if (rule->kind == ML_RULE_MAX_PEAK_GROWTH)
        PUT(" (%s -> %s)", fig(r->base, ML_UNIT_BYTES, a, sizeof a), fig(r->now, ML_UNIT_BYTES, b, sizeof b));
    if (rule->kind == ML_RULE_MAX_STEP_TIME_GROWTH)
        PUT(" (%s -> %s)", fig(r->base, ML_UNIT_NS, a, sizeof a), fig(r->now, ML_UNIT_NS, b, sizeof b));
    if (rule->kind == ML_RULE_MAX_UNUSED_RESERVED)
        PUT(" (%s allocated of %s reserved)", fig(r->base, ML_UNIT_BYTES, a, sizeof a), fig(r->now, ML_UNIT_BYTES, b, sizeof b));
    if (*r->where) PUT(" on %s", r->where);
    if (rule->kind == ML_RULE_NO_OOM) PUT(", expected none");
    else PUT(" %s %s", r->passed ? "<=" : ">", fig(rule->limit, u, l, sizeof l));
    if (!r->passed && r->n_top) {
        PUT("; %s:", contributors_label(rule->kind));
        for (int k = 0; k < r->n_top; k++) {
            bool plus = rule->kind == ML_RULE_MAX_PEAK_GROWTH || rule->kind == ML_RULE_MAX_STEP_TIME_GROWTH;
            /* a kernel's C++ name without its parameters (and, when long, its template arguments) */
            const char *nm = r->top_name[k];
            char sym[4 * 100 + 8];
            if (rule->kind == ML_RULE_MAX_STEP_TIME_GROWTH && !strncmp(nm, "kernel ", 7))
                PUT("%s kernel %s %s%s", k ? "," : "", ml_fit_symbol(nm + 7, 100, sym, sizeof sym), plus ? "+" : "",
                    fig(r->top_value[k], r->top_unit, a, sizeof a));
            else PUT("%s %s %s%s", k ? "," : "", nm, plus ? "+" : "", fig(r->top_value[k], r->top_unit, a, sizeof a));
        }
    }
#undef PUT
}

void ml_check_text(FILE *f, const ml_check_run *c)
{
    size_t failed = 0, errors = 0;
    char line[2048];
    for (size_t i = 0; i < c->n; i++) {
        ml_check_line(&c->results[i], line, sizeof line);
        ml_put_text(f, line); /* names from the input may hold bytes a terminal acts on */
        fputc('\n', f);
        if (!c->results[i].evaluated) errors++;
        else if (!c->results[i].passed) failed++;
    }
    for (size_t i = 0; i < c->n_unmatched; i++) {
        fputs("note: ", f);
        ml_put_text(f, c->unmatched[i]);
        fputc('\n', f);
    }
    if (!failed && !errors) fprintf(f, "memlens check: %zu rule%s hold%s for %s\n", c->n, c->n == 1 ? "" : "s", c->n == 1 ? "s" : "", ML_TEXT_SAFE(c->input));
    else if (!errors) fprintf(f, "memlens check: %zu of %zu rule%s broken for %s\n", failed, c->n, c->n == 1 ? "" : "s", ML_TEXT_SAFE(c->input));
    else fprintf(f, "memlens check: %zu of %zu rule%s broken, %zu could not be checked, for %s\n", failed, c->n, c->n == 1 ? "" : "s",
                 errors, ML_TEXT_SAFE(c->input));
}

/* A rule's figure in its unit: bytes and counts whole, times in µs (3 decimals), shares to 4. */
static void num(jw *w, const char *key, double v, ml_rule_unit u)
{
    jw_key(w, key);
    if (u == ML_UNIT_BYTES || u == ML_UNIT_COUNT) jw_fixed(w, v, 0);
    else if (u == ML_UNIT_NS) jw_fixed(w, v / 1000.0, 3);
    else jw_fixed(w, v, 4);
}

void ml_check_json(FILE *f, const ml_check_run *c)
{
    jw w;
    jw_init(&w, f, true);
    bool all = true;
    for (size_t i = 0; i < c->n; i++) all &= c->results[i].evaluated && c->results[i].passed;
    jw_obj(&w);
    jw_key(&w, "memlens"); jw_str(&w, MEMLENS_VERSION);
    jw_key(&w, "input"); jw_str(&w, c->input);
    jw_key(&w, "base"); if (c->base) jw_str(&w, c->base); else jw_null(&w);
    jw_key(&w, "passed"); jw_bool(&w, all);
    jw_key(&w, "rules");
    jw_arr(&w);
    for (size_t i = 0; i < c->n; i++) {
        const ml_rule_result *r = &c->results[i];
        ml_rule_unit u = ml_rule_unit_of(r->rule->kind);
        char line[2048];
        ml_check_line(r, line, sizeof line);
        jw_obj(&w);
        jw_key(&w, "rule"); jw_str(&w, r->rule->option);
        jw_key(&w, "limit"); if (r->rule->arg) jw_str(&w, r->rule->arg); else jw_null(&w);
        jw_key(&w, "unit"); jw_str(&w, unit_name(u));
        num(&w, "limit_value", r->rule->arg ? r->rule->limit : 0, u);
        jw_key(&w, "evaluated"); jw_bool(&w, r->evaluated);
        jw_key(&w, "passed"); jw_bool(&w, r->evaluated && r->passed);
        num(&w, "measured", r->evaluated ? r->measured : NAN, u);
        jw_key(&w, "where"); jw_str(&w, r->where);
        jw_key(&w, "message"); jw_str(&w, line);
        jw_key(&w, "contributors");
        jw_arr(&w);
        for (int k = 0; k < r->n_top; k++) {
            jw_obj(&w);
            jw_key(&w, "name"); jw_str(&w, r->top_name[k]);
            num(&w, "value", r->top_value[k], r->top_unit);
            jw_key(&w, "unit"); jw_str(&w, unit_name(r->top_unit));
            jw_end(&w);
        }
        jw_end(&w);
        jw_end(&w);
    }
    jw_end(&w);
    jw_key(&w, "unmatched");
    jw_arr(&w);
    for (size_t i = 0; i < c->n_unmatched; i++) jw_str(&w, c->unmatched[i]);
    jw_end(&w);
    jw_end(&w);
    fputc('\n', f);
}

/* Text as XML character data or attribute value: the five entities escaped,
 * characters XML 1.0 forbids (controls but tab and newline) dropped. */
static void xml_text(FILE *f, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        switch (*c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\n': fputs("&#10;", f); break;
        case '\t': fputs("&#9;", f); break;
        default:
            if (*c >= 0x20) fputc(*c, f);
        }
    }
}

int ml_check_junit(const char *path, const ml_check_run *c, FILE *std_out, ml_err *e)
{
    ml_outfile out;
    if (ml_outfile_open_as(&out, path, 0, std_out, e) != 0) return -1;
    FILE *f = out.f;
    size_t failures = 0, errors = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (!c->results[i].evaluated) errors++;
        else if (!c->results[i].passed) failures++;
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"memlens check\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n", c->n, failures, errors);
    fprintf(f, "  <testsuite name=\"memlens check ");
    xml_text(f, c->input);
    if (c->base) {
        fputs(" against ", f);
        xml_text(f, c->base);
    }
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\">\n", c->n, failures, errors);
    if (c->n_unmatched) {
        fputs("    <properties>\n", f);
        for (size_t i = 0; i < c->n_unmatched; i++) {
            fputs("      <property name=\"unmatched\" value=\"", f);
            xml_text(f, c->unmatched[i]);
            fputs("\"/>\n", f);
        }
        fputs("    </properties>\n", f);
    }
    for (size_t i = 0; i < c->n; i++) {
        const ml_rule_result *r = &c->results[i];
        char name[128], line[2048];
        snprintf(name, sizeof name, "%s%s%s", r->rule->option, r->rule->arg ? " " : "", r->rule->arg ? r->rule->arg : "");
        ml_check_line(r, line, sizeof line);
        fputs("    <testcase classname=\"memlens.check\" name=\"", f);
        xml_text(f, name);
        fputs("\" time=\"0\"", f);
        if (r->evaluated && r->passed) {
            fputs(">\n      <system-out>", f);
            xml_text(f, line);
            fputs("</system-out>\n    </testcase>\n", f);
            continue;
        }
        fprintf(f, ">\n      <%s message=\"", r->evaluated ? "failure" : "error");
        xml_text(f, line);
        fprintf(f, "\" type=\"%s\">", r->evaluated ? "memlens.check.failure" : "memlens.check.error");
        xml_text(f, line);
        fprintf(f, "</%s>\n    </testcase>\n", r->evaluated ? "failure" : "error");
    }
    fprintf(f, "  </testsuite>\n</testsuites>\n");
    return ml_outfile_close(&out, true, e);
}
