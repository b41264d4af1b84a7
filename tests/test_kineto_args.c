/* The table of Kineto args keys (kineto_args.h): its rows sorted by key
 * length (what ka_find relies on), every key found by its own row, the
 * memory keys and the cuda_sync-only keys where the readers expect them;
 * and the plain-buffer helpers (jsonplain.h) on the forms they take and the
 * ones they leave to the token path. */
#include "check.h"
#include "kineto_int.h"
#include "jsonplain.h"

TEST(rows_sorted_by_length_and_each_found)
{
    ka_index x;
    ka_index_build(&x);
    for (int i = 0; i < KA_NKEYS; i++) {
        const ka_key *r = &ka_keys[i];
        CHECK_EQ_I64(r->len, (int64_t)strlen(r->key));
        CHECK(r->len <= KA_MAXLEN);
        if (i) CHECK(ka_keys[i - 1].len <= r->len);
        CHECK(ka_find(&x, r->key, r->len) == r);
        for (int j = 0; j < i; j++) CHECK(strcmp(ka_keys[j].key, r->key) != 0); /* no key twice */
    }
    CHECK(ka_find(&x, "External ic", 11) == NULL);
    CHECK(ka_find(&x, "gri", 3) == NULL);
    CHECK(ka_find(&x, "memory bXndwidth (GB/s)", 23) == NULL); /* the middle of a long key */
    CHECK(ka_find(&x, "memory bandwidth (GB/x)", 23) == NULL);
    CHECK(ka_find(&x, "Sequence numbeR", 15) == NULL);
    CHECK(ka_find(&x, "devicE", 6) == NULL);
    CHECK(ka_find(&x, "", 0) == NULL);
    char longer[64];
    memset(longer, 'x', sizeof longer);
    CHECK(ka_find(&x, longer, sizeof longer) == NULL);
}

TEST(what_the_rows_say)
{
    ka_index x;
    ka_index_build(&x);
    const char *memory[] = {"Addr", "Bytes", "Device Id", "Device Type", "Total Allocated", "Total Reserved"};
    int nmem = 0;
    for (int i = 0; i < KA_NKEYS; i++) nmem += ka_keys[i].kind >= KA_ADDR;
    CHECK_EQ_I64(nmem, 6);
    for (int i = 0; i < 6; i++) {
        const ka_key *r = ka_find(&x, memory[i], strlen(memory[i]));
        CHECK(r && r->kind >= KA_ADDR);
    }
    const ka_key *r = ka_find(&x, "External id", 11);
    CHECK(r && r->kind == KA_INT && r->where == KA_ALSO_SYNC && r->off == offsetof(trace_args, ext));
    r = ka_find(&x, "external id", 11);
    CHECK(r && r->kind == KA_INT && r->where == KA_ALL && r->off == offsetof(trace_args, ext));
    r = ka_find(&x, "wait_on_cuda_event_record_corr_id", 33);
    CHECK(r && r->where == KA_SYNC && r->off == offsetof(trace_args, wait_corr));
    r = ka_find(&x, "Group size", 10);
    CHECK(r && r->kind == KA_GROUP && r->off == offsetof(trace_args, comm.group_size));
    r = ka_find(&x, "grid", 4);
    CHECK(r && r->kind == KA_DIM3 && r->off == offsetof(trace_args, grid));
}

/* A NUL-terminated copy with 64 readable bytes past it, as js_peek_value gives. */
static const char *buf(const char *s, size_t *n)
{
    static char b[256];
    memset(b, 0, sizeof b);
    *n = strlen(s);
    memcpy(b, s, *n);
    return b;
}

TEST(plain_helpers)
{
    size_t n;
    int64_t v;
    const char *p = buf("1234.5678,", &n);
    CHECK_EQ_I64(jp_scaled(p, 0, 3, &v), 9);
    CHECK_EQ_I64(v, 1234567); /* truncated, as js_number */
    p = buf("-12345678901234567890,", &n);
    CHECK_EQ_I64(jp_int(p, 0, n, &v), 0); /* too long: the token path says out of range */
    p = buf("42 ", &n);
    CHECK_EQ_I64(jp_int(p, 0, n, &v), 2);
    CHECK_EQ_I64(v, 42);
    p = buf("1e5,", &n);
    CHECK_EQ_I64(jp_int(p, 0, n, &v), 0); /* not plain: the token path reads it */
    p = buf("\"a\\\"b\", ", &n);
    CHECK_EQ_I64(jp_string(p, 0, n), 0); /* an escape */
    CHECK_EQ_I64(jp_skip(p, 0, n), 0);
    p = buf("\"ab\" : 1", &n);
    const char *key = NULL;
    size_t kn = 0;
    CHECK_EQ_I64(jp_member(p, 0, n, &key, &kn), 7);
    CHECK_EQ_I64(kn, 2);
    p = buf("[[1, 2], {\"a\": \"}\"}] ,", &n);
    CHECK_EQ_I64(js_plain_skip_container(p, 0, n), 20);
    CHECK_EQ_I64(jp_compact_span(p, n), 20);
    p = buf("[[1,2]]", &n);
    CHECK_EQ_I64(js_plain_skip_container(p, 0, n), 7);
    CHECK_EQ_I64(jp_compact_span(p, n), 0); /* not written as read_compact writes it */
    p = buf("[1, 2}", &n);
    CHECK_EQ_I64(js_plain_skip_container(p, 0, n), 0); /* brackets must match */
    p = buf("   \n\t  x", &n);
    CHECK_EQ_I64(jp_ws(p, 0), 7);
    uint64_t x;
    memcpy(&x, "12345678", 8);
    CHECK(jp_swar_nondigits(x) == 0);
    CHECK_EQ_I64((int64_t)jp_swar_value8(x - 0x3030303030303030ull), 12345678);
    memcpy(&x, "1234:678", 8);
    CHECK(jp_swar_nondigits(x) != 0);
}

int main(void)
{
    RUN(rows_sorted_by_length_and_each_found);
    RUN(what_the_rows_say);
    RUN(plain_helpers);
    return check_report();
}
