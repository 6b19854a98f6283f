/*
 * compat_snapshot_build.c -- the program's ring or table of a builder's
 * nodes (compat_build.c's layout in a plc_compat_index) as a
 * PLACER_EMULATED snapshot, for the mode's build (compat_mode_build.c) and
 * the decoder (compat_codec.c). Below the strategy module
 * (strategy_compat.c), which it does not call.
 */
#include "alloc.h"
#include "compat_index.h"
#include "compat_snapshot.h"
#include "strategy_ops.h"

int plc_compat_snapshot_build(placer_builder *b, const plc_strategy_ops *ops, uint64_t epoch,
                              placer_snapshot **out)
{
    const char *name = placer_compat_name(b->compat);
    plc_compat_node *nodes = plc_malloc(sizeof *nodes * b->nnodes);
    plc_compat_index *x = plc_malloc(sizeof *x);
    if (!nodes || !x) {
        plc_free(nodes);
        plc_free(x);
        return PLACER_ENOMEM;
    }
    for (uint32_t i = 0; i < b->nnodes; i++) {
        const plc_bnode *n = &b->nodes[i];
        nodes[i] = (plc_compat_node){n->id, n->id_len, n->addr ? n->addr : "", n->addr_len,
                                     (uint32_t)n->weight, n->hash_id};
    }
    plc_compat_config c = {b->compat, b->compat_dist, b->compat_hash, b->compat_avalanche,
                           {b->compat_tag[0], b->compat_tag[1]}, b->nnodes, nodes, NULL,
                           b->compat_max_points};
    int rc = plc_compat_index_build(x, &c);
    plc_free(nodes);
    if (rc) {
        plc_free(x);
        if (rc == PLACER_EINVAL)
            return plc_builder_refuse(b, "%s cannot place these nodes as given: an address, name, "
                                         "weight or id it refuses (docs/COMPAT.md)", name);
        return rc;
    }
    const plc_compat_layout *l = &x->layout;
    /* The snapshot is the builder's nodes under the mode's strategy and key
     * hash: read through a copy, so b is not changed. */
    placer_builder v = *b;
    v.strategy = PLACER_EMULATED;
    v.ops = ops;
    v.eff_hash = PLC_KEY_HASH_OF_CH(l->key_hash);
    v.eff_key = (plc_hash_key){0, 0, 0};
    unsigned char *at;
    placer_snapshot *s = plc_snapshot_new(&v, 0, epoch, &at);
    if (!s) {
        plc_compat_index_free(x);
        plc_free(x);
        return PLACER_ENOMEM;
    }
    s->compat = x;
    if (l->kind == PLC_CL_RING) {
        s->tree = x->tree;
        size_t node_bytes, leaf_bytes;
        plc_stree_size(l->n, &node_bytes, &leaf_bytes);
        s->layout_bytes = node_bytes + leaf_bytes;
    } else {
        s->layout_bytes = (size_t)l->n * sizeof *l->owners;
    }
    plc_node *sn = (plc_node *)s->nodes;
    for (uint32_t i = 0; i < l->n; i++)
        sn[l->owners[i]].ntokens++;
    *out = s;
    return 0;
}
