/*
 * strategies.c -- the one registry of placement strategies, and the calls
 * that reach a snapshot's strategy through its operations (strategy_ops.h).
 * Adding a strategy: its module file, and one line below
 * (docs/ARCHITECTURE.md, "Adding a strategy"). placer_strategy_from_name,
 * placer_strategy_next and placer_strategy_describe answer from the modules'
 * ops, so membership files, the command and Python follow.
 */
#include <string.h>

#include "compat_snapshot.h"
#include "key_hashes.h"
#include "strategy_ops.h"

/* The modules (strategy_*.c), then the registry: a strategy's two lines. */
extern const plc_strategy_ops plc_ring_ops;
extern const plc_strategy_ops plc_partitions_ops;
extern const plc_strategy_ops plc_jump_ops;
extern const plc_strategy_ops plc_rendezvous_ops;
extern const plc_strategy_ops plc_maglev_ops;
extern const plc_strategy_ops plc_compat_ops;
extern const plc_strategy_ops plc_memento_ops;
extern const plc_strategy_ops plc_anchor_ops;
extern const plc_strategy_ops plc_dx_ops;
extern const plc_strategy_ops plc_jumpback_ops;
extern const plc_strategy_ops plc_binomial_ops;

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
    const plc_key_hash *row = plc_key_hash_get(key_hash);
    return row && row->name ? row->name : plc_compat_key_hash_label(key_hash);
}

const char *placer_strategy_name(int strategy)
{
    const plc_strategy_ops *ops = plc_strategy_get(strategy);
    return ops ? ops->name : NULL;
}

int placer_strategy_from_name(const char *name)
{
    if (!name)
        return PLACER_ENULL;
    for (size_t id = 1; id < NREGISTRY; id++)
        if (registry[id] && strcmp(registry[id]->name, name) == 0)
            return (int)id;
    return PLACER_EINVAL;
}

int placer_strategy_next(int id)
{
    for (size_t next = id < 0 ? 1 : (size_t)id + 1; next < NREGISTRY; next++)
        if (registry[next])
            return (int)next;
    return 0;
}

int placer_strategy_describe(int id, placer_strategy_traits *out)
{
    if (!out)
        return PLACER_ENULL;
    const plc_strategy_ops *ops = plc_strategy_get(id);
    if (!ops || out->size < PLACER_STRATEGY_TRAITS_MIN_SIZE)
        return PLACER_EINVAL;
    /* a newer caller's struct: the fields this library does not know are 0 */
    size_t size = out->size;
    memset((unsigned char *)out + sizeof out->size, 0, size - sizeof out->size);
    placer_strategy_traits t = {
        .size = size,
        .id = ops->id,
        .name = ops->name,
        .options = ops->options,
        .traits = ops->traits | (ops->diff_view ? PLACER_TRAIT_RANGES : 0),
        .key_hashes = ops->key_hashes,
        .partitions = ops->partitions,
        .capacity = ops->capacity,
    };
    memcpy(out, &t, size < sizeof t ? size : sizeof t); /* an older caller: what its size covers */
    return 0;
}
