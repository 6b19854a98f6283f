/*
 * maglev_build.c -- Maglev's lookup table (Eisenbud et al., NSDI 2016,
 * section 3.4), weighted.
 *
 * Node i prefers the slots offset_i, offset_i + skip_i, offset_i +
 * 2 skip_i, ... (mod M), a permutation of the table because M is prime and
 * 1 <= skip_i < M. Nodes take turns claiming their next preferred free slot
 * until the table is full. Weights: in each round node i earns w_i / w_max
 * claims (a credit carried over between rounds), so equal weights give the
 * paper's one claim per turn and entries within one of M / N. A key's slot
 * is floor(hash * M / 2^64): one multiply and one table read per lookup.
 * Nodes take their turns in id order, so the table depends only on the
 * membership, not on the order nodes were added.
 */
#include <stdlib.h>

#include "alloc.h"
#include "builder_internal.h"
#include "maglev_build.h"
#include "named.h"

#define SKIP_SEED UINT64_C(0x9e3779b97f4a7c15)

static int fill_table(const placer_builder *b, int target, uint32_t M, uint32_t *table)
{
    uint32_t nn = b->nnodes, m = 0;
    plc_named *order = plc_malloc((size_t)nn * sizeof *order);
    uint64_t *pos = plc_malloc((size_t)nn * sizeof *pos);
    uint64_t *skip = plc_malloc((size_t)nn * sizeof *skip);
    double *credit = plc_malloc((size_t)nn * sizeof *credit);
    int err = PLACER_ENOMEM;
    if (!order || !pos || !skip || !credit)
        goto out;
    double wmax = 0;
    for (uint32_t n = 0; n < nn; n++)
        if (plc_in_placement(b->nodes[n].state, target)) {
            order[m++] = (plc_named){b->nodes[n].id, n};
            wmax = b->nodes[n].weight > wmax ? b->nodes[n].weight : wmax;
        }
    err = PLACER_ENONODES;
    if (!m)
        goto out;
    qsort(order, m, sizeof *order, plc_cmp_named);
    /* The skip's hash: the same key hash under a changed seed (or, keyed,
     * a changed secret). */
    plc_hash_key skip_key = b->eff_key;
    skip_key.seed ^= SKIP_SEED;
    skip_key.k1 ^= SKIP_SEED;
    plc_hash_fn hash;
    plc_hash_batch_fn batch_unused;
    int fused_unused;
    plc_hash_kernels(b->eff_hash, plc_kernels_get(), &hash, &batch_unused, &fused_unused);
    for (uint32_t i = 0; i < m; i++) {
        const plc_bnode *node = &b->nodes[order[i].index];
        pos[i] = hash(&b->eff_key, node->id, node->id_len) % M;
        skip[i] = hash(&skip_key, node->id, node->id_len) % (M - 1) + 1;
        credit[i] = 0;
    }
    for (uint32_t s = 0; s < M; s++)
        table[s] = PLC_NO_NODE;
    for (uint32_t filled = 0; filled < M;) {
        for (uint32_t i = 0; i < m && filled < M; i++) {
            credit[i] += b->nodes[order[i].index].weight / wmax;
            for (; credit[i] >= 1.0 && filled < M; credit[i] -= 1.0) {
                while (table[pos[i]] != PLC_NO_NODE)
                    pos[i] = pos[i] + skip[i] >= M ? pos[i] + skip[i] - M : pos[i] + skip[i];
                table[pos[i]] = order[i].index;
                filled++;
            }
        }
    }
    err = 0;
out:
    plc_free(order);
    plc_free(pos);
    plc_free(skip);
    plc_free(credit);
    return err;
}

int plc_maglev_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    uint32_t M = b->table_size ? b->table_size : PLACER_DEFAULT_MAGLEV_SIZE;
    int transition = plc_builder_in_transition(b);
    uint32_t *cur = plc_malloc((size_t)M * sizeof *cur);
    uint32_t *tgt = transition ? plc_malloc((size_t)M * sizeof *tgt) : NULL;
    int err = PLACER_ENOMEM;
    if (cur && (!transition || tgt) && !(err = fill_table(b, 0, M, cur)) &&
        (!transition || !(err = fill_table(b, 1, M, tgt))))
        err = plc_table_snapshot(b, epoch, 1, cur, M, tgt, M, out);
    plc_free(cur);
    plc_free(tgt);
    return err;
}
