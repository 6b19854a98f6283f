/*
 * lookup.c -- the hot path: hash the key with the kernel the snapshot chose
 * at build time, descend its S+ tree, read the owner from the leaf line the
 * descent ends in. No CPU checks, no allocation, no locks: the snapshot is
 * immutable.
 *
 * Batches hash a chunk of keys first (the hash inlined in a loop), then walk
 * the chunk down the tree in lockstep groups with prefetching (stree_body.h).
 */
#include "snapshot_internal.h"

/* Keys hashed per step of placer_lookup_batch: the hashes stay in L1. */
#define HASH_CHUNK 256u

int placer_lookup(const placer_snapshot *s, const void *key, size_t len)
{
    if (!s || (!key && len))
        return PLACER_ENULL;
    return (int)s->search(&s->tree, s->hash64(s->seed, key, len));
}

int placer_lookup_hash(const placer_snapshot *s, uint64_t hash)
{
    if (!s)
        return PLACER_ENULL;
    return (int)s->search(&s->tree, hash);
}

uint64_t placer_snapshot_hash(const placer_snapshot *s, const void *key, size_t len)
{
    if (!s || (!key && len))
        return 0;
    return s->hash64(s->seed, key, len);
}

int placer_lookup_hash_batch(const placer_snapshot *s, const uint64_t *hashes, size_t n,
                             uint32_t *owners)
{
    if (!s || (n && (!hashes || !owners)))
        return PLACER_ENULL;
    s->search_batch(&s->tree, hashes, n, owners);
    return 0;
}

int placer_lookup_batch(const placer_snapshot *s, const void *const *keys, const size_t *lens,
                        size_t n, uint32_t *owners)
{
    if (!s || (n && (!keys || !lens || !owners)))
        return PLACER_ENULL;
    /* Check every key before writing any owner: a bad batch changes nothing. */
    for (size_t i = 0; i < n; i++)
        if (!keys[i] && lens[i])
            return PLACER_ENULL;
    uint64_t h[HASH_CHUNK];
    for (size_t at = 0; at < n; at += HASH_CHUNK) {
        size_t m = n - at < HASH_CHUNK ? n - at : HASH_CHUNK;
        s->hash64_batch(s->seed, keys + at, lens + at, m, h);
        s->search_batch(&s->tree, h, m, owners + at);
    }
    return 0;
}
