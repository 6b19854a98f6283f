/*
 * strategy_maglev.c -- Maglev's lookup table (Eisenbud et al., NSDI 2016)
 * as a strategy module: a prime number of entries, entry i owning the i-th
 * of that many equal ranges of the hash space. The build is
 * maglev_build.c's.
 */
#include "codec_decode.h"
#include "fastrange.h"
#include "maglev_build.h"
#include "prime.h"
#include "strategy_ops.h"
#include "validate.h"

static uint32_t maglev_owner(const placer_snapshot *s, uint64_t h, int target)
{
    const plc_table *t = target ? &s->ttable : &s->table;
    return t->own[(size_t)plc_range_slot(h, t->n) * t->width];
}

static uint32_t maglev_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want,
                                uint32_t *zones)
{
    return plc_replicas_walk_flat(s, s->table.own, s->table.n, plc_range_slot(h, s->table.n), out,
                                  want, zones);
}

static int maglev_decode_check_table(plc_dec *d, const placer_builder *b, const plc_sec *t,
                                     int target)
{
    uint64_t rows = t->count;
    const char *what = target ? "target table" : "table";
    if (rows > PLACER_MAX_MAGLEV_SIZE || !plc_is_prime((uint32_t)rows) || t->aux != 1 ||
        (target && rows != d->s[PLC_SEC_TABLE].count))
        return plc_dec_fail(d, PLACER_ECORRUPT, "%s: size %llu is not a prime up to %u", what,
                            (unsigned long long)rows, PLACER_MAX_MAGLEV_SIZE);
    return plc_dec_check_owners(d, b, t->p, rows, target, 0, what);
}

static int maglev_decode_check(plc_dec *d, const placer_builder *b)
{
    int err = maglev_decode_check_table(d, b, &d->s[PLC_SEC_TABLE], 0);
    if (!err && d->have[PLC_SEC_TARGET_TABLE])
        err = maglev_decode_check_table(d, b, &d->s[PLC_SEC_TARGET_TABLE], 1);
    return err;
}

static void maglev_token_at(const placer_snapshot *s, uint32_t i, uint64_t *token, uint32_t *owner)
{
    *token = plc_range_end(i, s->table.n); /* a range: its largest position */
    *owner = s->table.own[i];
}

static int maglev_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    if (b->table_size && !plc_is_prime(b->table_size))
        return plc_builder_refuse(b, "a Maglev table size of %u: not a prime (%u is the default)",
                                  b->table_size, PLACER_DEFAULT_MAGLEV_SIZE);
    return plc_maglev_build(b, epoch, out);
}

const plc_strategy_ops plc_maglev_ops = {
    .id = PLACER_MAGLEV,
    .name = "maglev",
    .key_hashes = PLC_PLACER_HASHES,
    .options = PLACER_OPTION_PARTITIONS,
    .partitions = {2, PLACER_MAX_MAGLEV_SIZE, PLACER_DEFAULT_MAGLEV_SIZE, 1, "Maglev table size"},
    .build = maglev_build,
    .lookup = plc_lookup_by_hash,
    .lookup_batch = plc_lookup_batch_by_hash,
    .owner = maglev_owner,
    .owner_batch = plc_table_range_owner_batch,
    .replicas = maglev_replicas,
    .diff_view = plc_table_diff_view,
    .encode_sections = plc_table_encode_sections,
    .encode_section = plc_table_encode_section,
    .decode_sections = plc_table_decode_sections,
    .decode_check = maglev_decode_check,
    .decode_build = plc_table_decode_build,
    .token_count = plc_table_token_count,
    .token_at = maglev_token_at,
};
