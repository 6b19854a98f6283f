/*
 * strategy_binomial.c -- BinomialHash (Coluzzi, Brocco, Antonucci, arXiv
 * 2406.19836) over jump's bucket -> node table (jump_build.c): constant
 * time, nothing stored beyond n.
 *
 * The buckets are seen as a binary tree in levels [2^j, 2^(j+1)). With E
 * the smallest 2^k - 1 >= n - 1 (the enclosing tree) and M = E >> 1 (the
 * tree below it), the paper's rules:
 *   1. b = the key's hash & E, relocated to a random place of its own
 *      level (a draw seeded by the level, so that every bucket of a level
 *      is as likely); if b < n, b is the answer;
 *   2. else up to 4 further draws in the enclosing tree: one <= M stops
 *      the search; one in (M, n) is the answer;
 *   3. else the hash & M, relocated in its level: always < n.
 * "The key's hash" is the position with its bytes swapped: its low bits
 * are then the position's top bits, so positions spread evenly over the
 * space (placer_moved_fraction's samples) spread over the buckets too,
 * while the masks still nest. Growing n inside one enclosing tree only lets keys stop earlier, at the
 * new bucket; crossing to the next tree keeps step 1's answers of the old
 * tree and step 3 gives back the old tree's step 1 (the levels' draws do
 * not depend on n): every move goes to the new bucket. Balance: near
 * uniform (step 3 favours the lower half a little when few draws land).
 */
#include "bucket_hash.h"
#include "end_buckets.h"
#include "jump_build.h"

/* A random bucket of b's level [2^j, 2^(j+1)) (b itself for 0 and 1). */
static inline uint32_t relocate(uint32_t b, uint64_t h)
{
    if (b < 2)
        return b;
    uint32_t base = 1u << (31u - (uint32_t)__builtin_clz(b));
    return base | ((uint32_t)plc_draw(h, base) & (base - 1));
}

uint32_t plc_binomial_bucket(uint64_t h, uint32_t n);
uint32_t plc_binomial_bucket(uint64_t h, uint32_t n)
{
    if (n < 2)
        return 0;
    uint32_t e = UINT32_MAX >> __builtin_clz(n - 1), m = e >> 1;
    uint32_t low = (uint32_t)__builtin_bswap64(h);
    uint32_t b = relocate(low & e, h);
    if (b < n)
        return b;
    for (uint32_t i = 0; i < 4; i++) {
        b = (uint32_t)(plc_draw(h, (uint64_t)e << 3 | i) >> 32) & e;
        if (b <= m)
            break;
        if (b < n)
            return b;
    }
    return relocate(low & m, h);
}

static uint32_t binomial_owner(const placer_snapshot *s, uint64_t h, int target)
{
    return plc_end_owner(s, h, target, plc_binomial_bucket);
}

/* placer_lookup_hash and placer_lookup: the module's own ops, so a lookup
 * is one indirect call (and the key's hash), not the owner op's too. */
static int binomial_lookup_hash(const placer_snapshot *s, uint64_t h)
{
    return plc_end_lookup_hash(s, h, plc_binomial_bucket);
}

static int binomial_lookup(const placer_snapshot *s, const void *key, size_t len)
{
    return binomial_lookup_hash(s, s->hash(&s->hkey, key, len));
}

/* Several keys in flight: step 1 for the whole chunk (straight-line), then
 * steps 2-3 for the few keys that need them. */
static void binomial_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t k,
                                 uint32_t *owners)
{
    const uint32_t *own = s->table.own, n = s->table.n;
    if (n < 2) {
        for (size_t j = 0; j < k; j++)
            owners[j] = own[0];
        return;
    }
    uint32_t e = UINT32_MAX >> __builtin_clz(n - 1);
    uint32_t b[64];
    for (size_t at = 0; at < k; at += 64) {
        size_t m = k - at < 64 ? k - at : 64;
        for (size_t j = 0; j < m; j++) {
            uint32_t x = (uint32_t)__builtin_bswap64(h[at + j]) & e;
            uint32_t base = 1u << (31u - (uint32_t)__builtin_clz(x | 1));
            uint32_t r = base | ((uint32_t)plc_draw(h[at + j], base) & (base - 1));
            b[j] = x < 2 ? x : r;
        }
        for (size_t j = 0; j < m; j++)
            owners[at + j] = own[b[j] < n ? b[j] : plc_binomial_bucket(h[at + j], n)];
    }
}

static uint32_t binomial_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out,
                                  uint32_t want, uint32_t *zones)
{
    return plc_end_replicas(s, plc_binomial_bucket(h, s->table.n), out, want, zones);
}

const plc_strategy_ops plc_binomial_ops = {
    .id = PLACER_BINOMIAL,
    .name = "binomial",
    .key_hashes = PLC_PLACER_HASHES,
    .options = PLACER_OPTION_TOKENS | PLACER_OPTION_PREVIOUS,
    .traits = PLACER_TRAIT_BUCKETS,
    .build = plc_jump_build,
    .lookup = binomial_lookup,
    .lookup_hash = binomial_lookup_hash,
    .lookup_batch = plc_lookup_batch_by_hash,
    .owner = binomial_owner,
    .owner_batch = binomial_owner_batch,
    .replicas = binomial_replicas,
    .encode_sections = plc_table_encode_sections,
    .encode_section = plc_table_encode_section,
    .decode_sections = plc_table_decode_sections,
    .decode_check = plc_end_decode_check,
    .decode_build = plc_table_decode_build,
    .token_count = plc_table_token_count,
    .token_at = plc_end_token_at,
};
