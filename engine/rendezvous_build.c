/*
 * rendezvous_build.c -- the candidates of highest-random-weight placement:
 * every node of the placement with its seed (placer_hash64 of its id under
 * the snapshot's seed) and inverse weight, in node index order, as
 * structures of arrays that the scoring kernels (simd/rendezvous.h) stream
 * through 8 at a time, with the kernels for its weights (equal weights
 * rank without a logarithm: simd/rendezvous.h). The target's candidates
 * follow while a node joins or drains.
 */
#include "alloc.h"
#include "builder_internal.h"
#include "kernels.h"

static size_t align_up(size_t n)
{
    return (n + PLC_CACHE_LINE - 1) & ~(size_t)(PLC_CACHE_LINE - 1);
}

static uint32_t count_in(const placer_builder *b, int target)
{
    uint32_t m = 0;
    for (uint32_t n = 0; n < b->nnodes; n++)
        m += plc_in_placement(b->nodes[n].state, target);
    return m;
}

static size_t set_bytes(uint32_t m)
{
    return align_up((size_t)m * 8) * 2 + align_up((size_t)m * 4);
}

/* Lay out one placement's candidates at `at`. */
static plc_hrw_set fill_set(const placer_builder *b, int target, uint32_t m, unsigned char *at)
{
    uint64_t *seed = (uint64_t *)at;
    double *inv_w = (double *)(at + align_up((size_t)m * 8));
    uint32_t *node = (uint32_t *)(at + 2 * align_up((size_t)m * 8));
    uint32_t i = 0;
    int uniform = 1;
    for (uint32_t n = 0; n < b->nnodes; n++) {
        const plc_bnode *x = &b->nodes[n];
        if (!plc_in_placement(x->state, target))
            continue;
        seed[i] = plc_hrw_premix(placer_hash64(b->seed, x->id, x->id_len));
        inv_w[i] = 1.0 / x->weight;
        uniform &= inv_w[i] == inv_w[0];
        node[i++] = n;
    }
    const plc_kernels *k = plc_kernels_get();
    return (plc_hrw_set){seed, inv_w, node, m, uniform ? k->hrw_best_uniform : k->hrw_best,
                         uniform ? k->hrw_scores_uniform : k->hrw_scores};
}

int plc_rendezvous_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    int transition = plc_builder_in_transition(b);
    uint32_t m = count_in(b, 0), tm = transition ? count_in(b, 1) : 0;
    if (!m || (transition && !tm))
        return PLACER_ENONODES;
    unsigned char *at;
    placer_snapshot *s = plc_snapshot_new(b, set_bytes(m) + set_bytes(tm), epoch, &at);
    if (!s)
        return PLACER_ENOMEM;
    s->hrw = fill_set(b, 0, m, at);
    if (transition) {
        s->thrw = fill_set(b, 1, tm, at + set_bytes(m));
        s->has_target = 1;
    }
    s->layout_bytes = set_bytes(m) + set_bytes(tm);
    plc_node *nodes = (plc_node *)s->nodes;
    for (uint32_t i = 0; i < m; i++)
        nodes[s->hrw.node[i]].ntokens = 1;
    *out = s;
    return 0;
}
