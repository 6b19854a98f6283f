/*
 * end_buckets.c -- replicas, decoder checks and tokens of the strategies
 * with jump's contract (end_buckets.h): a table of n buckets, no holes.
 */
#include "codec_decode.h"
#include "end_buckets.h"

uint32_t plc_end_replicas(const placer_snapshot *s, uint32_t bucket, uint32_t *out, uint32_t want,
                          uint32_t *zones)
{
    return plc_replicas_walk_flat(s, s->table.own, s->table.n, bucket, out, want, zones);
}

static int check_table(plc_dec *d, const placer_builder *b, const plc_sec *t, int target)
{
    const char *what = target ? "target table" : "table";
    if (t->count < 1 || t->aux != 1)
        return plc_dec_fail(d, PLACER_ECORRUPT, "%s: %llu buckets of width %u", what,
                            (unsigned long long)t->count, t->aux);
    return plc_dec_check_owners(d, b, t->p, t->count, target, 0, what);
}

int plc_end_decode_check(plc_dec *d, const placer_builder *b)
{
    if (d->version == PLC_FMT_VERSION_1)
        return plc_dec_fail(d, PLACER_ECORRUPT, "strategy %u in format 1", d->strategy);
    int err = check_table(d, b, &d->s[PLC_SEC_TABLE], 0);
    if (!err && d->have[PLC_SEC_TARGET_TABLE])
        err = check_table(d, b, &d->s[PLC_SEC_TARGET_TABLE], 1);
    return err;
}

void plc_end_token_at(const placer_snapshot *s, uint32_t i, uint64_t *token, uint32_t *owner)
{
    *token = i;
    *owner = s->table.own[i];
}
