/*
 * table_strategy.c -- what the table strategies share (partitions, Maglev,
 * jump: an owner table of n rows, plc_table, and one for the target
 * placement): their codec sections, their snapshot from decoded sections,
 * their size, and, for the two whose slot i is the i-th of n equal ranges
 * of the hash space (partitions, Maglev), the diff view and batched owners.
 */
#include "alloc.h"
#include "codec_decode.h"
#include "compat_snapshot.h"
#include "fastrange.h"
#include "strategy_ops.h"

uint32_t plc_table_encode_sections(const placer_snapshot *s, plc_fmt_section *out)
{
    uint32_t k = 0;
    out[k++] = (plc_fmt_section){PLC_SEC_TABLE, s->table.width, s->table.n};
    if (s->has_target)
        out[k++] = (plc_fmt_section){PLC_SEC_TARGET_TABLE, s->ttable.width, s->ttable.n};
    return k;
}

void plc_table_encode_section(const placer_snapshot *s, const plc_fmt_section *sec,
                              unsigned char *p)
{
    const plc_table *t = sec->type == PLC_SEC_TABLE ? &s->table : &s->ttable;
    plc_wr32_array(p, t->own, (size_t)t->n * t->width);
}

void plc_table_decode_sections(int transition, unsigned *must, unsigned *may)
{
    *must = 1u << PLC_SEC_TABLE;
    if (transition)
        *must |= 1u << PLC_SEC_TARGET_TABLE;
    *may = 0;
}

int plc_table_decode_build(plc_dec *d, placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    const plc_sec *t = &d->s[PLC_SEC_TABLE], *tt = &d->s[PLC_SEC_TARGET_TABLE];
    uint32_t *copy = NULL, *tcopy = NULL;
    const uint32_t *cur = plc_dec_u32_cells(t, t->count * t->aux, &copy), *tgt = NULL;
    int transition = d->have[PLC_SEC_TARGET_TABLE], err = PLACER_ENOMEM;
    if (transition)
        tgt = plc_dec_u32_cells(tt, tt->count * tt->aux, &tcopy);
    if (cur && (tgt || !transition))
        err = plc_table_snapshot(b, epoch, t->aux, cur, (uint32_t)t->count, tgt,
                                 (uint32_t)tt->count, out);
    plc_free(copy);
    plc_free(tcopy);
    return err;
}

uint32_t plc_table_token_count(const placer_snapshot *s)
{
    return s->table.n;
}

void plc_table_diff_view(const placer_snapshot *s, int target, plc_diff_view *v)
{
    const plc_table *t = target ? &s->ttable : &s->table;
    *v = (plc_diff_view){NULL, t, t->n, t->own[0], 0, NULL, 0, 0, NULL, 0};
    /* Couchbase's vBucket is (crc32 >> 16 & 0x7fff) % n, Redis' slot the
     * position itself: both are tables of a program hash */
    if (s->key_hash == PLACER_HASH_COUCHBASE || s->key_hash == PLACER_HASH_REDIS)
        *v = (plc_diff_view){NULL, t, t->n, t->own[0], s->key_hash == PLACER_HASH_COUCHBASE ? 15 : 14,
                             t->own, t->n, t->width, NULL, 0};
}

void plc_table_range_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t n,
                                 uint32_t *owners)
{
    const uint32_t *own = s->table.own, w = s->table.width, tn = s->table.n;
    for (size_t i = 0; i < n; i++)
        owners[i] = own[(size_t)plc_range_slot(h[i], tn) * w];
}
