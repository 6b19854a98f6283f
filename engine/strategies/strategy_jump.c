/*
 * strategy_jump.c -- jump consistent hash (Lamping & Veach) over a bucket
 * -> node table, as a strategy module: a position's bucket is
 * jump(position, buckets). Owners are scattered over the whole hash space,
 * so there is no diff view (placer_moved_fraction measures moves). The
 * build is jump_build.c's.
 */
#include "codec_decode.h"
#include "jump.h"
#include "jump_build.h"
#include "kernels.h"
#include "strategy_ops.h"

/* The dispatched kernel (SSE4.1's doubles where the CPU has them), the
 * same bucket as plc_jump_hash on every machine. */
static uint32_t bucket_of(const plc_table *t, uint64_t h)
{
    return (uint32_t)plc_kernels_get()->jump(h, (int32_t)t->n);
}

static uint32_t jump_owner(const placer_snapshot *s, uint64_t h, int target)
{
    const plc_table *t = target ? &s->ttable : &s->table;
    return t->own[(size_t)bucket_of(t, h) * t->width];
}

/* placer_lookup_hash and placer_lookup: the module's own ops (the table
 * has no holes: jump_build.c closes them), one indirect call to the op and
 * one to the kernel, not the owner op's too. */
static int jump_lookup_hash(const placer_snapshot *s, uint64_t h)
{
    uint32_t o = jump_owner(s, h, 0);
    return o == PLC_NO_NODE ? PLACER_ENOLIVE : (int)o;
}

static int jump_lookup(const placer_snapshot *s, const void *key, size_t len)
{
    return jump_lookup_hash(s, s->hash(&s->hkey, key, len));
}

/* The whole batch's loops in flight (AVX2 lanes, or four scalar ones),
 * then the table. */
static void jump_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t n,
                             uint32_t *owners)
{
    const plc_table *t = &s->table;
    plc_kernels_get()->jump_batch(h, n, (int32_t)t->n, owners);
    for (size_t i = 0; i < n; i++)
        owners[i] = t->own[(size_t)owners[i] * t->width];
}

static uint32_t jump_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want,
                              uint32_t *zones)
{
    return plc_replicas_walk_flat(s, s->table.own, s->table.n, bucket_of(&s->table, h), out, want,
                                  zones);
}

static int jump_decode_check_table(plc_dec *d, const placer_builder *b, const plc_sec *t,
                                   int target)
{
    uint64_t rows = t->count;
    const char *what = target ? "target table" : "table";
    if (rows < 1 || t->aux != 1)
        return plc_dec_fail(d, PLACER_ECORRUPT, "%s: %llu buckets of width %u", what,
                            (unsigned long long)rows, t->aux);
    return plc_dec_check_owners(d, b, t->p, rows, target, 0, what);
}

static int jump_decode_check(plc_dec *d, const placer_builder *b)
{
    int err = jump_decode_check_table(d, b, &d->s[PLC_SEC_TABLE], 0);
    if (!err && d->have[PLC_SEC_TARGET_TABLE])
        err = jump_decode_check_table(d, b, &d->s[PLC_SEC_TARGET_TABLE], 1);
    return err;
}

static void jump_token_at(const placer_snapshot *s, uint32_t i, uint64_t *token, uint32_t *owner)
{
    *token = i;
    *owner = s->table.own[i];
}

const plc_strategy_ops plc_jump_ops = {
    .id = PLACER_JUMP,
    .name = "jump",
    .key_hashes = PLC_PLACER_HASHES,
    .options = PLACER_OPTION_TOKENS | PLACER_OPTION_PREVIOUS,
    .traits = PLACER_TRAIT_BUCKETS,
    .build = plc_jump_build,
    .lookup = jump_lookup,
    .lookup_hash = jump_lookup_hash,
    .lookup_batch = plc_lookup_batch_by_hash,
    .owner = jump_owner,
    .owner_batch = jump_owner_batch,
    .replicas = jump_replicas,
    .encode_sections = plc_table_encode_sections,
    .encode_section = plc_table_encode_section,
    .decode_sections = plc_table_decode_sections,
    .decode_check = jump_decode_check,
    .decode_build = plc_table_decode_build,
    .token_count = plc_table_token_count,
    .token_at = jump_token_at,
};
