/*
 * strategy_jumpback.c -- JumpBackHash (Ertl, arXiv 2403.18682) over jump's
 * bucket -> node table (jump_build.c): jump's contract, integer steps only.
 *
 * Jump hash's answer for n buckets is the largest "jump point" below n of
 * a random set of the key. JumpBackHash finds it going down instead of
 * up, one power-of-two range [2^i, 2^(i+1)) at a time, from the paper's
 * pseudorandom generator (SplitMix64 seeded with the key's position: its
 * k-th output is plc_draw(h, k)):
 *   - the first output r0 decides everything most keys need: range i has
 *     a point when bit i of (r0's low half ^ its high half) is set, and
 *     its largest point is 2^i plus the low i bits of one half of r0, the
 *     low half or the high one as the number of set range bits at or
 *     below i is even or odd (so consecutive ranges take different
 *     halves);
 *   - only in n-1's own range can that point be >= n; then the next
 *     outputs, two 32-bit halves each, masked to the range's width, are
 *     the next points down until one is below n (the answer) or one falls
 *     below the range (no more: the next lower range with its bit set
 *     answers at once).
 * Every draw is a function of the key and its index, never of n, so
 * growing n moves keys only to the new bucket and every bucket gets 1/n
 * of them. Expected cost: one mix, a count of leading zeros and a parity;
 * a further mix for the few keys whose first point is >= n.
 */
#include "bucket_hash.h"
#include "end_buckets.h"
#include "jump_build.h"
#include "kernels.h"

/* The keys whose first point m is >= n (in n-1's range, the top one):
 * the walk down it on the next outputs, then the next lower range of r0.
 * Out of line: the lookups' common path stays short. */
static __attribute__((noinline)) uint32_t walk_down(uint64_t h, uint64_t r0, uint32_t mask,
                                                    uint32_t m, uint32_t n)
{
    uint32_t lo = UINT32_C(0x80000000) >> __builtin_clz(m), top = (lo << 1) - 1;
    for (uint64_t k = 1;; k++) {
        uint64_t r = plc_draw(h, k);
        uint32_t y = (uint32_t)r & top;
        if (y < lo)
            break;
        if (y < n)
            return y;
        y = (uint32_t)(r >> 32) & top;
        if (y < lo)
            break;
        if (y < n)
            return y;
    }
    return plc_jumpback_first(r0, mask & (lo - 1));
}

static inline uint32_t jumpback_mask(uint32_t n)
{
    return UINT32_MAX >> __builtin_clz(n - 1);
}

static inline uint32_t jumpback_bucket(uint64_t h, uint32_t n)
{
    if (n <= 1)
        return 0;
    uint64_t r0 = plc_draw(h, 0);
    uint32_t mask = jumpback_mask(n), m = plc_jumpback_first(r0, mask);
    return m < n ? m : walk_down(h, r0, mask, m, n);
}

uint32_t plc_jumpback_bucket(uint64_t h, uint32_t n);
uint32_t plc_jumpback_bucket(uint64_t h, uint32_t n)
{
    return jumpback_bucket(h, n);
}

static uint32_t jumpback_owner(const placer_snapshot *s, uint64_t h, int target)
{
    return plc_end_owner(s, h, target, jumpback_bucket);
}

/* A table entry as placer_lookup_hash answers it: a predicted branch (a
 * table holds PLC_NO_NODE rarely) off the answer's latency. Compilers make
 * the plain test a select, which puts it on that latency; the empty
 * volatile asm in the rare arm keeps it a branch. */
static inline int node_or_enolive(uint32_t o)
{
    if (__builtin_expect(o == PLC_NO_NODE, 0)) {
#if defined(__GNUC__)
        __asm__ volatile("");
#endif
        return PLACER_ENOLIVE;
    }
    return (int)o;
}

/* The single lookups' rare keys (a first point m >= n, or n <= 1): the
 * walk down from the first output r0 and point m already drawn, out of
 * line and reached by a tail call, so the common path saves no register
 * and makes no call. */
static __attribute__((noinline)) int jumpback_lookup_rare(const placer_snapshot *s, uint64_t h,
                                                          uint64_t r0, uint32_t m)
{
    uint32_t n = s->table.n;
    if (n <= 1)
        return plc_end_lookup_hash(s, h, jumpback_bucket);
    return node_or_enolive(s->table.own[walk_down(h, r0, jumpback_mask(n), m, n)]);
}

/* placer_lookup_hash and placer_lookup: one mix, the first point and its
 * node, in the op the snapshot calls (one indirect call, and the key's
 * hash); one branch, on the rare keys (and n <= 1). */
static int jumpback_lookup_hash(const placer_snapshot *s, uint64_t h)
{
    uint64_t r0 = plc_draw(h, 0);
    /* range_mask: jumpback_mask(n) for n >= 2, computed when the snapshot
     * was made; for n == 1 the first point is 0 (bucket 0, the answer) or
     * 1, for n == 0 any: both >= n go the rare path's way */
    uint32_t m = plc_jumpback_first(r0, s->table.range_mask);
    if (__builtin_expect(m >= s->table.n, 0))
        return jumpback_lookup_rare(s, h, r0, m);
    return node_or_enolive(s->table.own[m]);
}

static int jumpback_lookup(const placer_snapshot *s, const void *key, size_t len)
{
    return jumpback_lookup_hash(s, s->hash(&s->hkey, key, len));
}

/* Several keys in flight: the first point of a chunk's keys from the
 * dispatched kernel (jumpback.h: eight keys a vector with AVX-512), then
 * the owners, the rare walks down (about 1 key in 40 at 1,000 buckets)
 * taken in that second pass. */
static void jumpback_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t k,
                                 uint32_t *owners)
{
    const uint32_t *own = s->table.own, n = s->table.n;
    if (n <= 1) {
        for (size_t j = 0; j < k; j++)
            owners[j] = own[0];
        return;
    }
    plc_jumpback_first_fn first = plc_kernels_get()->jumpback_first;
    uint32_t mask = jumpback_mask(n), b[256];
    for (size_t at = 0; at < k; at += 256) {
        size_t m = k - at < 256 ? k - at : 256;
        const uint64_t *hp = h + at;
        first(hp, m, mask, b);
        for (size_t j = 0; j < m; j++) {
            uint32_t x = b[j];
            if (__builtin_expect(x >= n, 0))
                x = walk_down(hp[j], plc_draw(hp[j], 0), mask, x, n);
            owners[at + j] = own[x];
        }
    }
}

static uint32_t jumpback_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out,
                                  uint32_t want, uint32_t *zones)
{
    return plc_end_replicas(s, jumpback_bucket(h, s->table.n), out, want, zones);
}

const plc_strategy_ops plc_jumpback_ops = {
    .id = PLACER_JUMPBACK,
    .name = "jumpback",
    .key_hashes = PLC_PLACER_HASHES,
    .options = PLACER_OPTION_TOKENS | PLACER_OPTION_PREVIOUS,
    .traits = PLACER_TRAIT_BUCKETS,
    .build = plc_jump_build,
    .lookup = jumpback_lookup,
    .lookup_hash = jumpback_lookup_hash,
    .lookup_batch = plc_lookup_batch_by_hash,
    .owner = jumpback_owner,
    .owner_batch = jumpback_owner_batch,
    .replicas = jumpback_replicas,
    .encode_sections = plc_table_encode_sections,
    .encode_section = plc_table_encode_section,
    .decode_sections = plc_table_decode_sections,
    .decode_check = plc_end_decode_check,
    .decode_build = plc_table_decode_build,
    .token_count = plc_table_token_count,
    .token_at = plc_end_token_at,
};
