/* test_pickle.c — the safe pickle reader on hand-written pickles.
 *
 * The byte strings were written by CPython's pickle.dumps (protocols 2, 4, 5)
 * and checked with pickletools.dis; the refused and hostile ones are written
 * by hand.  Each test names the opcodes it covers. */
#include "check.h"

#include "pickle.h"
#include "pyvalue.h"

#define P(lit) lit, sizeof lit - 1

static ml_pvs *st;
static ml_pv val;
static ml_err err;
static char text[4096];

/* Reads the pickle; on success text = repr of the value. */
static int load_hook(const char *b, size_t n, ml_append_hook hook, void *user)
{
    ml_pvs_free(st);
    st = ml_pvs_new(NULL);
    err.msg[0] = 0;
    text[0] = 0;
    ml_source *src = ml_source_from_memory("t.pickle", b, n);
    int rc = ml_pickle_read(src, st, hook, user, &val, &err);
    ml_source_close(src);
    if (rc == 0) ml_pv_repr(st, val, text, sizeof text);
    return rc;
}
static int load(const char *b, size_t n) { return load_hook(b, n, NULL, NULL); }

TEST(protocol2_dict_list_binput)   /* PROTO 2, EMPTY_DICT, BINPUT, BINUNICODE, EMPTY_LIST, MARK, BININT1, APPENDS, SETITEM */
{
    CHECK_EQ_I64(load(P("\x80\x02\x7d\x71\x00\x58\x01\x00\x00\x00\x61\x71\x01\x5d\x71\x02\x28\x4b\x01\x4b\x02\x65\x73\x2e")), 0);
    CHECK_EQ_STR(text, "{'a': [1, 2]}");
}

TEST(protocol4_frame_memoize)      /* FRAME, MEMOIZE, SHORT_BINUNICODE */
{
    CHECK_EQ_I64(load(P("\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x8c\x01\x61\x94\x5d\x94\x28\x4b\x01\x4b\x02\x65\x73\x2e")), 0);
    CHECK_EQ_STR(text, "{'a': [1, 2]}");
    ml_pv a;
    CHECK_EQ_I64(ml_pv_dict_get(st, val, ml_intern_cstr(ml_pvs_strings(st), "a"), &a), 0);
    CHECK_EQ_I64(ml_pv_type_of(st, a), ML_PV_LIST);
    CHECK_EQ_I64(ml_pv_len(st, a), 2);
}

TEST(protocol5_bytearray_bytes)    /* PROTO 5, BYTEARRAY8, SHORT_BINBYTES (with a NUL), SETITEMS */
{
    CHECK_EQ_I64(load(P("\x80\x05\x95\x1e\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x01\x6b\x94\x96\x02\x00\x00\x00\x00\x00\x00\x00\x78\x79\x94\x8c\x01\x62\x94\x43\x02\x00\x7a\x94\x75\x2e")), 0);
    ml_pv b;
    ml_str s;
    CHECK_EQ_I64(ml_pv_dict_get(st, val, ml_intern_cstr(ml_pvs_strings(st), "b"), &b), 0);
    CHECK_EQ_I64(ml_pv_type_of(st, b), ML_PV_BYTES);
    CHECK_EQ_I64(ml_pv_str(st, b, &s), 0);
    CHECK_EQ_I64(ml_strlen(ml_pvs_strings(st), s), 2);
    CHECK(memcmp(ml_strget(ml_pvs_strings(st), s), "\0z", 2) == 0);
    CHECK_CONTAINS(text, "'k': b'xy'");
}

TEST(integers)                     /* BININT (negative), BININT1, BININT2, LONG1 of 6, 8 and 9 bytes, LONG4 */
{
    CHECK_EQ_I64(load(P("\x80\x02\x5d\x71\x00\x28\x4a\xfb\xff\xff\xff\x4b\xff\x4d\xff\xff\x4a\x70\x11\x01\x00\x8a\x06\x00\x00\x00\x00\x00\x01\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f\x4a\xff\xff\xff\xff\x65\x2e")), 0);
    CHECK_EQ_STR(text, "[-5, 255, 65535, 70000, 1099511627776, -9223372036854775808, 18446744073709551616, 9223372036854775807, -1]");
    int64_t i;
    CHECK_EQ_I64(ml_pv_int(st, ml_pv_item(st, val, 6), &i), -1); /* 2**64 is not an int64 */
    CHECK_EQ_I64(ml_pv_type_of(st, ml_pv_item(st, val, 6)), ML_PV_BIGINT);
    /* LONG4 of 2 bytes (-2), LONG1 of 0 bytes (0), LONG1 with redundant sign bytes (-1) */
    CHECK_EQ_I64(load(P("\x80\x02(\x8b\x02\x00\x00\x00\xfe\xff\x8a\x00\x8a\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x74.")), 0);
    CHECK_EQ_STR(text, "(-2, 0, -1)");
}

TEST(scalars_and_tuples)           /* NONE, NEWTRUE, NEWFALSE, BINFLOAT, EMPTY_TUPLE, TUPLE1/2/3, TUPLE, 2-byte UTF-8 */
{
    CHECK_EQ_I64(load(P("\x80\x04\x95\x34\x00\x00\x00\x00\x00\x00\x00\x5d\x94\x28\x4e\x88\x89\x47\x3f\xf8\x00\x00\x00\x00\x00\x00\x29\x4b\x01\x85\x94\x4b\x01\x4b\x02\x86\x94\x4b\x01\x4b\x02\x4b\x03\x87\x94\x28\x4b\x01\x4b\x02\x4b\x03\x4b\x04\x74\x94\x8c\x02\xc3\xa9\x94\x65\x2e")), 0);
    CHECK_EQ_STR(text, "[None, True, False, 1.5, (), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), '\xc3\xa9']");
    double d;
    CHECK_EQ_I64(ml_pv_num(st, ml_pv_item(st, val, 3), &d), 0);
    CHECK_EQ_DBL(d, 1.5, 0);
}

TEST(floats_as_python_writes_them)  /* repr([0.0, 0.1, 1e300, -2.5e-07, float('inf')]), written by CPython */
{
    CHECK_EQ_I64(load(P("\x80\x02\x5d\x71\x00\x28\x47\x00\x00\x00\x00\x00\x00\x00\x00\x47\x3f\xb9\x99\x99\x99\x99\x99\x9a\x47\x7e\x37\xe4\x3c\x88\x00\x75\x9c\x47\xbe\x90\xc6\xf7\xa0\xb5\xed\x8d\x47\x7f\xf0\x00\x00\x00\x00\x00\x00\x65\x2e")), 0);
    CHECK_EQ_STR(text, "[0.0, 0.1, 1e+300, -2.5e-07, inf]");
}

TEST(list_dict_opcodes_pop_dup)    /* LIST, DICT, POP, POP_MARK, DUP, APPEND, SETITEM, SHORT_BINSTRING, BINSTRING */
{
    /* [ (MARK K1 K2 LIST) , {'x': 'y'} via MARK U'x' T'y' DICT ], POP and POP_MARK discard, DUP copies */
    CHECK_EQ_I64(load(P("\x80\x02]q\x00(K\x01K\x02la(U\x01xT\x01\x00\x00\x00yda(K\x09K\x08\x31K\x07\x30N\x32\x86" "a.")), 0);
    CHECK_EQ_STR(text, "[[1, 2], {'x': 'y'}, (None, None)]");
}

TEST(sets)                         /* EMPTY_SET, ADDITEMS, FROZENSET */
{
    CHECK_EQ_I64(load(P("\x80\x04\x95\x12\x00\x00\x00\x00\x00\x00\x00\x5d\x94\x28\x8f\x94\x28\x4b\x01\x4b\x02\x90\x28\x4b\x03\x91\x94\x65\x2e")), 0);
    CHECK_EQ_STR(text, "[{1, 2}, frozenset({3})]");
    CHECK_EQ_I64(ml_pv_type_of(st, ml_pv_item(st, val, 1)), ML_PV_FROZENSET);
}

TEST(memo_shares_not_copies)       /* BINGET: x = [1]; [x, x, {'f': x}] */
{
    CHECK_EQ_I64(load(P("\x80\x04\x95\x15\x00\x00\x00\x00\x00\x00\x00\x5d\x94\x28\x5d\x94\x4b\x01\x61\x68\x01\x7d\x94\x8c\x01\x66\x94\x68\x01\x73\x65\x2e")), 0);
    CHECK_EQ_STR(text, "[[1], [1], {'f': [1]}]");
    ml_pv x0 = ml_pv_item(st, val, 0), x1 = ml_pv_item(st, val, 1);
    CHECK(x0 == x1);                               /* the same container, not a copy */
    CHECK(ml_pv_dict_value(st, ml_pv_item(st, val, 2), 0) == x0);
    CHECK_EQ_I64(ml_pvs_live_containers(st), 3);   /* outer list, x, the dict */
}

TEST(long_binput_long_binget)      /* LONG_BINPUT, LONG_BINGET */
{
    CHECK_EQ_I64(load(P("\x80\x02]r\x05\x00\x00\x00(K\x07j\x05\x00\x00\x00" "e.")), 0);
    CHECK_CONTAINS(text, "[7, [7, [7, [7, ");  /* the list contains itself */
    CHECK(ml_pv_item(st, val, 1) == val);
}

TEST(invalid_utf8_replaced)        /* BINUNICODE with a stray continuation byte and a surrogate */
{
    CHECK_EQ_I64(load(P("\x80\x02X\x06\x00\x00\x00" "a\x80" "b\xed\xa0\x80.")), 0);
    /* 0x80 -> U+FFFD; ED A0 80 (a UTF-16 surrogate) -> three U+FFFD */
    CHECK_EQ_STR(text, "'a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd'");
}

TEST(refuses_code_opcodes)
{
    static const struct { const char *bytes; size_t n; const char *what; } cases[] = {
        {P("\x80\x02" "cos\nsystem\n."), "opcode 0x63 GLOBAL refused"},
        {P("\x80\x04\x8c\x02os\x8c\x06system\x93."), "opcode 0x93 STACK_GLOBAL refused"},
        {P("\x80\x02N)R."), "opcode 0x52 REDUCE refused"},
        {P("\x80\x02N}b."), "opcode 0x62 BUILD refused"},
        {P("\x80\x02(ios\nsystem\n."), "opcode 0x69 INST refused"},
        {P("\x80\x02(No."), "opcode 0x6f OBJ refused"},
        {P("\x80\x02N)\x81."), "opcode 0x81 NEWOBJ refused"},
        {P("\x80\x04N)}\x92."), "opcode 0x92 NEWOBJ_EX refused"},
        {P("\x80\x02P1\n."), "opcode 0x50 PERSID refused"},
        {P("\x80\x02NQ."), "opcode 0x51 BINPERSID refused"},
        {P("\x80\x02\x82\x01."), "opcode 0x82 EXT1 refused"},
        {P("\x80\x02\x83\x01\x00."), "opcode 0x83 EXT2 refused"},
        {P("\x80\x02\x84\x01\x00\x00\x00."), "opcode 0x84 EXT4 refused"},
        {P("\x80\x05\x97."), "NEXT_BUFFER refused"},
        {P("\x80\x05N\x98."), "READONLY_BUFFER refused"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CHECK_EQ_I64(load(cases[i].bytes, cases[i].n), -1);
        CHECK_CONTAINS(err.msg, cases[i].what);
        CHECK_CONTAINS(err.msg, "t.pickle: byte ");
    }
    /* the position is the opcode's: REDUCE is byte 4 */
    load(P("\x80\x02N)R."));
    CHECK_CONTAINS(err.msg, "t.pickle: byte 4: opcode 0x52 REDUCE refused: memlens never loads code named by a file");
}

TEST(refuses_other_protocols_and_unknown_opcodes)
{
    CHECK_EQ_I64(load(P("\x80\x06N.")), -1);
    CHECK_CONTAINS(err.msg, "protocol 6 is not supported");
    CHECK_EQ_I64(load(P("(I1\n.")), -1);
    CHECK_CONTAINS(err.msg, "text pickles");
    CHECK_EQ_I64(load(P("\x80\x02\xff.")), -1);
    CHECK_CONTAINS(err.msg, "byte 2: unknown pickle opcode 0xff");
}

TEST(every_truncation_fails_cleanly)
{
    static const char full[] = "\x80\x04\x95\x34\x00\x00\x00\x00\x00\x00\x00\x5d\x94\x28\x4e\x88\x89\x47\x3f\xf8\x00\x00\x00\x00\x00\x00\x29\x4b\x01\x85\x94\x4b\x01\x4b\x02\x86\x94\x4b\x01\x4b\x02\x4b\x03\x87\x94\x28\x4b\x01\x4b\x02\x4b\x03\x4b\x04\x74\x94\x8c\x02\xc3\xa9\x94\x65\x2e";
    for (size_t n = 0; n + 1 < sizeof full; n++) {
        CHECK_EQ_I64(load(full, n), -1);
        CHECK_CONTAINS(err.msg, "truncated");
    }
}

TEST(hostile_lengths_and_memo)
{
    CHECK_EQ_I64(load(P("\x80\x02X\x00\x00\xff\x7f" "abc")), -1);          /* 2 GiB string in 9 bytes */
    CHECK_CONTAINS(err.msg, "truncated");
    CHECK_EQ_I64(load(P("\x80\x04\x8d\xff\xff\xff\xff\xff\xff\xff\x7f.")), -1); /* BINUNICODE8 of 2^63 */
    CHECK_CONTAINS(err.msg, "hostile");
    CHECK_EQ_I64(load(P("\x80\x02\x8b\xff\xff\xff\xff.")), -1);          /* LONG4 negative length */
    CHECK_CONTAINS(err.msg, "negative length");
    CHECK_EQ_I64(load(P("\x80\x02Nr\xff\xff\xff\xff.")), -1);             /* memo bomb: slot 4G */
    CHECK_CONTAINS(err.msg, "memo index 4294967295 cannot occur this early");
    CHECK_EQ_I64(load(P("\x80\x02h\x03.")), -1);
    CHECK_CONTAINS(err.msg, "byte 2: memo 3 was never stored");
    CHECK_EQ_I64(load(P("\x80\x02K\x01K\x02" "e.")), -1);
    CHECK_CONTAINS(err.msg, "APPENDS without a MARK");
    CHECK_EQ_I64(load(P("\x80\x02(K\x01K\x02" "e.")), -1);
    CHECK_CONTAINS(err.msg, "APPENDS with nothing to add to");
    CHECK_EQ_I64(load(P("\x80\x02}(K\x01" "e.")), -1);
    CHECK_CONTAINS(err.msg, "APPENDS onto a dict, expected a list");
    CHECK_EQ_I64(load(P("\x80\x02}(K\x01u.")), -1);
    CHECK_CONTAINS(err.msg, "odd number");
    CHECK_EQ_I64(load(P("\x80\x02(.")), -1);
    CHECK_CONTAINS(err.msg, "STOP with an empty stack");
    CHECK_EQ_I64(load(P("\x80\x02K\x01(\x85.")), -1);                  /* TUPLE1 may not reach below a mark */
    CHECK_CONTAINS(err.msg, "TUPLE1 with 0 values");
}

TEST(deep_nesting_and_memo_bomb)
{
    /* 3 million MARKs: refused, not a crash. */
    size_t n = 3000000;
    char *b = malloc(n + 3);
    memcpy(b, "\x80\x02", 2);
    memset(b + 2, '(', n);
    b[n + 2] = '.';
    CHECK_EQ_I64(load(b, n + 3), -1);
    CHECK_CONTAINS(err.msg, "nested MARKs");
    /* 200,000 lists each inside the previous: no recursion while reading; repr is cut. */
    size_t depth = 200000, k = 0;
    b = realloc(b, depth * 2 + 8);
    b[k++] = '\x80'; b[k++] = 2;
    for (size_t i = 0; i < depth; i++) b[k++] = ']';
    for (size_t i = 1; i < depth; i++) b[k++] = 'a';
    b[k++] = '.';
    CHECK_EQ_I64(load(b, k), 0);
    CHECK_CONTAINS(text, "[[[[[[[[[[...]]]]]]]]]]");
    /* Billion laughs: 9 levels of lists of 16 references to the level below
     * (16^9 leaves): stored as 10 small lists, printed within the buffer. */
    k = 0;
    b[k++] = '\x80'; b[k++] = 2;
    b[k++] = ']'; b[k++] = 'q'; b[k++] = 0;
    for (int lvl = 1; lvl <= 9; lvl++) {
        b[k++] = ']'; b[k++] = 'q'; b[k++] = (char)lvl; b[k++] = '(';
        for (int j = 0; j < 16; j++) { b[k++] = 'h'; b[k++] = (char)(lvl - 1); }
        b[k++] = 'e';
    }
    b[k++] = '.';
    CHECK_EQ_I64(load(b, k), 0);
    CHECK_EQ_I64(ml_pvs_live_containers(st), 10);
    CHECK(strlen(text) < sizeof text);
    free(b);
}

/* The streaming hook: takes dicts that have an "action" key. */
static int take_actions(void *user, ml_pvs *s, ml_pv list, ml_pv item, ml_err *e)
{
    ml_pv v;
    if (ml_pv_dict_get(s, item, ml_intern_cstr(ml_pvs_strings(s), "action"), &v) < 0) return 0;
    (*(int *)user)++;
    return 1;
}

TEST(append_hook_streams_items_away)
{
    /* {'t': [{'action': 'a'}, {'action': 'b'}, 5]} in protocol 4, the two dicts memoised */
    int taken = 0;
    CHECK_EQ_I64(load_hook(P("\x80\x04}\x94\x8c\x01t\x94]\x94(}\x94\x8c\x06" "action\x94\x8c\x01" "a\x94s}\x94h\x04\x8c\x01" "b\x94sK\x05" "es."),
                           take_actions, &taken), 0);
    CHECK_EQ_I64(taken, 2);
    CHECK_EQ_STR(text, "{'t': [5]}");
    CHECK_EQ_I64(ml_pvs_live_containers(st), 2);   /* the two taken dicts are freed */
    /* A later memo reference to a taken item is an error, not a dangling read. */
    taken = 0;
    CHECK_EQ_I64(load_hook(P("\x80\x04]\x94(}\x94\x8c\x06" "action\x94K\x01se" "h\x01."), take_actions, &taken), -1);
    CHECK_CONTAINS(err.msg, "memo 1 names a value already streamed");
}

/* Memo slots are 32 bits; words that do not fit (big ints, containers) sit in
 * a side table, which a taken entry's slot gives back (reading as dropped). */
TEST(memo_words_that_do_not_fit_32_bits)
{
    /* [x, x, y, y, z] with x = 2**40, y = -2**40 (LONG1), z = -5, each BINPUT then BINGET */
    CHECK_EQ_I64(load(P("\x80\x02]q\x00(\x8a\x06\x00\x00\x00\x00\x00\x01q\x01h\x01\x8a\x06\x00\x00\x00\x00\x00\xffq\x02h\x02"
                        "J\xfb\xff\xff\xffq\x03h\x03" "e.")), 0);
    CHECK_EQ_STR(text, "[1099511627776, 1099511627776, -1099511627776, -1099511627776, -5, -5]");
    /* BINPUT over a slot that held a list: the slot reads as the new value */
    CHECK_EQ_I64(load(P("\x80\x02(]q\x00K\x07q\x00h\x00l.")), 0);
    CHECK_EQ_STR(text, "[[], 7, 7]");
    /* a list kept in the memo while 5000 memoised entries stream through it */
    size_t cap = 5000 * 8 + 64, k = 0;
    char *b = malloc(cap);
    memcpy(b + k, "\x80\x04}\x94\x8c\x01t\x94]\x94(", 11);
    k += 11;
    for (int i = 0; i < 5000; i++) {
        if (i == 0) {
            memcpy(b + k, "}\x94(\x8c\x06" "action\x94K\x01u", 15);
            k += 15;
        } else {
            memcpy(b + k, "}\x94(h\x04K\x01u", 8);
            k += 8;
        }
    }
    memcpy(b + k, "es\x8c\x01u\x94h\x02s.", 10); /* top['u'] = the list again (memo 2) */
    k += 10;
    int taken = 0;
    CHECK_EQ_I64(load_hook(b, k, take_actions, &taken), 0);
    CHECK_EQ_I64(taken, 5000);
    CHECK_EQ_STR(text, "{'t': [], 'u': []}");
    /* ... and a reference to a taken entry (memo 1000 + 4) after them */
    memcpy(b + k - 10, "esh\xff.", 5);
    CHECK_EQ_I64(load_hook(b, k - 5, take_actions, &taken), -1);
    CHECK_CONTAINS(err.msg, "memo 255 names a value already streamed");
    free(b);
}

TEST(set_ext_replaces_container)
{
    CHECK_EQ_I64(load(P("\x80\x04\x95\x15\x00\x00\x00\x00\x00\x00\x00\x5d\x94\x28\x5d\x94\x4b\x01\x61\x68\x01\x7d\x94\x8c\x01\x66\x94\x68\x01\x73\x65\x2e")), 0);
    ml_pv x = ml_pv_item(st, val, 0);
    ml_pv_set_ext(st, x, 42);
    uint32_t ext = 0;
    CHECK_EQ_I64(ml_pv_ext(st, ml_pv_item(st, val, 1), &ext), 0);
    CHECK_EQ_I64(ext, 42);
    CHECK_EQ_I64(ml_pv_type_of(st, x), ML_PV_EXT);
    CHECK_EQ_I64(ml_pv_len(st, x), 0);
}

TEST(sniff)
{
    CHECK_EQ_I64(ml_pickle_sniff((const unsigned char *)"\x80\x04\x95", 3), 2);
    CHECK_EQ_I64(ml_pickle_sniff((const unsigned char *)"\x80\x02}", 3), 2);
    CHECK_EQ_I64(ml_pickle_sniff((const unsigned char *)"{\"a\"", 4), 0);
    CHECK_EQ_I64(ml_pickle_sniff((const unsigned char *)"[1, 2]", 6), 0);
    /* pickles the reader refuses itself, with a message that says why */
    CHECK_EQ_I64(ml_pickle_sniff((const unsigned char *)"\x80\x09", 2), 1);
    CHECK_EQ_I64(ml_pickle_sniff((const unsigned char *)"(dp0\nVsegments\n", 15), 1);   /* protocol 0 */
    CHECK_EQ_I64(ml_pickle_sniff((const unsigned char *)"}q\x00(X\x08", 6), 1);         /* protocol 1 */
}

int main(void)
{
    RUN(protocol2_dict_list_binput);
    RUN(protocol4_frame_memoize);
    RUN(protocol5_bytearray_bytes);
    RUN(integers);
    RUN(scalars_and_tuples);
    RUN(floats_as_python_writes_them);
    RUN(list_dict_opcodes_pop_dup);
    RUN(sets);
    RUN(memo_shares_not_copies);
    RUN(long_binput_long_binget);
    RUN(invalid_utf8_replaced);
    RUN(refuses_code_opcodes);
    RUN(refuses_other_protocols_and_unknown_opcodes);
    RUN(every_truncation_fails_cleanly);
    RUN(hostile_lengths_and_memo);
    RUN(deep_nesting_and_memo_bomb);
    RUN(append_hook_streams_items_away);
    RUN(set_ext_replaces_container);
    RUN(memo_words_that_do_not_fit_32_bits);
    RUN(sniff);
    ml_pvs_free(st);
    return check_report();
}
