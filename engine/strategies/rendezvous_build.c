/*
 * rendezvous_build.c -- the candidates of highest-random-weight placement:
 * every node of the placement with its seed (the snapshot's key hash of its
 * id) and inverse weight, in (weight, node) order, as
 * structures of arrays that the scoring kernels (simd/rendezvous.h) stream
 * through 8 at a time, with the kernels for its weights (equal weights
 * rank without a logarithm: simd/rendezvous.h). The target's candidates
 * follow while a node joins or drains.
 */
#include <stdlib.h>

#include "alloc.h"
#include "builder_internal.h"
#include "kernels.h"
#include "rendezvous_build.h"

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
    return align_up((size_t)m * 8) * 2 + align_up((size_t)m * 4) +
           align_up((PLC_HRW_MAX_CLASSES + 1) * sizeof(uint32_t));
}

typedef struct cand {
    double weight;
    uint32_t node;
} cand;

static int by_weight(const void *x, const void *y)
{
    const cand *a = x, *b = y;
    if (a->weight != b->weight)
        return a->weight < b->weight ? -1 : 1;
    return a->node < b->node ? -1 : a->node > b->node;
}

/* Lay out one placement's candidates at `at`, sorted by (weight, node),
 * with their weight classes when there are few enough to pay off (each
 * class costs a reduction and one logarithm; a candidate in the weighted
 * kernel costs about a sixteenth of that). NULL-free: out of memory for
 * the sort, the candidates stay in node order with no classes. */
static plc_hrw_set fill_set(const placer_builder *b, int target, uint32_t m, unsigned char *at)
{
    uint64_t *seed = (uint64_t *)at;
    double *inv_w = (double *)(at + align_up((size_t)m * 8));
    uint32_t *node = (uint32_t *)(at + 2 * align_up((size_t)m * 8));
    uint32_t *cls = (uint32_t *)(at + 2 * align_up((size_t)m * 8) + align_up((size_t)m * 4));
    cand *order = plc_malloc((size_t)m * sizeof *order);
    uint32_t i = 0;
    for (uint32_t n = 0; n < b->nnodes; n++)
        if (plc_in_placement(b->nodes[n].state, target)) {
            if (order)
                order[i] = (cand){b->nodes[n].weight, n};
            node[i++] = n;
        }
    if (order) {
        qsort(order, m, sizeof *order, by_weight);
        for (i = 0; i < m; i++)
            node[i] = order[i].node;
    }
    plc_free(order);
    uint32_t nclasses = 0, largest = 0, start = 0;
    for (i = 0; i < m; i++) {
        const plc_bnode *x = &b->nodes[node[i]];
        seed[i] = plc_hrw_premix(plc_builder_hash(b, x->id, x->id_len));
        inv_w[i] = 1.0 / x->weight;
        if (!i || inv_w[i] != inv_w[i - 1]) {
            if (nclasses < PLC_HRW_MAX_CLASSES)
                cls[nclasses] = i;
            if (i && i - start > largest)
                largest = i - start;
            start = i;
            nclasses++;
        }
    }
    largest = m - start > largest ? m - start : largest;
    const plc_kernels *k = plc_kernels_get();
    int uniform = nclasses == 1;
    plc_hrw_set set = {seed, inv_w, node, m, uniform ? k->hrw_best_uniform : k->hrw_best,
                       uniform ? k->hrw_scores_uniform : k->hrw_scores, cls, 0, k->hrw_best_classes};
    int sorted = order != NULL;
    if (sorted && nclasses >= 2 && nclasses <= PLC_HRW_MAX_CLASSES && (uint64_t)nclasses * 16 <= m &&
        largest <= PLC_HRW_MAX_CLASS) {
        cls[nclasses] = m;
        set.nclasses = nclasses;
    }
    return set;
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
