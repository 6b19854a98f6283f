/*
 * strategy_jumpback.c -- JumpBackHash (Ertl, arXiv 2403.18682) over jump's
 * bucket -> node table (jump_build.c): jump's contract, integer steps only.
 *
 * Jump hash's answer for n buckets is the largest "jump point" below n of
 * a random set J of the key: 0, and each j >= 1 with probability 1/(j+1),
 * independently. JumpBackHash finds that point going down instead of up,
 * one power-of-two range [2^i, 2^(i+1)) at a time:
 *   - a range holds a point of J with probability 1/2 (one random bit of
 *     the key per range), and then its largest point is uniform over the
 *     range;
 *   - below a point m of range i, the next point is uniform on [2^i, m)
 *     with probability 1 - 2^i/m: a draw x uniform on [0, m) is it, or
 *     says there is none when x < 2^i.
 * So: the highest range at or below n-1's whose bit is set; its largest
 * point m; if m >= n (only in n-1's own range), walk down the points of
 * that range until one is below n or none is left, then the highest lower
 * range with its bit set gives the answer at once. Every draw is a
 * function of the key and the range (and the step), never of n, so the
 * answer for n is the largest point below n of one fixed set: growing n
 * moves keys only to the new bucket, and every bucket gets 1/n of them.
 * Expected cost: one mix and a count of leading zeros, plus fewer than two
 * draws on average in n-1's range.
 */
#include "bucket_hash.h"
#include "end_buckets.h"
#include "jump_build.h"

/* The largest point of range i's points, when its bit says it has one. */
static inline uint32_t top_point(uint64_t h, uint32_t i)
{
    return (1u << i) | (uint32_t)((plc_draw(h, i) >> (63 - i)) >> 1);
}

/* The walk down range i below m, for the keys whose first point is >= n
 * (out of line: the lookups' common path stays short). */
static __attribute__((noinline)) uint32_t walk_down(uint64_t h, uint32_t i, uint32_t m, uint32_t n, uint64_t bits)
{
    uint64_t r = plc_draw(h, i);
    for (uint64_t step = 1;; step++) {
        r = plc_mix64(r + step * PLC_GOLDEN64);
        uint32_t x = plc_below(r, m);
        if (x < (1u << i))
            break;
        m = x;
        if (m < n)
            return m;
    }
    bits &= (UINT64_C(1) << i) - 1;
    if (!bits)
        return 0;
    return top_point(h, 63u - (uint32_t)__builtin_clzll(bits));
}

static inline uint32_t jumpback_bucket(uint64_t h, uint32_t n)
{
    if (n <= 1)
        return 0;
    uint32_t top = 31u - (uint32_t)__builtin_clz(n - 1);
    uint64_t bits = plc_mix64(h) & ((UINT64_C(2) << top) - 1);
    if (!bits)
        return 0;
    uint32_t i = 63u - (uint32_t)__builtin_clzll(bits);
    uint32_t m = top_point(h, i);
    return m < n ? m : walk_down(h, i, m, n, bits);
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

/* placer_lookup_hash and placer_lookup: the bucket inlined into the op the
 * snapshot calls, so a lookup is one indirect call (and the key's hash). */
static int jumpback_lookup_hash(const placer_snapshot *s, uint64_t h)
{
    return plc_end_lookup_hash(s, h, jumpback_bucket);
}

static int jumpback_lookup(const placer_snapshot *s, const void *key, size_t len)
{
    return jumpback_lookup_hash(s, s->hash(&s->hkey, key, len));
}

/* Several keys in flight: the straight-line first step of every key of
 * the chunk (no branch but the loop's, so the keys' multiplies overlap),
 * then the rare walks down. */
static void jumpback_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t k,
                                 uint32_t *owners)
{
    const uint32_t *own = s->table.own, n = s->table.n;
    if (n <= 1) {
        for (size_t j = 0; j < k; j++)
            owners[j] = own[0];
        return;
    }
    uint32_t top = 31u - (uint32_t)__builtin_clz(n - 1);
    uint64_t mask = (UINT64_C(2) << top) - 1;
    uint32_t b[64];
    for (size_t at = 0; at < k; at += 64) {
        size_t m = k - at < 64 ? k - at : 64;
        for (size_t j = 0; j < m; j++) {
            uint64_t bits = plc_mix64(h[at + j]) & mask;
            uint32_t i = 63u - (uint32_t)__builtin_clzll(bits | 1);
            uint32_t p = top_point(h[at + j], i);
            b[j] = bits ? p : 0;
        }
        for (size_t j = 0; j < m; j++) {
            if (b[j] >= n) {
                uint64_t bits = plc_mix64(h[at + j]) & mask;
                b[j] = walk_down(h[at + j], top, b[j], n, bits);
            }
            owners[at + j] = own[b[j]];
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
