/*
 * replicas.c -- replica sets of keys and positions: precomputed sets where
 * the snapshot has them (the ring's placer_builder_set_replicas), the
 * strategy's own rule (s->ops->replicas) otherwise, and the report of how
 * well a set met what was asked.
 */
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

int placer_replicas_hash(const placer_snapshot *s, uint64_t hash, uint32_t *out, uint32_t want,
                         placer_replica_report *report)
{
    PLC_VALIDATE_OR_RET(s && (out || !want), PLACER_ENULL);
    /* the first version's size: when fields are added, older callers' size
     * stays accepted and only the fields within it are written */
    PLC_VALIDATE_OR_RET(!report || report->size >= sizeof *report, PLACER_EINVAL);
    uint32_t count = 0, zones = 0;
    if (want && (want <= s->rep_r || s->rep_rule)) { /* ring only: precomputed */
        uint32_t w = want < s->rep_r ? want : s->rep_r; /* a Cassandra set has rf nodes */
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

int placer_replicas(const placer_snapshot *s, const void *key, size_t len, uint32_t *out,
                    uint32_t want)
{
    return placer_replicas_ex(s, key, len, out, want, NULL);
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
    uint32_t w = want < s->rep_r ? want : s->rep_r; /* a Cassandra set has rf nodes */
    for (size_t j = 0; j < m; j++) {
        counts[j] = set_prefix(set[j], w, out + j * want);
    }
}

int placer_replicas_batch(const placer_snapshot *s, const void *const *keys, const size_t *lens,
                          size_t n, uint32_t want, uint32_t *out, uint32_t *counts)
{
    PLC_VALIDATE_OR_RET(s && (!n || (keys && lens && counts && (out || !want))), PLACER_ENULL);
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
        positions(s, keys + at, lens + at, m, h);
        if (want <= s->rep_r || s->rep_rule) {
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
