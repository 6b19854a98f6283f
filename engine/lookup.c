/*
 * lookup.c -- the hot path: hash the key with the kernel the snapshot chose
 * at build time, search its tokens, read the owner. No CPU checks, no
 * allocation, no locks; the snapshot is immutable.
 */
#include "snapshot_internal.h"

int placer_lookup(const placer_snapshot *s, const void *key, size_t len)
{
    if (!s || (!key && len))
        return PLACER_ENULL;
    uint64_t h = s->hash64(s->seed, key, len);
    return (int)s->owners[s->search(s->tokens, s->ntokens, h)];
}

int placer_lookup_hash(const placer_snapshot *s, uint64_t hash)
{
    if (!s)
        return PLACER_ENULL;
    return (int)s->owners[s->search(s->tokens, s->ntokens, hash)];
}

uint64_t placer_snapshot_hash(const placer_snapshot *s, const void *key, size_t len)
{
    if (!s || (!key && len))
        return 0;
    return s->hash64(s->seed, key, len);
}
