/*
 * strategies.c -- the one registry of placement strategies, and the calls
 * that reach a snapshot's strategy through its operations (strategy_ops.h).
 * Adding a strategy: its module file, and one line below.
 */
#include "compat_snapshot.h"
#include "strategy_ops.h"

static const plc_strategy_ops *const registry[] = {
    [PLACER_RING] = &plc_ring_ops,
    [PLACER_PARTITIONS] = &plc_partitions_ops,
    [PLACER_JUMP] = &plc_jump_ops,
    [PLACER_RENDEZVOUS] = &plc_rendezvous_ops,
    [PLACER_MAGLEV] = &plc_maglev_ops,
    [PLACER_EMULATED] = &plc_compat_ops,
    [PLACER_MEMENTO] = &plc_memento_ops,
    [PLACER_ANCHOR] = &plc_anchor_ops,
    [PLACER_DX] = &plc_dx_ops,
    [PLACER_JUMPBACK] = &plc_jumpback_ops,
    [PLACER_BINOMIAL] = &plc_binomial_ops,
};
#define NREGISTRY (sizeof registry / sizeof registry[0])

const plc_strategy_ops *plc_strategy_get(int strategy)
{
    return strategy > 0 && (size_t)strategy < NREGISTRY ? registry[strategy] : NULL;
}

uint64_t plc_position(const placer_snapshot *s, const void *key, size_t len)
{
    if (s->ops->position)
        return s->ops->position(s, key, len);
    return s->hash(&s->hkey, key, len);
}

uint32_t plc_owner(const placer_snapshot *s, uint64_t h, int target)
{
    return s->ops->owner(s, h, target & s->has_target);
}

uint32_t plc_replicas_at(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want,
                         uint32_t *zones)
{
    return s->ops->replicas(s, h, out, want, zones);
}

int plc_lookup_unfused(const placer_snapshot *s, const void *key, size_t len)
{
    return s->ops->lookup(s, key, len);
}

int plc_lookup_by_hash(const placer_snapshot *s, const void *key, size_t len)
{
    uint32_t o = s->ops->owner(s, s->hash(&s->hkey, key, len), 0);
    return o == PLC_NO_NODE ? PLACER_ENOLIVE : (int)o;
}

#define CHUNK 32u

void plc_lookup_batch_by_hash(const placer_snapshot *s, const void *const *keys,
                              const size_t *lens, size_t n, uint32_t *owners)
{
    uint64_t h[CHUNK];
    for (size_t at = 0; at < n; at += CHUNK) {
        size_t m = n - at < CHUNK ? n - at : CHUNK;
        s->hash_batch(&s->hkey, keys + at, lens + at, m, h);
        s->ops->owner_batch(s, h, m, owners + at);
    }
}

int placer_snapshot_strategy(const placer_snapshot *s)
{
    return s ? s->strategy : 0;
}

int placer_snapshot_key_hash(const placer_snapshot *s)
{
    return s ? s->key_hash : 0;
}

const char *placer_key_hash_name(int key_hash)
{
    switch (key_hash) {
    case PLACER_HASH_PLACER_V1: return "placer-v1";
    case PLACER_HASH_COUCHBASE: return "couchbase";
    case PLACER_HASH_PLACER_V2: return "placer-v2";
    case PLACER_HASH_SIPHASH13: return "siphash13";
    default: return plc_compat_key_hash_label(key_hash);
    }
}

const char *placer_strategy_name(int strategy)
{
    const plc_strategy_ops *ops = plc_strategy_get(strategy);
    return ops ? ops->name : NULL;
}
