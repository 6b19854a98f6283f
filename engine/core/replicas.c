/*
 * replicas.c -- replica sets of keys and positions: precomputed sets where
 * the snapshot has them (the ring's placer_builder_set_replicas), the
 * strategy's own rule (s->ops->replicas) otherwise, and the report of how
 * well a set met what was asked.
 *
 * placer_replicas only dispatches: each path is a tail call to its own
 * function, so the common ones pay no register spills for the others.
 *
 * A ring with line sets and the placer-v2 key hash (s->bkt_set) is
 * answered by the fused kernels (simd/buckets_sets_body.h) for the counts
 * the line sets hold: one indirect call a key, or a batch in one pass
 * (key i + 48 hashed and its line and line sets prefetched while key i
 * is answered); the keys they cannot answer (ties, crowded lines, padded
 * sets, nodes past the line's lanes) take their slots' per-slot sets,
 * exact: the single key's come back here, the batch's are found in the
 * pass (the line's first-token index and rank, a crowded line's tokens,
 * else the tree).
 *
 * Any other ring with the line table (s->bkt_index set: placer's ring up
 * to 65,536 nodes, whose positions are the key hash) is answered here
 * without the strategy's layers: the key hash, the slot from the key's line, then the
 * precomputed set or the walk (plc_replicas_walk_hash: with AVX-512 from
 * the key's line and the next, no slot), one call each. With
 * precomputed sets of 2 or more a set of up to 3 nodes comes from the line
 * sets (replica_lines.c): the key's rank in its line gives the owner, and
 * the rank's byte of the line sets, both addressed by the hash and
 * fetched together, the lanes of the line holding the other two; what
 * the line cannot answer takes the slot and the per-slot sets. Sets of 4
 * and 5 (a Cassandra NetworkTopologyStrategy
 * of {dc1: 3, dc2: 2}, placer_builder_set_replicas(b, 4 or 5)) come the
 * same way from the wide line sets (replica_wide.c), with any key hash:
 * the rank in generic vectors (rank_in_line), then the owner and the
 * entry beside it. placer_replicas and the batch rank keys so (no kernel
 * call a key); placer_replicas_hash of up to 3 takes the line kernel's
 * slot. Its batch
 * hashes a chunk of keys with the batch kernel, then prefetches every
 * key's line and line sets and answers; without line sets it
 * prefetches the lines and first-token indexes, finds the slots
 * (prefetching each one's leaf or per-slot set), then answers: each
 * stage's misses overlap across the chunk instead of each key waiting for
 * its own.
 */
#include <string.h>

#include "strategy_ops.h"
#include "validate.h"

/* The first want nodes of a precomputed set (the walk is greedy, so a set
 * of want is the prefix of the set of rep_r), up to its UINT32_MAX
 * padding where nodes ran out; returns how many. */
static uint32_t set_prefix(const uint32_t *set, uint32_t want, uint32_t *out)
{
    uint32_t c = 0;
    for (; c < want && set[c] != UINT32_MAX; c++)
        out[c] = set[c];
    return c;
}

/* Does the ring's own path answer s? (want >= 1 asked by the callers) */
static inline int ring_lines(const placer_snapshot *s)
{
    return s->bkt_index != NULL;
}

/* The first w (1..3) nodes of the set of rank r (< 16) in line i: the
 * owner own[r] and the nodes its line sets' byte names (replica_lines.c).
 * 1 when written, 0 when they cannot answer: a byte 0xFF, or a crowded
 * line (every owner 0xFFFF: the slot path's rank may pass 0 there). */
static inline int line_entry(const placer_snapshot *s, uint64_t i, uint32_t r, uint32_t *out,
                             uint32_t w)
{
    const plc_bkt_line *l = &s->bkt.line[i];
    const uint8_t *es = s->rep_lines + i * PLC_BKT_LANES;
    uint32_t e = es[r], owner = l->own[r];
    if (e == PLC_BKT_SET_NONE || owner == PLC_BKT_ASK_TREE)
        return 0;
    plc_bkt_set_write(l, es, r, owner, e, w, out);
    return 1;
}

/* #{suf[j] < q} of a line, as plc_bkt_rank_plain gives it, in generic
 * vectors of eight 16-bit lanes (the compiler's: SSE2 on x86-64, NEON on
 * arm64, scalar code elsewhere): two compares, the -1 lanes summed, no
 * chain of dependent loads. The plain binary search's four steps each wait
 * for the previous compare; in a single call that chain was the longest
 * part of the set's read after the hash (the paired ratio to a lookup of
 * a NetworkTopologyStrategy set of 5 fell from 1.48-1.50 to 1.28-1.31). */
typedef int16_t plc_v8i16 __attribute__((vector_size(16)));
typedef uint64_t plc_v2u64 __attribute__((vector_size(16)));
static inline uint32_t rank_in_line(const plc_bkt_line *l, int16_t q)
{
    plc_v8i16 a, b;
    memcpy(&a, l->suf, sizeof a);
    memcpy(&b, l->suf + 8, sizeof b);
    plc_v8i16 qv = {q, q, q, q, q, q, q, q};
    plc_v2u64 below = (plc_v2u64)(-((a < qv) + (b < qv))); /* lanes 0..2 */
    uint64_t t = below[0] + below[1]; /* lanes 0..4: no carry between them */
    t += t >> 32;
    t += t >> 16;
    return (uint32_t)t & 0xFFFFu; /* <= 15: lane 15 is padding */
}

/* h's set from the line sets by its rank in its line (the slot is the
 * line's base + r), found with rank_in_line: no slot, first-token index
 * or kernel call. 0 also on a tie on the line's 16 bits
 * (the tree decides the slot). */
static inline int from_rank(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t w)
{
    const plc_bkt *k = &s->bkt;
    uint64_t i = h >> k->shift;
    const plc_bkt_line *l = &k->line[i];
    int16_t q = plc_bkt_suffix(h, k->sshift);
    uint32_t r = rank_in_line(l, q); /* <= 15 */
    return l->suf[r] != q && line_entry(s, i, r, out, w);
}

/* h's set from the line sets by its slot (the line kernel's answer, ties
 * decided), for placer_replicas_hash: the line sets are already on their
 * way. */
static inline int from_slot(const placer_snapshot *s, uint64_t h, uint32_t slot, uint32_t *out,
                            uint32_t w)
{
    uint64_t i = h >> s->bkt.shift;
    uint32_t base = s->bkt.base[i];
    uint32_t r = slot >= base ? slot - base : slot + s->tree.n - base; /* wrapped past n */
    return r < PLC_BKT_LANES && line_entry(s, i, r, out, w);
}

/* h's set of w (1..5) nodes from the wide line sets (replica_wide.c) by
 * its rank in its line (rank_in_line), with lanes of 8 bits (narrow) or
 * 16: 1 when written, 0 when they cannot answer (a tie on the line's 16
 * bits, a crowded line or owner 0xFFFF, an entry whose first lane is all
 * ones). The entry's address is the line's and the rank: prefetched with
 * the line, no dependent miss on the slot. Inlined with narrow constant. */
static inline __attribute__((always_inline)) int from_wide(const placer_snapshot *s, uint64_t h,
                                                          uint32_t *out, uint32_t w,
                                                          const int narrow)
{
    const plc_bkt *k = &s->bkt;
    const uint32_t bits = narrow ? 8 : 16, lane = narrow ? 0xFFu : 0xFFFFu;
    uint64_t i = h >> k->shift;
    const unsigned char *entries =
        (const unsigned char *)s->rep_wide + i * PLC_BKT_LANES * (narrow ? 4 : 8);
    __builtin_prefetch(entries);
    const plc_bkt_line *l = &k->line[i];
    int16_t q = plc_bkt_suffix(h, k->sshift);
    uint32_t r = rank_in_line(l, q); /* <= 15 */
    uint32_t owner = l->own[r];
    uint64_t e;
    if (narrow) {
        uint32_t e32;
        memcpy(&e32, entries + 4 * r, 4);
        e = e32;
    } else {
        memcpy(&e, entries + 8 * r, 8);
    }
    if (__builtin_expect(l->suf[r] == q || owner == PLC_BKT_ASK_TREE || (e & lane) == lane, 0))
        return 0;
    out[0] = owner;
    if (__builtin_expect(w == 5, 1)) { /* the full set: no count tests */
        out[1] = (uint32_t)e & lane;
        out[2] = (uint32_t)(e >> bits) & lane;
        out[3] = (uint32_t)(e >> 2 * bits) & lane;
        out[4] = (uint32_t)(e >> 3 * bits) & lane;
        return 1;
    }
    for (uint32_t j = 1; j < w; j++, e >>= bits)
        out[j] = (uint32_t)e & lane;
    return 1;
}

/* The same for either lane width. */
static inline int from_wide_any(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t w)
{
    return s->rep_wide_lane == 1 ? from_wide(s, h, out, w, 1) : from_wide(s, h, out, w, 0);
}

/* Do the precomputed per-slot sets answer want? When it is at most their
 * width, or always under a replication rule (whose sets have rf nodes). */
static inline int sets_serve(const placer_snapshot *s, uint32_t want)
{
    return want <= s->rep_r || s->rep_rule;
}

/* How many nodes of a precomputed set want takes: a Cassandra set has rf. */
static inline uint32_t set_width(const placer_snapshot *s, uint32_t want)
{
    return want < s->rep_r ? want : s->rep_r;
}

/* Do the wide line sets serve want? Then the set has min(want, rep_r) of
 * 4 or 5 nodes (smaller wants take the narrow line sets). */
static inline int wide_serve(const placer_snapshot *s, uint32_t want)
{
    return want - 4 < s->rep_wide_span; /* 0 without wide sets */
}

/* Do the line sets serve want? Then the set has min(want, rep_r) <= 3 nodes. */
static inline int lines_serve(const placer_snapshot *s, uint32_t want)
{
    return s->rep_lines && sets_serve(s, want) && want <= 3;
}

/* The set of the ring's slot: the precomputed one when it covers want (or
 * is the snapshot's rule), else the walk. */
static inline uint32_t ring_set(const placer_snapshot *s, uint32_t slot, uint32_t *out,
                                uint32_t want)
{
    if (sets_serve(s, want)) {
        uint32_t w = set_width(s, want);
        return set_prefix(s->rep + (size_t)slot * s->rep_r, w, out);
    }
    uint32_t zones;
    return plc_replicas_walk(s, slot, out, want, &zones);
}

/* The set of h: from the line sets when they serve (fetched beside the
 * key's line: both addresses come from h), else from h's slot. */
static inline uint32_t ring_set_of(const placer_snapshot *s, uint64_t h, uint32_t *out,
                                   uint32_t want)
{
    if (wide_serve(s, want)) {
        uint32_t w = set_width(s, want);
        if (__builtin_expect(from_wide_any(s, h, out, w), 1))
            return w;
        return ring_set(s, s->bkt_index(&s->bkt, h), out, want);
    }
    if (lines_serve(s, want)) {
        __builtin_prefetch(&s->rep_lines[(h >> s->bkt.shift) * PLC_BKT_LANES]);
        uint32_t w = set_width(s, want), slot = s->bkt_index(&s->bkt, h);
        if (__builtin_expect(from_slot(s, h, slot, out, w), 1))
            return w;
        return ring_set(s, slot, out, want);
    }
    if (sets_serve(s, want))
        return ring_set(s, s->bkt_index(&s->bkt, h), out, want);
    return plc_replicas_walk_hash(s, h, out, want);
}

int placer_replicas_hash(const placer_snapshot *s, uint64_t hash, uint32_t *out, uint32_t want,
                         placer_replica_report *report)
{
    PLC_VALIDATE_OR_RET(s && (out || !want), PLACER_ENULL);
    /* the first version's size: when fields are added, older callers' size
     * stays accepted and only the fields within it are written */
    PLC_VALIDATE_OR_RET(!report || report->size >= sizeof *report, PLACER_EINVAL);
    uint32_t count = 0, zones = 0;
    if (want && ring_lines(s)) {
        count = ring_set_of(s, hash, out, want);
        if (report)
            zones = plc_distinct_zones(s, out, count);
    } else if (want && sets_serve(s, want)) { /* ring only: precomputed */
        uint32_t w = set_width(s, want);
        count = set_prefix(s->rep + (size_t)plc_slot(s, hash) * s->rep_r, w, out);
        if (report)
            zones = plc_distinct_zones(s, out, count);
    } else if (want) {
        count = plc_replicas_at(s, hash, out, want, &zones);
    }
    if (report) {
        uint32_t possible = want < s->nzones ? want : s->nzones;
        *report = (placer_replica_report){.size = report->size, .nodes = count, .zones = zones,
                                          .zones_possible = possible,
                                          .under_replicated = count < want || zones < possible};
    }
    return (int)count;
}

int placer_replicas_ex(const placer_snapshot *s, const void *key, size_t len, uint32_t *out,
                       uint32_t want, placer_replica_report *report)
{
    PLC_VALIDATE_OR_RET(s && (key || !len) && (out || !want), PLACER_ENULL);
    return placer_replicas_hash(s, plc_position(s, key, len), out, want, report);
}

/* The exact set of a key the line sets' kernels left (count 0): its
 * slot's per-slot set, or the walk. */
__attribute__((noinline)) static uint32_t exact_set(const placer_snapshot *s, const void *key,
                                                    size_t len, uint32_t *out, uint32_t want)
{
    return ring_set(s, s->bkt_index(&s->bkt, s->hash(&s->hkey, key, len)), out, want);
}

/* The exact set of a hash the wide or narrow line sets left. */
__attribute__((noinline)) static int exact_set_of(const placer_snapshot *s, uint64_t h,
                                                  uint32_t *out, uint32_t want)
{
    return (int)ring_set(s, s->bkt_index(&s->bkt, h), out, want);
}

/* placer_replicas through the fused line-set kernels (placer-v2). */
__attribute__((noinline)) static int key_set_fused(const placer_snapshot *s, const void *key,
                                                   size_t len, uint32_t *out, uint32_t want)
{
    uint32_t w = set_width(s, want);
    uint32_t c = s->bkt_set(&s->bkt, s->rep_lines, s->seed, key, len, w, out);
    if (__builtin_expect(c != 0, 1))
        return (int)c;
    return (int)exact_set(s, key, len, out, want);
}

/* placer_replicas of 4 or 5 from the wide line sets, any key hash: the
 * hash, the rank in the line and the entry beside it, inline. */
__attribute__((noinline)) static int key_set_wide(const placer_snapshot *s, const void *key,
                                                  size_t len, uint32_t *out, uint32_t want)
{
    uint64_t h = s->hash(&s->hkey, key, len);
    uint32_t w = set_width(s, want);
    if (__builtin_expect(from_wide_any(s, h, out, w), 1))
        return (int)w;
    return exact_set_of(s, h, out, want);
}

/* placer_replicas of up to 3 from the line sets with a key hash that has
 * no fused kernel (a Cassandra ring's): the hash, the rank (rank_in_line)
 * and the entry beside it, inline (no kernel call for the slot). */
__attribute__((noinline)) static int key_set_lines(const placer_snapshot *s, const void *key,
                                                   size_t len, uint32_t *out, uint32_t want)
{
    uint64_t h = s->hash(&s->hkey, key, len);
    __builtin_prefetch(&s->rep_lines[(h >> s->bkt.shift) * PLC_BKT_LANES]);
    uint32_t w = set_width(s, want);
    if (__builtin_expect(from_rank(s, h, out, w), 1))
        return (int)w;
    return exact_set_of(s, h, out, want);
}

/* Any other set of a ring with the line table. */
__attribute__((noinline)) static int key_set_ring(const placer_snapshot *s, const void *key,
                                                  size_t len, uint32_t *out, uint32_t want)
{
    return (int)ring_set_of(s, s->hash(&s->hkey, key, len), out, want);
}

/* Any other snapshot's set (or want 0): through its position. */
__attribute__((noinline)) static int key_set_other(const placer_snapshot *s, const void *key,
                                                   size_t len, uint32_t *out, uint32_t want)
{
    return placer_replicas_hash(s, plc_position(s, key, len), out, want, NULL);
}

/* A dispatcher only: every path is a tail call, so the common ones pay no
 * spills for the others. */
int placer_replicas(const placer_snapshot *s, const void *key, size_t len, uint32_t *out,
                    uint32_t want)
{
    PLC_VALIDATE_OR_RET(s && (key || !len) && (out || !want), PLACER_ENULL);
    if (__builtin_expect(s->bkt_set && want - 1 < s->rep_lines_want, 1)) /* 1 <= want <= served */
        return key_set_fused(s, key, len, out, want);
    if (wide_serve(s, want)) /* sets of 4 or 5 */
        return key_set_wide(s, key, len, out, want);
    if (lines_serve(s, want)) /* up to 3, another key hash */
        return key_set_lines(s, key, len, out, want);
    if (__builtin_expect(want && ring_lines(s), 1))
        return key_set_ring(s, key, len, out, want);
    return key_set_other(s, key, len, out, want);
}

/* The positions of m keys: the snapshot's batch hash, or the strategy's own
 * position (compat modes, partitions) one key at a time. */
static void positions(const placer_snapshot *s, const void *const *keys, const size_t *lens,
                      size_t m, uint64_t *h)
{
    if (s->ops->position) {
        for (size_t j = 0; j < m; j++)
            h[j] = s->ops->position(s, keys[j], lens[j]);
    } else {
        s->hash_batch(&s->hkey, keys, lens, m, h);
    }
}

/* Precomputed sets of m positions: every slot found and its set prefetched
 * before the first set is copied, so the chunk's misses overlap instead of
 * each key waiting for its own. */
static void precomputed_sets(const placer_snapshot *s, const uint64_t *h, size_t m,
                             uint32_t want, uint32_t *out, uint32_t *counts)
{
    const uint32_t *set[PLC_REPLICA_CHUNK];
    for (size_t j = 0; j < m; j++) {
        set[j] = s->rep + (size_t)plc_slot(s, h[j]) * s->rep_r;
        __builtin_prefetch(set[j]);
    }
    uint32_t w = set_width(s, want);
    for (size_t j = 0; j < m; j++) {
        counts[j] = set_prefix(set[j], w, out + j * want);
    }
}

/* The ring's sets of m <= PLC_REPLICA_CHUNK keys (want >= 1), in stages
 * whose misses overlap across the chunk (see the top of the file). */
static void ring_batch(const placer_snapshot *s, const void *const *keys, const size_t *lens,
                       size_t m, uint32_t want, uint32_t *out, uint32_t *counts)
{
    uint64_t h[PLC_REPLICA_CHUNK];
    uint32_t slot[PLC_REPLICA_CHUNK];
    const plc_bkt *k = &s->bkt;
    s->hash_batch(&s->hkey, keys, lens, m, h);
    if (wide_serve(s, want)) { /* the line and its entries, both from the hash */
        size_t entry = PLC_BKT_LANES * 4 * s->rep_wide_lane;
        for (size_t j = 0; j < m; j++) {
            uint64_t line = h[j] >> k->shift;
            __builtin_prefetch(&k->line[line]);
            __builtin_prefetch((const unsigned char *)s->rep_wide + line * entry);
        }
        uint32_t w = set_width(s, want);
        for (size_t j = 0; j < m; j++)
            counts[j] = from_wide_any(s, h[j], out + j * want, w)
                            ? w
                            : ring_set(s, s->bkt_index(k, h[j]), out + j * want, want);
        return;
    }
    if (lines_serve(s, want)) { /* a line and 16 bytes a key, both from its hash */
        for (size_t j = 0; j < m; j++) {
            uint64_t line = h[j] >> k->shift;
            __builtin_prefetch(&k->line[line]);
            __builtin_prefetch(&s->rep_lines[line * PLC_BKT_LANES]);
        }
        uint32_t w = set_width(s, want);
        for (size_t j = 0; j < m; j++)
            counts[j] = from_rank(s, h[j], out + j * want, w)
                            ? w
                            : ring_set(s, s->bkt_index(k, h[j]), out + j * want, want);
        return;
    }
    int precomputed = sets_serve(s, want);
    if (!precomputed && s->walk_lines) { /* the walk from the key's line and the next */
        for (size_t j = 0; j < m; j++) {
            uint64_t line = h[j] >> k->shift;
            __builtin_prefetch(&k->line[line]);
            __builtin_prefetch(&k->line[line + 1]);
            __builtin_prefetch(&k->base[line]);
        }
        for (size_t j = 0; j < m; j++)
            counts[j] = plc_replicas_walk_hash(s, h[j], out + j * want, want);
        return;
    }
    for (size_t j = 0; j < m; j++) {
        uint64_t line = h[j] >> k->shift;
        __builtin_prefetch(&k->line[line]);
        __builtin_prefetch(&k->base[line]);
    }
    for (size_t j = 0; j < m; j++) {
        slot[j] = s->bkt_index(k, h[j]);
        if (precomputed)
            __builtin_prefetch(s->rep + (size_t)slot[j] * s->rep_r);
        else
            __builtin_prefetch(&s->tree.leaves[slot[j] / PLC_STREE_LEAF]);
    }
    for (size_t j = 0; j < m; j++)
        counts[j] = ring_set(s, slot[j], out + j * want, want);
}

int placer_replicas_batch(const placer_snapshot *s, const void *const *keys, const size_t *lens,
                          size_t n, uint32_t want, uint32_t *out, uint32_t *counts)
{
    PLC_VALIDATE_OR_RET(s && (!n || (keys && lens && counts && (out || !want))), PLACER_ENULL);
    if (s->bkt_sets_batch && want - 1 < s->rep_lines_want) { /* one fused pass */
        plc_bkt_sets_job j = {.sets = s->rep_lines,
                              .rep = s->rep,
                              .seed = s->seed,
                              .w = set_width(s, want),
                              .want = want,
                              .rep_r = s->rep_r,
                              .out = out,
                              .counts = counts};
        return s->bkt_sets_batch(&s->bkt, &j, keys, lens, n) ? PLACER_ENULL : 0;
    }
    for (size_t i = 0; i < n; i++)
        PLC_VALIDATE_OR_RET(keys[i] || !lens[i], PLACER_ENULL);
    /* The same sets as placer_replicas key by key; the keys are hashed a
     * chunk at a time by the batch kernel rather than one call each. */
    uint64_t h[PLC_REPLICA_CHUNK];
    for (size_t at = 0; at < n; at += PLC_REPLICA_CHUNK) {
        size_t m = n - at < PLC_REPLICA_CHUNK ? n - at : PLC_REPLICA_CHUNK;
        if (!want) {
            for (size_t j = 0; j < m; j++)
                counts[at + j] = 0;
            continue;
        }
        if (ring_lines(s)) {
            ring_batch(s, keys + at, lens + at, m, want, out + at * want, counts + at);
            continue;
        }
        positions(s, keys + at, lens + at, m, h);
        if (sets_serve(s, want)) {
            precomputed_sets(s, h, m, want, out + at * want, counts + at);
            continue;
        }
        if (s->ops->replicas_batch) {
            s->ops->replicas_batch(s, h, m, want, out + at * want, counts + at);
            continue;
        }
        uint32_t zones;
        for (size_t j = 0; j < m; j++)
            counts[at + j] = plc_replicas_at(s, h[j], out + (at + j) * want, want, &zones);
    }
    return 0;
}
