/*
 * strategy.c -- lookups, replicas and partition queries of the strategies
 * other than the ring (whose fused kernels lookup.c calls directly).
 *
 * Every strategy maps a key to a 64-bit position first (plc_position):
 * placer_hash64 of the key, or for Couchbase-hash partitions the first
 * position of the key's vBucket, so that placer_lookup(key) is always
 * placer_lookup_hash(placer_snapshot_hash(key)). Then:
 *   partitions, Maglev  slot = floor(position * n / 2^64) (one range each)
 *   jump                slot = jump(position, buckets)
 *   rendezvous          the candidate with the highest score
 * and a table strategy's owner is its table's entry for the slot.
 */
#include "alloc.h"
#include "fastrange.h"
#include "jump.h"
#include "snapshot_internal.h"
#include "validate.h"

static uint32_t couchbase_partition(const placer_snapshot *s, const void *key, size_t len)
{
    return ((s->crc32(0, key, len) >> 16) & 0x7fff) % s->table.n;
}

uint64_t plc_position(const placer_snapshot *s, const void *key, size_t len)
{
    if (s->key_hash == PLACER_HASH_COUCHBASE)
        return plc_range_start(couchbase_partition(s, key, len), s->table.n);
    return s->hash64(s->seed, key, len);
}

static uint32_t slot_of(const placer_snapshot *s, const plc_table *t, uint64_t h)
{
    if (s->strategy == PLACER_JUMP)
        return (uint32_t)plc_jump_hash(h, (int32_t)t->n);
    return plc_range_slot(h, t->n);
}

uint32_t plc_owner(const placer_snapshot *s, uint64_t h, int target)
{
    target &= s->has_target;
    switch (s->strategy) {
    case PLACER_RING:
        return s->search(target ? &s->target : &s->tree, h);
    case PLACER_RENDEZVOUS: {
        const plc_hrw_set *c = target ? &s->thrw : &s->hrw;
        return c->node[plc_hrw_winner(c, h)];
    }
    default: {
        const plc_table *t = target ? &s->ttable : &s->table;
        return t->own[(size_t)slot_of(s, t, h) * t->width];
    }
    }
}

/* Partitions: the row of slot p, holes and repeats skipped. */
static uint32_t partition_row(const plc_table *t, uint32_t p,
                              uint32_t *out, uint32_t want)
{
    uint32_t k = 0;
    for (uint32_t c = 0; c < t->width && k < want; c++) {
        uint32_t n = t->own[(size_t)p * t->width + c], seen = 0;
        for (uint32_t j = 0; j < k; j++)
            seen |= out[j] == n;
        if (n != PLC_NO_NODE && !seen)
            out[k++] = n;
    }
    return k;
}

static uint32_t distinct_zones(const placer_snapshot *s, const uint32_t *set, uint32_t k)
{
    uint32_t d = 0;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t seen = 0;
        for (uint32_t j = 0; j < i; j++)
            seen |= s->nodes[set[j]].zone_id == s->nodes[set[i]].zone_id;
        d += !seen;
    }
    return d;
}

/* Rendezvous replicas: candidates in descending score, the walk's rules
 * (zones not used yet while any remain, then any new node). */
static uint32_t hrw_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want,
                             uint32_t *zones)
{
    const plc_hrw_set *c = &s->hrw;
    if (!want)
        return *zones = 0, 0;
    out[0] = c->node[plc_hrw_winner(c, h)]; /* the owner first, however the set ranks */
    double local[256], *score = c->n <= 256 ? local : plc_malloc((size_t)c->n * sizeof *score);
    if (!score) /* out of memory: the owner alone, reported as under-replicated */
        return *zones = 1, 1;
    c->scores(c->seed, c->inv_w, c->n, h, score);
    uint32_t count = 1, nz = 1;
    for (int lap = 0; lap < 2; lap++) {
        while (count < want && (lap || nz < s->nzones)) {
            uint32_t best = UINT32_MAX;
            for (uint32_t i = 0; i < c->n; i++) {
                if (best != UINT32_MAX && !(score[i] > score[best]))
                    continue;
                uint32_t node = c->node[i], skip = 0;
                for (uint32_t j = 0; j < count; j++)
                    skip |= out[j] == node || (!lap && s->nodes[out[j]].zone_id == s->nodes[node].zone_id);
                if (!skip)
                    best = i;
            }
            if (best == UINT32_MAX)
                break;
            out[count++] = c->node[best];
            nz += !lap;
        }
    }
    if (score != local)
        plc_free(score);
    *zones = distinct_zones(s, out, count);
    return count;
}

uint32_t plc_replicas_at(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want,
                         uint32_t *zones)
{
    switch (s->strategy) {
    case PLACER_RING:
        return plc_replicas_walk(s, s->index(&s->tree, h), out, want, zones);
    case PLACER_RENDEZVOUS:
        return hrw_replicas(s, h, out, want, zones);
    case PLACER_PARTITIONS: {
        uint32_t k = partition_row(&s->table, plc_range_slot(h, s->table.n), out, want);
        *zones = distinct_zones(s, out, k);
        return k;
    }
    default:
        return plc_replicas_walk_flat(s, s->table.own, s->table.n, slot_of(s, &s->table, h), out,
                                      want, zones);
    }
}

int plc_lookup_other(const placer_snapshot *s, const void *key, size_t len)
{
    uint32_t o = s->key_hash == PLACER_HASH_COUCHBASE
                     ? s->table.own[(size_t)couchbase_partition(s, key, len) * s->table.width]
                     : plc_owner(s, s->hash64(s->seed, key, len), 0);
    return o == PLC_NO_NODE ? PLACER_ENOLIVE : (int)o;
}

#define CHUNK 32u

void plc_lookup_batch_other(const placer_snapshot *s, const void *const *keys, const size_t *lens,
                            size_t n, uint32_t *owners)
{
    if (s->key_hash == PLACER_HASH_COUCHBASE) {
        for (size_t i = 0; i < n; i++)
            owners[i] = s->table.own[(size_t)couchbase_partition(s, keys[i], lens[i]) * s->table.width];
        return;
    }
    uint64_t h[CHUNK];
    for (size_t at = 0; at < n; at += CHUNK) {
        size_t m = n - at < CHUNK ? n - at : CHUNK;
        s->hash64_batch(s->seed, keys + at, lens + at, m, h);
        plc_owner_batch_other(s, h, m, owners + at);
    }
}

void plc_owner_batch_other(const placer_snapshot *s, const uint64_t *h, size_t n, uint32_t *owners)
{
    switch (s->strategy) {
    case PLACER_PARTITIONS:
    case PLACER_MAGLEV: {
        const uint32_t *own = s->table.own, w = s->table.width, tn = s->table.n;
        for (size_t i = 0; i < n; i++)
            owners[i] = own[(size_t)plc_range_slot(h[i], tn) * w];
        break;
    }
    default:
        for (size_t i = 0; i < n; i++)
            owners[i] = plc_owner(s, h[i], 0);
    }
}

/* ---- partitions ---------------------------------------------------------- */

int placer_partition(const placer_snapshot *s, const void *key, size_t len)
{
    PLC_VALIDATE_OR_RET(s && (key || !len), PLACER_ENULL);
    PLC_VALIDATE_OR_RET(s->strategy == PLACER_PARTITIONS, PLACER_EINVAL);
    if (s->key_hash == PLACER_HASH_COUCHBASE)
        return (int)couchbase_partition(s, key, len);
    return (int)plc_range_slot(s->hash64(s->seed, key, len), s->table.n);
}

uint32_t placer_partition_count(const placer_snapshot *s)
{
    return s && s->strategy == PLACER_PARTITIONS ? s->table.n : 0;
}

uint32_t placer_partition_copies(const placer_snapshot *s)
{
    return s && s->strategy == PLACER_PARTITIONS ? s->table.width : 0;
}

int placer_partition_owner(const placer_snapshot *s, uint32_t p, uint32_t *owner,
                           uint32_t *next_owner)
{
    PLC_VALIDATE_OR_RET(s && owner && next_owner, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(s->strategy == PLACER_PARTITIONS, PLACER_EINVAL);
    PLC_VALIDATE_OR_RET(p < s->table.n, PLACER_ERANGE);
    uint32_t o = s->table.own[(size_t)p * s->table.width];
    uint32_t next = s->has_target ? s->ttable.own[(size_t)p * s->ttable.width] : o;
    if (o == PLC_NO_NODE)
        return PLACER_ENOLIVE;
    *owner = o;
    *next_owner = next == PLC_NO_NODE ? o : next;
    return 0;
}

int placer_partition_replicas(const placer_snapshot *s, uint32_t p, uint32_t *out, uint32_t want)
{
    PLC_VALIDATE_OR_RET(s && (out || !want), PLACER_ENULL);
    PLC_VALIDATE_OR_RET(s->strategy == PLACER_PARTITIONS, PLACER_EINVAL);
    PLC_VALIDATE_OR_RET(p < s->table.n, PLACER_ERANGE);
    return (int)partition_row(&s->table, p, out, want);
}

/* ---- names --------------------------------------------------------------- */

int placer_snapshot_strategy(const placer_snapshot *s)
{
    return s ? s->strategy : 0;
}

int placer_snapshot_key_hash(const placer_snapshot *s)
{
    return s ? s->key_hash : 0;
}

const char *placer_strategy_name(int strategy)
{
    switch (strategy) {
    case PLACER_RING: return "ring";
    case PLACER_PARTITIONS: return "partitions";
    case PLACER_JUMP: return "jump";
    case PLACER_RENDEZVOUS: return "rendezvous";
    case PLACER_MAGLEV: return "maglev";
    default: return NULL;
    }
}
