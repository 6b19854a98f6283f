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

#include "alloc.h"
#include "builder_internal.h"
#include "codec_format.h"
#include "validate.h"

typedef struct sec {
    uint32_t type, aux;
    uint64_t offset, length, count;
    const unsigned char *p;
} sec;

typedef struct dec {
    const unsigned char *buf;
    uint64_t total;
    uint32_t strategy, key_hash, nnodes, flags;
    sec s[PLC_FMT_MAX_SECTIONS + 1]; /* by type */
    uint8_t have[PLC_FMT_MAX_SECTIONS + 1];
    char *why;
    size_t why_len;
} dec;

static int fail(dec *d, int err, const char *fmt, ...)
{
    if (d->why && d->why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->why, d->why_len, fmt, ap);
        va_end(ap);
    }
    return err;
}

static int check_header(dec *d, size_t len)
{
    const unsigned char *b = d->buf;
    size_t magic = len < 8 ? len : 8;
    if (memcmp(b, PLC_FMT_MAGIC, magic) != 0)
        return fail(d, PLACER_EFORMAT, "not a placer snapshot (bad magic)");
    if (len < PLC_FMT_HEADER)
        return fail(d, PLACER_ETRUNC, "truncated: %zu bytes, the header alone is %u", len,
                    PLC_FMT_HEADER);
    if (plc_rd32(b + PLC_H_VERSION) != PLC_FMT_VERSION)
        return fail(d, PLACER_EVERSION, "format version %u (this placer reads %u)",
                    plc_rd32(b + PLC_H_VERSION), PLC_FMT_VERSION);
    if (plc_rd32(b + PLC_H_HEADER_LEN) != PLC_FMT_HEADER)
        return fail(d, PLACER_EFORMAT, "header length %u, expected %u",
                    plc_rd32(b + PLC_H_HEADER_LEN), PLC_FMT_HEADER);
    d->total = plc_rd64(b + PLC_H_TOTAL);
    if (d->total > len)
        return fail(d, PLACER_ETRUNC, "truncated: %zu bytes of %llu", len,
                    (unsigned long long)d->total);
    if (d->total < len)
        return fail(d, PLACER_EFORMAT, "%llu bytes of trailing data",
                    (unsigned long long)(len - d->total));
    d->nnodes = plc_rd32(b + PLC_H_NODES);
    uint32_t k = plc_rd32(b + PLC_H_SECTIONS);
    if (d->nnodes > PLACER_MAX_NODES || k > PLC_FMT_MAX_SECTIONS)
        return fail(d, PLACER_ETOOMANY, "%u nodes, %u sections: past the caps", d->nnodes, k);
    if (d->total - PLC_FMT_HEADER < (uint64_t)k * PLC_FMT_ENTRY)
        return fail(d, PLACER_ETRUNC, "the section table does not fit");
    if (plc_fmt_crc(b, d->total) != plc_rd32(b + PLC_H_CRC))
        return fail(d, PLACER_ECHECKSUM, "checksum mismatch (CRC-32C)");
    d->strategy = plc_rd16(b + PLC_H_STRATEGY);
    d->key_hash = plc_rd16(b + PLC_H_KEY_HASH);
    d->flags = plc_rd32(b + PLC_H_FLAGS);
    if (d->strategy < PLACER_RING || d->strategy > PLACER_MAGLEV)
        return fail(d, PLACER_ECORRUPT, "unknown strategy %u", d->strategy);
    if (d->key_hash != PLACER_HASH_PLACER &&
        !(d->key_hash == PLACER_HASH_COUCHBASE && d->strategy == PLACER_PARTITIONS))
        return fail(d, PLACER_ECORRUPT, "key hash %u with strategy %u", d->key_hash, d->strategy);
    if ((d->flags & ~PLC_FMT_FLAG_TRANSITION) || plc_rd32(b + PLC_H_RESERVED))
        return fail(d, PLACER_ECORRUPT, "unknown flags or a reserved field set");
    if (!d->nnodes)
        return fail(d, PLACER_ECORRUPT, "no nodes");
    return 0;
}

/* Which sections the strategy needs (bit per type), and which it may have. */
static void needed(const dec *d, unsigned *must, unsigned *may)
{
    int tr = d->flags & PLC_FMT_FLAG_TRANSITION;
    *must = 1u << PLC_SEC_NODES | 1u << PLC_SEC_STRINGS;
    *may = 0;
    if (d->strategy == PLACER_RING) {
        *must |= 1u << PLC_SEC_TOKENS | 1u << PLC_SEC_OWNERS;
        if (tr)
            *must |= 1u << PLC_SEC_TARGET_TOKENS | 1u << PLC_SEC_TARGET_OWNERS;
        *may = 1u << PLC_SEC_REPLICAS;
    } else if (d->strategy != PLACER_RENDEZVOUS) {
        *must |= 1u << PLC_SEC_TABLE;
        if (tr)
            *must |= 1u << PLC_SEC_TARGET_TABLE;
    }
}

static int check_sections(dec *d)
{
    uint32_t k = plc_rd32(d->buf + PLC_H_SECTIONS);
    uint64_t at = plc_fmt_align(PLC_FMT_HEADER + (uint64_t)k * PLC_FMT_ENTRY);
    uint64_t end = PLC_FMT_HEADER + (uint64_t)k * PLC_FMT_ENTRY;
    unsigned must, may, seen = 0;
    needed(d, &must, &may);
    uint32_t last = 0;
    for (uint32_t i = 0; i < k; i++) {
        const unsigned char *e = d->buf + PLC_FMT_HEADER + (size_t)i * PLC_FMT_ENTRY;
        sec x = {plc_rd32(e), plc_rd32(e + 4), plc_rd64(e + 8), plc_rd64(e + 16), plc_rd64(e + 24), NULL};
        if (x.type <= last || x.type > PLC_FMT_MAX_SECTIONS || !((must | may) >> x.type & 1))
            return fail(d, PLACER_ECORRUPT, "section %u: type %u out of order or not used by this strategy", i, x.type);
        last = x.type;
        int table = x.type == PLC_SEC_TABLE || x.type == PLC_SEC_TARGET_TABLE;
        int rep = x.type == PLC_SEC_REPLICAS;
        if ((table && (x.aux < 1 || x.aux > PLACER_MAX_REPLICAS)) ||
            (rep && (x.aux < 1 || x.aux > PLACER_MAX_REPLICAS)) || (!table && !rep && x.aux))
            return fail(d, PLACER_ECORRUPT, "section %u: bad width %u", i, x.aux);
        uint64_t cap = x.type == PLC_SEC_STRINGS ? (uint64_t)d->nnodes * 3 * PLACER_MAX_ID_LEN
                       : x.type == PLC_SEC_NODES  ? PLACER_MAX_NODES
                       : rep                       ? (uint64_t)PLACER_MAX_TOKENS * PLACER_MAX_REPLICAS
                                                   : PLACER_MAX_TOKENS;
        if (x.count > cap)
            return fail(d, PLACER_ETOOMANY, "section %u: %llu elements, past the cap", i,
                        (unsigned long long)x.count);
        uint64_t bytes = x.count * (table ? x.aux : 1) * plc_sec_elem(x.type); /* bounded: no wrap */
        if (x.length != bytes)
            return fail(d, PLACER_ECORRUPT, "section %u: %llu bytes for %llu elements", i,
                        (unsigned long long)x.length, (unsigned long long)x.count);
        if (x.offset != at)
            return fail(d, PLACER_ECORRUPT, "section %u: offset %llu, expected %llu", i,
                        (unsigned long long)x.offset, (unsigned long long)at);
        if (x.offset > d->total || x.length > d->total - x.offset)
            return fail(d, PLACER_ECORRUPT, "section %u: runs past the end", i);
        for (uint64_t z = end; z < x.offset; z++)
            if (d->buf[z])
                return fail(d, PLACER_ECORRUPT, "non-zero padding at byte %llu", (unsigned long long)z);
        x.p = d->buf + x.offset;
        end = x.offset + x.length;
        at = plc_fmt_align(end);
        d->s[x.type] = x;
        d->have[x.type] = 1;
        seen |= 1u << x.type;
    }
    if ((seen & must) != must)
        return fail(d, PLACER_ECORRUPT, "a section this strategy needs is missing");
    if (at != d->total)
        return fail(d, PLACER_ECORRUPT, "length %llu, the sections end at %llu",
                    (unsigned long long)d->total, (unsigned long long)at);
    for (uint64_t z = end; z < d->total; z++)
        if (d->buf[z])
            return fail(d, PLACER_ECORRUPT, "non-zero padding at byte %llu", (unsigned long long)z);
    if (d->s[PLC_SEC_NODES].count != d->nnodes)
        return fail(d, PLACER_ECORRUPT, "node table holds %llu records for %u nodes",
                    (unsigned long long)d->s[PLC_SEC_NODES].count, d->nnodes);
    return 0;
}

/* The nodes into a builder (ids, zones, addresses, weights, states). */
static int read_nodes(dec *d, placer_builder *b)
{
    const sec *nodes = &d->s[PLC_SEC_NODES], *strings = &d->s[PLC_SEC_STRINGS];
    uint64_t at = 0;
    char text[3][PLACER_MAX_ID_LEN + 1];
    for (uint32_t n = 0; n < d->nnodes; n++) {
        const unsigned char *r = nodes->p + (size_t)n * PLC_FMT_NODE;
        double w;
        memcpy(&w, r, 8);
        uint32_t state = plc_rd32(r + 8), lens[3] = {plc_rd32(r + 12), plc_rd32(r + 16), plc_rd32(r + 20)};
        if (state > PLACER_NODE_DOWN || plc_rd64(r + 24))
            return fail(d, PLACER_ECORRUPT, "node %u: state %u or a reserved field set", n, state);
        for (int i = 0; i < 3; i++) {
            if (lens[i] > PLACER_MAX_ID_LEN || lens[i] > strings->count - at)
                return fail(d, PLACER_ECORRUPT, "node %u: string %d of %u bytes out of range", n, i, lens[i]);
            memcpy(text[i], strings->p + at, lens[i]);
            text[i][lens[i]] = '\0';
            if (memchr(text[i], '\0', lens[i]))
                return fail(d, PLACER_ECORRUPT, "node %u: a NUL inside string %d", n, i);
            at += lens[i];
        }
        int idx = placer_builder_add_node(b, text[0], text[1], w);
        if (idx == PLACER_ENOMEM)
            return idx;
        if (idx < 0)
            return fail(d, PLACER_ECORRUPT, "node %u (\"%s\"): %s", n, text[0], placer_strerror(idx));
        int err = placer_builder_set_state(b, (uint32_t)idx, (int)state);
        if (!err)
            err = placer_builder_set_address(b, (uint32_t)idx, text[2]);
        if (err)
            return err;
    }
    if (at != strings->count)
        return fail(d, PLACER_ECORRUPT, "%llu unused bytes of strings",
                    (unsigned long long)(strings->count - at));
    return 0;
}

/* Owners in range and allowed in the placement (target: not draining;
 * now: not joining); `holes` allows PLC_NO_NODE. */
static int check_owners(dec *d, const placer_builder *b, const unsigned char *p, uint64_t cells,
                        int target, int holes, const char *what)
{
    for (uint64_t i = 0; i < cells; i++) {
        uint32_t o = plc_rd32(p + 4 * i);
        if (o == PLC_NO_NODE && holes)
            continue;
        if (o >= d->nnodes)
            return fail(d, PLACER_ECORRUPT, "%s %llu: owner %u out of range", what,
                        (unsigned long long)i, o);
        if (!plc_in_placement(b->nodes[o].state, target))
            return fail(d, PLACER_ECORRUPT, "%s %llu: node %u cannot own in this placement", what,
                        (unsigned long long)i, o);
    }
    return 0;
}

static int check_tokens(dec *d, const sec *t, const sec *o, const char *what)
{
    if (!t->count || t->count != o->count)
        return fail(d, PLACER_ECORRUPT, "%s: %llu tokens, %llu owners", what,
                    (unsigned long long)t->count, (unsigned long long)o->count);
    uint64_t prev = 0;
    for (uint64_t i = 0; i < t->count; i++) {
        uint64_t v = plc_rd64(t->p + 8 * i);
        if (v < prev)
            return fail(d, PLACER_ECORRUPT, "%s: token %llu is smaller than the one before", what,
                        (unsigned long long)i);
        prev = v;
    }
    return 0;
}

static int check_replicas(dec *d, const sec *r)
{
    uint32_t R = r->aux;
    if (r->count != d->s[PLC_SEC_TOKENS].count * R)
        return fail(d, PLACER_ECORRUPT, "replica sets: %llu entries for %llu tokens of %u",
                    (unsigned long long)r->count, (unsigned long long)d->s[PLC_SEC_TOKENS].count, R);
    for (uint64_t i = 0; i < r->count; i += R) {
        const unsigned char *set = r->p + 4 * i;
        int ended = 0;
        for (uint32_t j = 0; j < R; j++) {
            uint32_t v = plc_rd32(set + 4 * j);
            int bad = ended ? v != PLC_NO_NODE : (v != PLC_NO_NODE && v >= d->nnodes) || (!j && v == PLC_NO_NODE);
            for (uint32_t x = 0; x < j && !bad && v != PLC_NO_NODE; x++)
                bad = plc_rd32(set + 4 * x) == v;
            if (bad)
                return fail(d, PLACER_ECORRUPT, "replica set %llu: bad entry %u",
                            (unsigned long long)(i / R), j);
            ended |= v == PLC_NO_NODE;
        }
    }
    return 0;
}

static int check_table(dec *d, const placer_builder *b, const sec *t, int target)
{
    uint64_t rows = t->count;
    const char *what = target ? "target table" : "table";
    switch (d->strategy) {
    case PLACER_PARTITIONS:
        if (rows < 1 || rows > PLACER_MAX_PARTITIONS ||
            (target && (rows != d->s[PLC_SEC_TABLE].count || t->aux != d->s[PLC_SEC_TABLE].aux)))
            return fail(d, PLACER_ECORRUPT, "%s: %llu partitions", what, (unsigned long long)rows);
        return check_owners(d, b, t->p, rows * t->aux, target, 1, what);
    case PLACER_MAGLEV:
        if (rows > PLACER_MAX_MAGLEV_SIZE || !plc_is_prime((uint32_t)rows) || t->aux != 1 ||
            (target && rows != d->s[PLC_SEC_TABLE].count))
            return fail(d, PLACER_ECORRUPT, "%s: size %llu is not a prime up to %u", what,
                        (unsigned long long)rows, PLACER_MAX_MAGLEV_SIZE);
        return check_owners(d, b, t->p, rows, target, 0, what);
    default: /* jump */
        if (rows < 1 || t->aux != 1)
            return fail(d, PLACER_ECORRUPT, "%s: %llu buckets of width %u", what,
                        (unsigned long long)rows, t->aux);
        return check_owners(d, b, t->p, rows, target, 0, what);
    }
}

static int check_payload(dec *d, const placer_builder *b)
{
    int err = 0;
    if (d->strategy == PLACER_RING) {
        err = check_tokens(d, &d->s[PLC_SEC_TOKENS], &d->s[PLC_SEC_OWNERS], "ring");
        if (!err)
            err = check_owners(d, b, d->s[PLC_SEC_OWNERS].p, d->s[PLC_SEC_OWNERS].count, 0, 0, "token");
        if (!err && d->have[PLC_SEC_TARGET_TOKENS])
            err = check_tokens(d, &d->s[PLC_SEC_TARGET_TOKENS], &d->s[PLC_SEC_TARGET_OWNERS], "target ring");
        if (!err && d->have[PLC_SEC_TARGET_TOKENS])
            err = check_owners(d, b, d->s[PLC_SEC_TARGET_OWNERS].p, d->s[PLC_SEC_TARGET_OWNERS].count, 1, 0, "target token");
        if (!err && d->have[PLC_SEC_REPLICAS])
            err = check_replicas(d, &d->s[PLC_SEC_REPLICAS]);
    } else if (d->strategy == PLACER_RENDEZVOUS) {
        /* Candidates follow from the states: so does the transition. */
        if (!(d->flags & PLC_FMT_FLAG_TRANSITION) != !plc_builder_in_transition(b))
            err = fail(d, PLACER_ECORRUPT, "transition flag disagrees with the node states");
    } else {
        err = check_table(d, b, &d->s[PLC_SEC_TABLE], 0);
        if (!err && d->have[PLC_SEC_TARGET_TABLE])
            err = check_table(d, b, &d->s[PLC_SEC_TARGET_TABLE], 1);
    }
    return err;
}

static int build(dec *d, placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    if (d->strategy == PLACER_RING) {
        const sec *t = &d->s[PLC_SEC_TOKENS], *o = &d->s[PLC_SEC_OWNERS];
        plc_ring_input cur = {t->p, 8, o->p, 4, (uint32_t)t->count}, tgt = {NULL, 8, NULL, 4, 0};
        if (d->have[PLC_SEC_TARGET_TOKENS]) {
            const sec *tt = &d->s[PLC_SEC_TARGET_TOKENS], *to = &d->s[PLC_SEC_TARGET_OWNERS];
            tgt = (plc_ring_input){tt->p, 8, to->p, 4, (uint32_t)tt->count};
        }
        const sec *r = &d->s[PLC_SEC_REPLICAS];
        *out = plc_ring_assemble(b, epoch, cur, tgt, d->have[PLC_SEC_REPLICAS] ? (const uint32_t *)r->p : NULL,
                                 d->have[PLC_SEC_REPLICAS] ? r->aux : 0);
        return *out ? 0 : PLACER_ENOMEM;
    }
    if (d->strategy == PLACER_RENDEZVOUS) {
        int err = plc_rendezvous_build(b, epoch, out);
        return err == PLACER_ENONODES ? fail(d, PLACER_ECORRUPT, "no node in a placement") : err;
    }
    const sec *t = &d->s[PLC_SEC_TABLE], *tt = &d->s[PLC_SEC_TARGET_TABLE];
    return plc_table_snapshot(b, epoch, t->aux, (const uint32_t *)t->p, (uint32_t)t->count,
                              d->have[PLC_SEC_TARGET_TABLE] ? (const uint32_t *)tt->p : NULL,
                              (uint32_t)tt->count, out);
}

int placer_snapshot_decode_ex(const void *buf, size_t len, placer_snapshot **out, char *why,
                              size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    PLC_VALIDATE_OR_RET(buf && out, PLACER_ENULL);
    dec d = {.buf = buf, .why = why, .why_len = why_len};
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
        b->key_hash = (int)d.key_hash;
        b->seed = plc_rd64(d.buf + PLC_H_SEED);
        err = read_nodes(&d, b);
    }
    if (!err)
        err = check_payload(&d, b);
    if (!err)
        err = build(&d, b, plc_rd64(d.buf + PLC_H_EPOCH), out);
    placer_builder_free(b);
    plc_free(copy);
    return err;
}

int placer_snapshot_decode(const void *buf, size_t len, placer_snapshot **out)
{
    return placer_snapshot_decode_ex(buf, len, out, NULL, 0);
}
