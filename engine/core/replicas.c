/*
 * replicas.c -- replica sets of keys and positions: precomputed sets where
 * the snapshot has them (the ring's placer_builder_set_replicas), the
 * strategy's own rule (s->ops->replicas) otherwise, and the report of how
 * well a set met what was asked.
 */
#include "strategy_ops.h"
#include "validate.h"

int placer_replicas_hash(const placer_snapshot *s, uint64_t hash, uint32_t *out, uint32_t want,
                         placer_replica_report *report)
{
    PLC_VALIDATE_OR_RET(s && (out || !want), PLACER_ENULL);
    /* the first version's size: when fields are added, older callers' size
     * stays accepted and only the fields within it are written */
    PLC_VALIDATE_OR_RET(!report || report->size >= sizeof *report, PLACER_EINVAL);
    uint32_t count = 0, zones = 0;
    if (want && want <= s->rep_r) { /* ring only */
        /* Precomputed: a set of want is the prefix of the set of rep_r (the
         * walk is greedy), padded with UINT32_MAX where nodes ran out. */
        const uint32_t *set = s->rep + (size_t)plc_slot(s, hash) * s->rep_r;
        for (; count < want && set[count] != UINT32_MAX; count++) {
            out[count] = set[count];
            uint32_t z = s->nodes[set[count]].zone_id, seen = 0;
            for (uint32_t j = 0; j < count; j++)
                seen |= s->nodes[out[j]].zone_id == z;
            zones += !seen;
        }
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

int placer_replicas(const placer_snapshot *s, const void *key, size_t len, uint32_t *out,
                    uint32_t want)
{
    return placer_replicas_ex(s, key, len, out, want, NULL);
}

/* Keys per chunk of a replica batch: their positions and slots on the stack. */
#define REP_CHUNK 64u

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
    const uint32_t *set[REP_CHUNK];
    for (size_t j = 0; j < m; j++) {
        set[j] = s->rep + (size_t)plc_slot(s, h[j]) * s->rep_r;
        __builtin_prefetch(set[j]);
    }
    for (size_t j = 0; j < m; j++) {
        uint32_t c = 0;
        for (; c < want && set[j][c] != UINT32_MAX; c++)
            out[j * want + c] = set[j][c];
        counts[j] = c;
    }
}

/* The ring's walks of m positions (ring_replicas: the walk from the slot
 * of each), every slot found and its leaf prefetched before the first
 * walk, so the chunk's leaf misses overlap. */
static void walk_ring(const placer_snapshot *s, const uint64_t *h, size_t m, uint32_t want,
                      uint32_t *out, uint32_t *counts)
{
    uint32_t slot[REP_CHUNK], zones;
    for (size_t j = 0; j < m; j++) {
        slot[j] = plc_slot(s, h[j]);
        __builtin_prefetch(&s->tree.leaves[slot[j] / PLC_STREE_LEAF]);
    }
    for (size_t j = 0; j < m; j++)
        counts[j] = plc_replicas_walk(s, slot[j], out + j * want, want, &zones);
}

int placer_replicas_batch(const placer_snapshot *s, const void *const *keys, const size_t *lens,
                          size_t n, uint32_t want, uint32_t *out, uint32_t *counts)
{
    PLC_VALIDATE_OR_RET(s && (!n || (keys && lens && counts && (out || !want))), PLACER_ENULL);
    for (size_t i = 0; i < n; i++)
        PLC_VALIDATE_OR_RET(keys[i] || !lens[i], PLACER_ENULL);
    /* The same sets as placer_replicas key by key; the keys are hashed a
     * chunk at a time by the batch kernel rather than one call each. */
    uint64_t h[REP_CHUNK];
    for (size_t at = 0; at < n; at += REP_CHUNK) {
        size_t m = n - at < REP_CHUNK ? n - at : REP_CHUNK;
        if (!want) {
            for (size_t j = 0; j < m; j++)
                counts[at + j] = 0;
            continue;
        }
        positions(s, keys + at, lens + at, m, h);
        if (want <= s->rep_r) {
            precomputed_sets(s, h, m, want, out + at * want, counts + at);
            continue;
        }
        uint32_t zones;
        if (s->ops->fused_stree) { /* the ring: ring_replicas, its leaves fetched first */
            walk_ring(s, h, m, want, out + at * want, counts + at);
            continue;
        }
        for (size_t j = 0; j < m; j++)
            counts[at + j] = plc_replicas_at(s, h[j], out + (at + j) * want, want, &zones);
    }
    return 0;
}
