/*
 * check.h — the rules of `memlens check`, a CI gate: each rule is a limit on
 * one figure of the new run (or of its change against a base run), judged
 * on the comparison (diff.h) of every pair of ranks, the worst pair and
 * device deciding.
 *
 *   --max-peak SIZE              peak allocated memory of any accelerator; a run
 *                                without accelerator memory (CPU only): the CPU's
 *   --max-peak-growth PCT        the same, new against base (needs a base)
 *   --max-reserved SIZE          peak reserved memory of any accelerator
 *   --max-step-time DURATION     average step time
 *   --max-step-time-growth PCT   average step time, new against base (needs a base)
 *   --no-oom                     no out-of-memory event
 *   --max-unused-reserved PCT    memory reserved but not allocated at the
 *                                reserved peak, as a share of the reserved peak
 *
 * SIZE is a number with a unit: B, KiB, MiB, GiB, TiB (powers of 1024) or
 * KB, MB, GB, TB (powers of 1000), "30GiB" or "1.5 GiB".  PCT is a number
 * and "%" (at most 100 % for --max-unused-reserved, 1000000 % for a
 * growth).  DURATION a number and ns, us, ms or s.
 *
 * Without a base the run is compared with itself (diff.h): the rules read
 * its new side.  A broken rule names its three biggest contributors: the
 * largest groups live at the peak, the groups or operators that grew most,
 * the first out-of-memory events, the segments with the most unallocated
 * memory at the reserved peak (the moment --max-unused-reserved measures).
 */
#ifndef ML_CHECK_H
#define ML_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "diff.h"
#include "err.h"

typedef enum {
    ML_RULE_MAX_PEAK, ML_RULE_MAX_RESERVED, ML_RULE_MAX_PEAK_GROWTH, ML_RULE_MAX_STEP_TIME,
    ML_RULE_MAX_STEP_TIME_GROWTH, ML_RULE_NO_OOM, ML_RULE_MAX_UNUSED_RESERVED,
    ML_RULE__COUNT
} ml_rule_kind;

/* How a rule's figures read: bytes, a percentage, a duration (ns), a count. */
typedef enum { ML_UNIT_BYTES, ML_UNIT_PCT, ML_UNIT_NS, ML_UNIT_COUNT } ml_rule_unit;

typedef struct ml_rule {
    ml_rule_kind kind;
    const char *option;     /* "--max-peak" */
    const char *arg;        /* the limit as given ("30GiB"), NULL for --no-oom */
    double limit;           /* in the rule's unit: bytes, percent (5 for 5%), ns, count */
} ml_rule;

/* The rule an option names, or -1. */
int ml_rule_lookup(const char *option);
/* Whether it takes a value, and whether it needs --base. */
bool ml_rule_takes_arg(ml_rule_kind k);
bool ml_rule_needs_base(ml_rule_kind k);
ml_rule_unit ml_rule_unit_of(ml_rule_kind k);
/* Parses the limit of a rule; fails with "OPTION ARG: expected ..." (a bad
 * unit) or "OPTION ARG: out of range: ..." (a size or duration of 2^63 bytes
 * or ns or more, --max-unused-reserved above 100 %, a growth above
 * ML_MAX_GROWTH_PCT). */
#define ML_MAX_GROWTH_PCT 1000000.0
int ml_rule_parse(ml_rule_kind k, const char *option, const char *arg, ml_rule *out, ml_err *e);

#define ML_CHECK_TOP 3

typedef struct ml_rule_result {
    const ml_rule *rule;
    bool evaluated;         /* false: no run has the figure (why says it) */
    bool passed;
    double measured;        /* in the rule's unit */
    double base, now;       /* growth rules: the figure on each side (bytes, ns) */
    char where[160];        /* "cuda:0 of rank 1", "" */
    char why[200];          /* not evaluated: why */
    char top_name[ML_CHECK_TOP][200];
    double top_value[ML_CHECK_TOP]; /* in the unit of top_unit */
    ml_rule_unit top_unit;
    int n_top;
} ml_rule_result;

/* Judges rule r on the comparisons pairs[0..n) (has_base: the base side is
 * a real base, not the run itself). */
void ml_check_eval(const ml_rule *r, ml_diff *const *pairs, size_t n, bool has_base, ml_rule_result *out);
/* Folds the result of the next pair, judged alone, into acc (the result of
 * the pairs before it; first: none yet): acc becomes what ml_check_eval
 * would give on all of those pairs at once, so that a job's pairs can be
 * judged one at a time and freed (the worst pair, the first one on a tie;
 * out-of-memory events summed, named from the first pair that has any). */
void ml_check_fold(ml_rule_result *acc, const ml_rule_result *next, bool first);

#endif
