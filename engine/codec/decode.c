/*
 * decode.c -- bytes to a snapshot, trusting nothing (docs/FORMAT.md).
 *
 * Order of checks: magic, version, header length, total length against
 * the buffer, the caps on counts; then the CRC-32C; then the section table
 * (types in order, the set the strategy needs, canonical offsets, lengths
 * equal to count x element size, zero padding); then every value: node
 * records and strings, tokens sorted, owners and replica entries in range
 * and in the right placement, table sizes per strategy. Only then is a
 * snapshot built, by the same code the builder uses. Length arithmetic is
 * done on 64-bit values bounded first, comparing by subtraction, so no
 * sum can wrap. A rejected input leaves nothing allocated.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "builder_internal.h"
#include "codec_decode.h"
#include "key_hashes.h"
#include "snapshot_internal.h"
#include "strategy_ops.h"
#include "validate.h"

static int check_header(plc_dec *d, size_t len)
{
    const unsigned char *b = d->buf;
    size_t magic = len < 8 ? len : 8;
    if (memcmp(b, PLC_FMT_MAGIC, magic) != 0)
        return plc_dec_fail(d, PLACER_EFORMAT, "not a placer snapshot (bad magic)");
    if (len < PLC_FMT_HEADER)
        return plc_dec_fail(d, PLACER_ETRUNC, "%zu bytes, the header alone is %u", len,
                    PLC_FMT_HEADER);
    d->version = plc_rd32(b + PLC_H_VERSION);
    if (d->version != PLC_FMT_VERSION && d->version != PLC_FMT_VERSION_1)
        return plc_dec_fail(d, PLACER_EVERSION, "format version %u (this placer reads 1 and %u)",
                    d->version, PLC_FMT_VERSION);
    if (plc_rd32(b + PLC_H_HEADER_LEN) != PLC_FMT_HEADER)
        return plc_dec_fail(d, PLACER_EFORMAT, "header length %u, expected %u",
                    plc_rd32(b + PLC_H_HEADER_LEN), PLC_FMT_HEADER);
    d->total = plc_rd64(b + PLC_H_TOTAL);
    if (d->total > len)
        return plc_dec_fail(d, PLACER_ETRUNC, "%zu bytes of the %llu its header gives", len,
                    (unsigned long long)d->total);
    if (d->total < len)
        return plc_dec_fail(d, PLACER_EFORMAT, "%llu bytes of trailing data",
                    (unsigned long long)(len - d->total));
    d->nnodes = plc_rd32(b + PLC_H_NODES);
    uint32_t k = plc_rd32(b + PLC_H_SECTIONS);
    uint32_t max_sections = d->version == PLC_FMT_VERSION_1 ? PLC_FMT_V1_MAX_SECTIONS : PLC_FMT_MAX_SECTIONS;
    if (d->nnodes > PLACER_MAX_NODES || k > max_sections)
        return plc_dec_fail(d, PLACER_ETOOMANY, "%u nodes, %u sections: past the caps", d->nnodes, k);
    if (d->total - PLC_FMT_HEADER < (uint64_t)k * PLC_FMT_ENTRY)
        return plc_dec_fail(d, PLACER_ETRUNC, "the section table does not fit");
    if (plc_fmt_crc(b, d->total) != plc_rd32(b + PLC_H_CRC))
        return plc_dec_fail(d, PLACER_ECHECKSUM, "checksum mismatch (CRC-32C)");
    d->strategy = plc_rd16(b + PLC_H_STRATEGY);
    d->key_hash = plc_rd16(b + PLC_H_KEY_HASH);
    d->flags = plc_rd32(b + PLC_H_FLAGS);
    const plc_strategy_ops *ops = plc_strategy_get((int)d->strategy);
    if (!ops)
        return plc_dec_fail(d, PLACER_ECORRUPT, "unknown strategy %u", d->strategy);
    /* Version 1 knew placer-v1 (then "placer") and Couchbase's CRC-32 only. */
    if (d->key_hash >= 64 || !plc_key_hash_get((int)d->key_hash) ||
        !(ops->key_hashes >> d->key_hash & 1) ||
        (d->version == PLC_FMT_VERSION_1 && d->key_hash > PLACER_HASH_COUCHBASE))
        return plc_dec_fail(d, PLACER_ECORRUPT, "key hash %u with strategy %u in format %u",
                            d->key_hash, d->strategy, d->version);
    if ((d->flags & ~PLC_FMT_FLAG_TRANSITION) || plc_rd32(b + PLC_H_RESERVED))
        return plc_dec_fail(d, PLACER_ECORRUPT, "unknown flags or a reserved field set");
    if (!d->nnodes)
        return plc_dec_fail(d, PLACER_ECORRUPT, "no nodes");
    return 0;
}

/* Which sections the strategy needs (bit per type), and which it may have. */
static void needed(const plc_dec *d, unsigned *must, unsigned *may)
{
    plc_strategy_get((int)d->strategy)->decode_sections(d->flags & PLC_FMT_FLAG_TRANSITION, must, may);
    *must |= 1u << PLC_SEC_NODES | 1u << PLC_SEC_STRINGS;
    if (d->key_hash == PLACER_HASH_SIPHASH13)
        *must |= 1u << PLC_SEC_SECRET;
}

static int check_sections(plc_dec *d)
{
    uint32_t k = plc_rd32(d->buf + PLC_H_SECTIONS);
    uint64_t at = plc_fmt_align(PLC_FMT_HEADER + (uint64_t)k * PLC_FMT_ENTRY);
    uint64_t end = PLC_FMT_HEADER + (uint64_t)k * PLC_FMT_ENTRY;
    unsigned must, may, seen = 0;
    needed(d, &must, &may);
    uint32_t last = 0;
    for (uint32_t i = 0; i < k; i++) {
        const unsigned char *e = d->buf + PLC_FMT_HEADER + (size_t)i * PLC_FMT_ENTRY;
        plc_sec x = {plc_rd32(e), plc_rd32(e + 4), plc_rd64(e + 8), plc_rd64(e + 16), plc_rd64(e + 24), NULL};
        if (x.type <= last || x.type > PLC_FMT_MAX_SECTIONS || !((must | may) >> x.type & 1))
            return plc_dec_fail(d, PLACER_ECORRUPT, "section %u: type %u out of order or not used by this strategy", i, x.type);
        last = x.type;
        int table = x.type == PLC_SEC_TABLE || x.type == PLC_SEC_TARGET_TABLE;
        int rep = x.type == PLC_SEC_REPLICAS;
        if ((table && (x.aux < 1 || x.aux > PLACER_MAX_REPLICAS)) ||
            /* replica sets: R in the low half, the rule (replica_rules.c) in the high */
            (rep && ((x.aux & 0xffff) < 1 || (x.aux & 0xffff) > PLACER_MAX_REPLICAS ||
                     x.aux >> 16 > PLACER_REPLICATION_NETWORK_TOPOLOGY)) || (!table && !rep && x.aux))
            return plc_dec_fail(d, PLACER_ECORRUPT, "section %u: bad width %u", i, x.aux);
        if (x.type == PLC_SEC_SECRET && x.count != PLC_FMT_SECRET_LEN)
            return plc_dec_fail(d, PLACER_ECORRUPT, "section %u: a secret of %llu bytes, not 16", i,
                                (unsigned long long)x.count);
        uint64_t cap = x.type == PLC_SEC_STRINGS ? (uint64_t)d->nnodes * 3 * PLACER_MAX_ID_LEN
                       : x.type == PLC_SEC_NODES  ? PLACER_MAX_NODES
                       : rep                       ? (uint64_t)PLACER_MAX_TOKENS * PLACER_MAX_REPLICAS
                                                   : PLACER_MAX_TOKENS;
        if (x.count > cap)
            return plc_dec_fail(d, PLACER_ETOOMANY, "section %u: %llu elements, past the cap", i,
                        (unsigned long long)x.count);
        uint64_t bytes = x.count * (table ? x.aux : 1) * plc_sec_elem(x.type); /* bounded: no wrap */
        if (x.length != bytes)
            return plc_dec_fail(d, PLACER_ECORRUPT, "section %u: %llu bytes for %llu elements", i,
                        (unsigned long long)x.length, (unsigned long long)x.count);
        if (x.offset != at)
            return plc_dec_fail(d, PLACER_ECORRUPT, "section %u: offset %llu, expected %llu", i,
                        (unsigned long long)x.offset, (unsigned long long)at);
        if (x.offset > d->total || x.length > d->total - x.offset)
            return plc_dec_fail(d, PLACER_ECORRUPT, "section %u: runs past the end", i);
        for (uint64_t z = end; z < x.offset; z++)
            if (d->buf[z])
                return plc_dec_fail(d, PLACER_ECORRUPT, "non-zero padding at byte %llu", (unsigned long long)z);
        x.p = d->buf + x.offset;
        end = x.offset + x.length;
        at = plc_fmt_align(end);
        d->s[x.type] = x;
        d->have[x.type] = 1;
        seen |= 1u << x.type;
    }
    if ((seen & must) != must)
        return plc_dec_fail(d, PLACER_ECORRUPT, "a section this strategy needs is missing");
    if (at != d->total)
        return plc_dec_fail(d, PLACER_ECORRUPT, "length %llu, the sections end at %llu",
                    (unsigned long long)d->total, (unsigned long long)at);
    for (uint64_t z = end; z < d->total; z++)
        if (d->buf[z])
            return plc_dec_fail(d, PLACER_ECORRUPT, "non-zero padding at byte %llu", (unsigned long long)z);
    if (d->s[PLC_SEC_NODES].count != d->nnodes)
        return plc_dec_fail(d, PLACER_ECORRUPT, "node table holds %llu records for %u nodes",
                    (unsigned long long)d->s[PLC_SEC_NODES].count, d->nnodes);
    return 0;
}

/* The nodes into a builder (ids, zones, addresses, datacenters, weights,
 * states); each record's NetworkTopologyStrategy factor into its dc_rf,
 * for check_factors. */
static int read_nodes(plc_dec *d, placer_builder *b)
{
    const plc_sec *nodes = &d->s[PLC_SEC_NODES], *strings = &d->s[PLC_SEC_STRINGS];
    uint64_t at = 0;
    char text[4][PLACER_MAX_ID_LEN + 1];
    for (uint32_t n = 0; n < d->nnodes; n++) {
        const unsigned char *r = nodes->p + (size_t)n * PLC_FMT_NODE;
        double w = plc_rd_double(r);
        uint32_t state = plc_rd32(r + 8), factor = plc_rd32(r + 28);
        uint32_t lens[4] = {plc_rd32(r + 12), plc_rd32(r + 16), plc_rd32(r + 20), plc_rd32(r + 24)};
        /* version 1 has no datacenters: the field was reserved */
        if (state > PLACER_NODE_DOWN || (d->version < 2 && plc_rd64(r + 24)))
            return plc_dec_fail(d, PLACER_ECORRUPT, "node %u: state %u or a reserved field set", n, state);
        for (int i = 0; i < 4; i++) {
            if (lens[i] > PLACER_MAX_ID_LEN || lens[i] > strings->count - at)
                return plc_dec_fail(d, PLACER_ECORRUPT, "node %u: string %d of %u bytes out of range", n, i, lens[i]);
            memcpy(text[i], strings->p + at, lens[i]);
            text[i][lens[i]] = '\0';
            if (memchr(text[i], '\0', lens[i]))
                return plc_dec_fail(d, PLACER_ECORRUPT, "node %u: a NUL inside string %d", n, i);
            at += lens[i];
        }
        int idx = placer_builder_add_node(b, text[0], text[1], w);
        if (idx == PLACER_ENOMEM)
            return idx;
        if (idx < 0)
            return plc_dec_fail(d, PLACER_ECORRUPT, "node %u (\"%s\"): %s", n, text[0], placer_strerror(idx));
        int err = placer_builder_set_state(b, (uint32_t)idx, (int)state);
        if (!err)
            err = placer_builder_set_address(b, (uint32_t)idx, text[2]);
        if (!err)
            err = placer_builder_set_datacenter(b, (uint32_t)idx, text[3]);
        if (err)
            return err;
        b->nodes[idx].dc_rf = factor;
    }
    if (at != strings->count)
        return plc_dec_fail(d, PLACER_ECORRUPT, "%llu unused bytes of strings",
                    (unsigned long long)(strings->count - at));
    return 0;
}

typedef struct dc_factor {
    const char *dc;
    uint32_t rf, node;
} dc_factor;

static int by_dc(const void *a, const void *b)
{
    return strcmp(((const dc_factor *)a)->dc, ((const dc_factor *)b)->dc);
}

/* NetworkTopologyStrategy's factors from the node records (FORMAT.md,
 * "Node record"): written only when the replica sets follow that rule and
 * a node names a datacenter, then equal across a datacenter's nodes; the
 * factors of the datacenters then sum to the set width R (without a named
 * datacenter, the one datacenter's factor is R). O(n log n). */
static int check_factors(plc_dec *d, placer_builder *b)
{
    const plc_sec *rep = &d->s[PLC_SEC_REPLICAS];
    int nts = d->have[PLC_SEC_REPLICAS] && rep->aux >> 16 == PLACER_REPLICATION_NETWORK_TOPOLOGY;
    uint32_t R = d->have[PLC_SEC_REPLICAS] ? rep->aux & 0xffff : 0, named = 0;
    for (uint32_t n = 0; n < b->nnodes; n++)
        named |= b->nodes[n].dc_len > 0;
    for (uint32_t n = 0; n < b->nnodes && !(nts && named); n++)
        if (b->nodes[n].dc_rf)
            return plc_dec_fail(d, PLACER_ECORRUPT, "node %u: a replication factor, but the "
                                "replica sets are not NetworkTopologyStrategy's over named "
                                "datacenters", n);
    if (!nts)
        return 0;
    int err = 0;
    if (!named) {
        if (placer_builder_set_replication(b, PLACER_REPLICATION_NETWORK_TOPOLOGY, R) ||
            plc_replication_resolve(b))
            return plc_dec_fail(d, PLACER_ECORRUPT, "replica sets of width %u", R);
        return 0;
    }
    dc_factor *f = plc_malloc((size_t)b->nnodes * sizeof *f);
    if (!f)
        return PLACER_ENOMEM;
    for (uint32_t n = 0; n < b->nnodes; n++)
        f[n] = (dc_factor){b->nodes[n].dc ? b->nodes[n].dc : "", b->nodes[n].dc_rf, n};
    qsort(f, b->nnodes, sizeof *f, by_dc);
    uint32_t replicated = 0;
    for (uint32_t i = 0; i < b->nnodes && !err; i++) {
        int first = !i || strcmp(f[i].dc, f[i - 1].dc);
        if (!first && f[i].rf != f[i - 1].rf)
            err = plc_dec_fail(d, PLACER_ECORRUPT, "node %u: replication factor %u in datacenter "
                               "\"%s\", whose node %u has %u", f[i].node, f[i].rf, f[i].dc,
                               f[i - 1].node, f[i - 1].rf);
        else if (first && f[i].rf && ++replicated > PLACER_MAX_REPLICAS)
            err = plc_dec_fail(d, PLACER_ECORRUPT, "more than %u datacenters replicated to",
                               PLACER_MAX_REPLICAS);
        else if (first && f[i].rf > PLACER_MAX_REPLICAS)
            err = plc_dec_fail(d, PLACER_ECORRUPT, "node %u: replication factor %u", f[i].node,
                               f[i].rf);
        else if (first && f[i].rf)
            err = placer_builder_set_datacenter_replication(b, f[i].dc, f[i].rf);
    }
    plc_free(f);
    if (!err && (plc_replication_resolve(b) || b->replicas != R))
        err = plc_dec_fail(d, PLACER_ECORRUPT, "replica sets of width %u; the datacenters' "
                           "factors sum to %u", R, b->replicas);
    return err;
}

int placer_snapshot_decode_ex(const void *buf, size_t len, placer_snapshot **out, char *why,
                              size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    PLC_VALIDATE_OR_RET(buf && out, PLACER_ENULL);
    plc_dec d = {.buf = buf, .why = why, .why_len = why_len};
    unsigned char *copy = NULL;
    int err = check_header(&d, len);
    if (!err && ((uintptr_t)buf & 7)) {
        /* The arrays are read in place: give them their natural alignment. */
        if (!(copy = plc_aligned_alloc(len)))
            return PLACER_ENOMEM;
        memcpy(copy, buf, len);
        d.buf = copy;
    }
    if (!err)
        err = check_sections(&d);
    placer_builder *b = NULL;
    if (!err && !(b = placer_builder_new()))
        err = PLACER_ENOMEM;
    if (!err) {
        b->strategy = (int)d.strategy;
        b->ops = plc_strategy_get(b->strategy);
        b->key_hash = (int)d.key_hash;
        b->seed = plc_rd64(d.buf + PLC_H_SEED);
        b->format_version = d.version;
        if (d.key_hash == PLACER_HASH_SIPHASH13) {
            b->has_secret = 1;
            b->secret_k0 = plc_rd64(d.s[PLC_SEC_SECRET].p);
            b->secret_k1 = plc_rd64(d.s[PLC_SEC_SECRET].p + 8);
            /* The seed of a keyed snapshot is 0: one encoding per snapshot. */
            if (b->seed)
                err = plc_dec_fail(&d, PLACER_ECORRUPT, "a keyed snapshot with a seed");
        }
        if (!err)
            err = read_nodes(&d, b);
        if (!err)
            err = check_factors(&d, b);
    }
    if (!err && plc_builder_resolve_hash(b) != 0)
        err = plc_dec_fail(&d, PLACER_ECORRUPT, "key hash %u without its secret", d.key_hash);
    const plc_strategy_ops *ops = err ? NULL : plc_strategy_get((int)d.strategy);
    if (!err)
        err = ops->decode_check(&d, b);
    /* The states and the placements agree: a node joining or draining
     * needs the target placement it is moving in (the builder always
     * writes one); a target placement needs a node moving, except where
     * the strategy allows one alone (PLACER_TRAIT_TARGET_ALONE: partitions,
     * whose imports carry Couchbase's forward map as a target). */
    int moving = err ? 0 : plc_builder_in_transition(b);
    if (!err && moving && !(d.flags & PLC_FMT_FLAG_TRANSITION))
        err = plc_dec_fail(&d, PLACER_ECORRUPT,
                           "a node is joining or draining, but no target placement follows");
    if (!err && !moving && (d.flags & PLC_FMT_FLAG_TRANSITION) &&
        !(ops->traits & PLACER_TRAIT_TARGET_ALONE))
        err = plc_dec_fail(&d, PLACER_ECORRUPT,
                           "a target placement, but no node is joining or draining");
    placer_snapshot *made = NULL;
    if (!err)
        err = ops->decode_build(&d, b, plc_rd64(d.buf + PLC_H_EPOCH), &made);
    if (!err && (err = plc_snapshot_relations(made, why, why_len)))
        placer_snapshot_free(made); /* *out stays as it was */
    else if (!err)
        *out = made;
    placer_builder_free(b);
    plc_free(copy);
    return err;
}

int placer_snapshot_decode(const void *buf, size_t len, placer_snapshot **out)
{
    return placer_snapshot_decode_ex(buf, len, out, NULL, 0);
}
