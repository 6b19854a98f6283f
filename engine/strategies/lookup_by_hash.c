/*
 * lookup_by_hash.c -- lookups through a position, for the modules whose
 * lookup is "owner of the key's hash" (strategy_ops.h): the key hashed by
 * the snapshot's kernels, then the module's owner call. Modules call it;
 * it calls them only through s->ops.
 */
#include "strategy_ops.h"

#define CHUNK 128u

int plc_lookup_by_hash(const placer_snapshot *s, const void *key, size_t len)
{
    uint32_t o = s->ops->owner(s, s->hash(&s->hkey, key, len), 0);
    return o == PLC_NO_NODE ? PLACER_ENOLIVE : (int)o;
}

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
