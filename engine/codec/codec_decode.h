/*
 * codec_decode.h -- the decoder's state, shared by decode.c (header,
 * section table, nodes) and each strategy's decode_check / decode_build
 * (strategy_ops.h), which read the sections they asked for.
 */
#ifndef PLC_ENGINE_CODEC_DECODE_H
#define PLC_ENGINE_CODEC_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "builder_internal.h"
#include "codec_format.h"

typedef struct plc_sec {
    uint32_t type, aux;
    uint64_t offset, length, count;
    const unsigned char *p; /* its bytes, 8-byte aligned */
} plc_sec;

typedef struct plc_dec plc_dec; /* also in strategy_ops.h (C11 allows the repeat) */

struct plc_dec {
    const unsigned char *buf;
    uint64_t total;
    uint32_t version, strategy, key_hash, nnodes, flags;
    plc_sec s[PLC_FMT_MAX_SECTIONS + 1]; /* by type */
    uint8_t have[PLC_FMT_MAX_SECTIONS + 1];
    char *why;
    size_t why_len;
};

/* Write the reason into the caller's buffer; returns err. */
int plc_dec_fail(plc_dec *d, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Owners in range and allowed in the placement (target: not draining;
 * now: not joining); `holes` allows PLACER_NO_NODE. 0 or PLACER_ECORRUPT. */
int plc_dec_check_owners(plc_dec *d, const placer_builder *b, const unsigned char *p,
                         uint64_t cells, int target, int holes, const char *what);

/* The first `cells` u32 values of a section in host order, for code that
 * copies a table whole: on a little-endian host the section's bytes in
 * place (*copy = NULL, no cost), on a big-endian one a converted copy the
 * caller frees with plc_free(*copy). NULL when that copy cannot be made. */
const uint32_t *plc_dec_u32_cells(const plc_sec *s, uint64_t cells, uint32_t **copy);
/* The same for a section of u64 values (ring tokens). */
const uint64_t *plc_dec_u64_cells(const plc_sec *s, uint64_t cells, uint64_t **copy);

#endif
