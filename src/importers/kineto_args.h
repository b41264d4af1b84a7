/*
 * kineto_args.h — the keys of a Kineto event's "args" that memlens reads,
 * declared once.  Every reader of an event's args (the token path's
 * read_args / read_trace_arg / read_own_args, the fast paths'
 * memory_args_at / trace_args_at, and the shapes they learn) looks a key up
 * here (ka_find) and does what its kind says; a key that is not here is
 * skipped (or, on a "C" event and before "ph" is known, kept as a counter
 * value).  To read a new arg, add its row: every path then reads it alike.
 *
 * Rows are sorted by key length (ka_find looks at the keys of one length
 * only; test_kineto_args checks the order).  Columns:
 *   KA_ARG(key, kind, field, where): an arg of the time side, read into
 *     trace_args.field (kineto_int.h) when the command wants the time side;
 *     where: KA_ALL, every event; KA_ALSO_SYNC, also in a cuda_sync event's
 *     own args (read_own_args); KA_SYNC, only there.
 *   KA_MEM(key, kind): an arg of a [memory] event, into event_fields (the
 *     key is also the name error messages give it).
 */
#ifndef ML_KINETO_ARGS_H
#define ML_KINETO_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* What is done with an arg's value. */
enum {
    KA_SKIP,       /* not read (no row) */
    KA_INT,        /* an integer into an int64_t field */
    KA_GROUP,      /* an integer into comm.group_size when it fits int32 and is not negative */
    KA_DIM3,       /* [x, y, z] into an int32_t[3] field */
    KA_COMPACT,    /* any value as its compact JSON text, interned (shapes, types) */
    KA_STRING,     /* a string, interned */
    KA_FLOAT,      /* a number into a float field */
    KA_NAME,       /* a string, interned, on "M" events (and before "ph" is known); else skipped */
    /* [memory] events' */
    KA_ADDR, KA_BYTES, KA_DEV_TYPE, KA_DEV_ID, KA_TOTAL_ALLOC, KA_TOTAL_RESERVED,
};
enum { KA_ALL, KA_ALSO_SYNC, KA_SYNC };

#define ML_KINETO_ARGS(KA_ARG, KA_MEM)                                   \
    KA_MEM("Addr", KA_ADDR)                                              \
    KA_ARG("grid", KA_DIM3, grid, KA_ALL)                                \
    KA_ARG("name", KA_NAME, name, KA_ALL)                                \
    KA_MEM("Bytes", KA_BYTES)                                            \
    KA_ARG("block", KA_DIM3, block, KA_ALL)                              \
    KA_ARG("bytes", KA_INT, bytes, KA_ALL)                               \
    KA_ARG("dtype", KA_STRING, comm.dtype, KA_ALL)                       \
    KA_ARG("device", KA_INT, device, KA_ALSO_SYNC)                       \
    KA_ARG("stream", KA_INT, stream, KA_ALSO_SYNC)                       \
    KA_MEM("Device Id", KA_DEV_ID)                                       \
    KA_ARG("Input Dims", KA_COMPACT, dims, KA_ALL)                       \
    KA_ARG("Input dims", KA_COMPACT, dims, KA_ALL)                       \
    KA_ARG("Input type", KA_COMPACT, types, KA_ALL)                      \
    KA_ARG("sort_index", KA_INT, sort_index, KA_ALL)                     \
    KA_ARG("Group size", KA_GROUP, comm.group_size, KA_ALL)              \
    KA_ARG("Call stack", KA_STRING, stack, KA_ALL)                       \
    KA_MEM("Device Type", KA_DEV_TYPE)                                   \
    KA_ARG("correlation", KA_INT, corr, KA_ALSO_SYNC)                    \
    KA_ARG("External id", KA_INT, ext, KA_ALSO_SYNC)                     \
    KA_ARG("external id", KA_INT, ext, KA_ALL)                           \
    KA_ARG("connection_id", KA_INT, corr, KA_ALL) /* Ascend: CANN call <-> device task */ \
    KA_ARG("In msg nelems", KA_INT, comm.in_nelems, KA_ALL)              \
    KA_ARG("Fwd thread id", KA_INT, fwd, KA_ALL)                         \
    KA_ARG("shared memory", KA_INT, smem, KA_ALL)                        \
    KA_ARG("blocks per SM", KA_FLOAT, blocks_per_sm, KA_ALL)             \
    KA_MEM("Total Reserved", KA_TOTAL_RESERVED)                          \
    KA_ARG("Out msg nelems", KA_INT, comm.out_nelems, KA_ALL)            \
    KA_ARG("wait_on_stream", KA_INT, wait_stream, KA_SYNC)               \
    KA_MEM("Total Allocated", KA_TOTAL_ALLOC)                            \
    KA_ARG("Sequence number", KA_INT, seq, KA_ALL)                       \
    KA_ARG("Collective name", KA_STRING, comm.collective, KA_ALL)        \
    KA_ARG("Python module id", KA_INT, py_module, KA_ALL)                \
    KA_ARG("registers per thread", KA_INT, regs, KA_ALL)                 \
    KA_ARG("memory bandwidth (GB/s)", KA_FLOAT, membw, KA_ALL)           \
    KA_ARG("est. achieved occupancy %", KA_FLOAT, occupancy, KA_ALL)     \
    KA_ARG("wait_on_cuda_event_record_corr_id", KA_INT, wait_corr, KA_SYNC)

typedef struct ka_key {
    const char *key;
    uint8_t len, kind, where;
    uint16_t off;                  /* KA_ARG rows: the field's offset in trace_args */
} ka_key;

#define KA_ROW_ARG(key_, kind_, field_, where_) {key_, sizeof key_ - 1, kind_, where_, offsetof(trace_args, field_)},
#define KA_ROW_MEM(key_, kind_) {key_, sizeof key_ - 1, kind_, KA_ALL, 0},
static const ka_key ka_keys[] = {ML_KINETO_ARGS(KA_ROW_ARG, KA_ROW_MEM)};
#undef KA_ROW_ARG
#undef KA_ROW_MEM
enum { KA_NKEYS = sizeof ka_keys / sizeof ka_keys[0], KA_MAXLEN = 33 };

/* Where the rows of each key length begin, and their first and last 8
 * bytes as words: built once per reader (ka_index_build), so that ka_find
 * compares two words with each row of the key's length only (near what the
 * switch on the length and compares of constant size cost before). */
typedef struct ka_index {
    uint8_t first[KA_MAXLEN + 2]; /* rows of length n: first[n] .. first[n + 1] - 1 */
    uint64_t head[KA_NKEYS], tail[KA_NKEYS]; /* keys of 8 bytes or more */
} ka_index;

static inline void ka_index_build(ka_index *x)
{
    int i = 0;
    for (int n = 0; n <= KA_MAXLEN + 1; n++) {
        while (i < KA_NKEYS && ka_keys[i].len < n) i++;
        x->first[n] = (uint8_t)i;
    }
    for (i = 0; i < KA_NKEYS; i++) {
        x->head[i] = x->tail[i] = 0;
        if (ka_keys[i].len >= 8) {
            memcpy(&x->head[i], ka_keys[i].key, 8);
            memcpy(&x->tail[i], ka_keys[i].key + ka_keys[i].len - 8, 8);
        }
    }
}

/* The row of an arg's key, or NULL. */
static inline const ka_key *ka_find(const ka_index *x, const char *key, size_t n)
{
    if (n == 0 || n > KA_MAXLEN) return NULL;
    int i = x->first[n], end = x->first[n + 1];
    if (n < 8) { /* grid, name, Addr, Bytes, block, bytes, dtype, device, stream */
        for (; i < end; i++) {
            const char *r = ka_keys[i].key;
            size_t j = 0;
            while (j < n && key[j] == r[j]) j++;
            if (j == n) return &ka_keys[i];
        }
        return NULL;
    }
    uint64_t head, tail;
    memcpy(&head, key, 8);
    memcpy(&tail, key + n - 8, 8);
    for (; i < end; i++)
        if (x->head[i] == head && x->tail[i] == tail && (n <= 16 || memcmp(key + 8, ka_keys[i].key + 8, n - 16) == 0))
            return &ka_keys[i];
    return NULL;
}

/* The 4-byte words of trace_args that an arg of kind `kind` writes (a memo
 * of args read gives them back, a word indexed by a byte). */
_Static_assert(sizeof(trace_args) <= 4 * 256, "a word of trace_args is indexed by a byte");
static inline unsigned ka_words(int kind)
{
    switch (kind) {
    case KA_INT: return sizeof(int64_t) / 4;
    case KA_DIM3: return 3 * sizeof(int32_t) / 4;
    case KA_FLOAT: return sizeof(float) / 4;
    case KA_COMPACT: return sizeof(ml_str) / 4;
    }
    return 0;
}

/* Whether the field at offset off of trace_args is an id, which every event
 * has its own of ("External id", "correlation", "Sequence number"): a memo
 * of args read does not remember it. */
static inline bool ka_is_id(size_t off)
{
    return off == offsetof(trace_args, corr) || off == offsetof(trace_args, ext) || off == offsetof(trace_args, seq);
}

/* Whether the field at offset off of trace_args is one of an op's order
 * args ("Sequence number", "Fwd thread id"), which a command that keeps no
 * op order (keep.no_op_order) leaves unread. */
static inline bool ka_is_op_order(size_t off)
{
    return off == offsetof(trace_args, seq) || off == offsetof(trace_args, fwd);
}

#endif
