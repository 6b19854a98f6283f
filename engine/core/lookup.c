/*
 * lookup.c -- the hot path: hash the key with the kernel the snapshot chose
 * at build time, read the ring's line (simd/buckets.h: the owner for nearly
 * every hash, else the S+ tree's descent). No CPU checks, no allocation, no
 * locks: the snapshot is immutable.
 *
 * Batches with placer-v2 (the default hash) are one pass in the kernel
 * (simd/buckets_body.h): key i + 32 is hashed and its line prefetched while
 * key i is answered. Other hashes hash a chunk of keys into h[] through the
 * snapshot's batch hash, then look the chunk's owners up from h[]. Rings of
 * more than 65,536 nodes keep the radix directory (simd/dir.h) the same way.
 *
 * Rings without a directory (fewer than 64 tokens) call one fused kernel
 * (simd/stree_body.h) that hashes and descends: one indirect call per
 * lookup, and batches hash each group of keys straight into its lockstep
 * descent with prefetching. Strategies
 * without fused kernels (their pointers are NULL) take, right after the
 * ring's line table test, one well-predicted branch to their module's
 * single lookups, whose pointers the snapshot copied from the ops when it
 * was made (s->module_lookup, s->module_lookup_hash): one indirect call,
 * no ops table read. placer_lookup_hash tests the module's pointer first
 * (the bucket strategies answer a hash in a few dozen instructions, where
 * a second test is a visible share), laid out so that a ring's line
 * lookup falls through it: one load and one untaken branch more.
 */
#include "strategy_ops.h"
#include "validate.h"

#if defined(PLC_PLANTED_SLOWDOWN) && PLC_PLANTED_SLOWDOWN > 0
/* Only in a build configured with -Dplanted_slowdown=N (never by default):
 * N/16 idle loop iterations per key, a known slowdown that
 * bench/compare_proof.sh checks bench/compare finds. */
static void planted_spin(size_t keys)
{
    size_t spins = (keys * PLC_PLANTED_SLOWDOWN + 15) / 16;
    for (size_t i = 0; i < spins; i++)
        __asm__ volatile("");
}
#else
#define planted_spin(keys) ((void)0)
#endif

int placer_lookup(const placer_snapshot *s, const void *key, size_t len)
{
    if (!s || (!key && len))
        return PLACER_ENULL;
    planted_spin(1);
    return plc_lookup_key(s, key, len);
}

int placer_lookup_hash(const placer_snapshot *s, uint64_t hash)
{
    if (!s)
        return PLACER_ENULL;
    plc_module_hash_fn module = s->module_lookup_hash;
    if (__builtin_expect(module != NULL, 0)) /* the ring's path falls through */
        return module(s, hash);
    if (s->bkt_search)
        return (int)s->bkt_search(&s->bkt, hash);
    if (s->dir_search)
        return (int)s->dir_search(&s->dir, hash);
    return (int)s->search(&s->tree, hash); /* a ring has one of the three */
}

uint64_t placer_snapshot_hash(const placer_snapshot *s, const void *key, size_t len)
{
    if (!s || (!key && len))
        return 0;
    return plc_position(s, key, len);
}

int placer_snapshot_key_position(const placer_snapshot *s, const void *key, size_t len,
                                 uint64_t *pos)
{
    PLC_VALIDATE_OR_RET(s && pos && (key || !len), PLACER_ENULL);
    *pos = plc_position(s, key, len);
    return 0;
}

int placer_lookup_hash_batch(const placer_snapshot *s, const uint64_t *hashes, size_t n,
                             uint32_t *owners)
{
    if (!s || (n && (!hashes || !owners)))
        return PLACER_ENULL;
    if (s->bkt_search_batch)
        s->bkt_search_batch(&s->bkt, hashes, n, owners);
    else if (s->dir_search_batch)
        s->dir_search_batch(&s->dir, hashes, n, owners);
    else if (s->search_batch)
        s->search_batch(&s->tree, hashes, n, owners);
    else
        s->ops->owner_batch(s, hashes, n, owners);
    return 0;
}

int placer_lookup_batch(const placer_snapshot *s, const void *const *keys, const size_t *lens,
                        size_t n, uint32_t *owners)
{
    if (!s || (n && (!keys || !lens || !owners)))
        return PLACER_ENULL;
    planted_spin(n);
    /* Check every key before writing any owner: a bad batch changes
     * nothing. The fused kernel checks them itself, a block at a time inside
     * its pass (a batch of more than 1,024 keys: in a first pass over the
     * pointers), so they are not read twice. */
    if (s->bkt_lookup_batch)
        return s->bkt_lookup_batch(&s->bkt, s->seed, keys, lens, n, owners) ? PLACER_ENULL : 0;
    for (size_t i = 0; i < n; i++)
        if (!keys[i] && lens[i])
            return PLACER_ENULL;
    if (s->bkt_search_batch || s->dir_search_batch)
        plc_dir_lookup_batch(s, keys, lens, n, owners);
    else if (s->lookup_batch)
        s->lookup_batch(&s->tree, s->seed, keys, lens, n, owners);
    else
        s->ops->lookup_batch(s, keys, lens, n, owners);
    return 0;
}

/* Keys per chunk: hashes for two directory groups (dir_body.h), on the stack. */
#define HASH_CHUNK 64u

void plc_dir_lookup_batch(const placer_snapshot *s, const void *const *keys, const size_t *lens,
                          size_t n, uint32_t *owners)
{
    uint64_t h[HASH_CHUNK];
    for (size_t at = 0; at < n; at += HASH_CHUNK) {
        size_t m = n - at < HASH_CHUNK ? n - at : HASH_CHUNK;
        s->hash_batch(&s->hkey, keys + at, lens + at, m, h);
        if (s->bkt_search_batch)
            s->bkt_search_batch(&s->bkt, h, m, owners + at);
        else
            s->dir_search_batch(&s->dir, h, m, owners + at);
    }
}
