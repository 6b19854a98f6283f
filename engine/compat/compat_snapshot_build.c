/*
 * compat_snapshot_build.c -- the program's ring or table of a builder's
 * nodes (compat_build.c's layout in a plc_compat_index) as a
 * PLACER_EMULATED snapshot, for the mode's build (compat_mode_build.c) and
 * the decoder (compat_codec.c). Below the strategy module
 * (strategy_compat.c), which it does not call.
 */
#include <string.h>

#include "alloc.h"
#include "compat_index.h"
#include "compat_snapshot.h"
#include "strategy_ops.h"

/* b's nodes and mode as the layout builder's config; *nodes to free. */
static int config_of(const placer_builder *b, plc_compat_config *c, plc_compat_node **nodes)
{
    plc_compat_node *v = plc_malloc(sizeof *v * (b->nnodes ? b->nnodes : 1));
    if (!v)
        return PLACER_ENOMEM;
    for (uint32_t i = 0; i < b->nnodes; i++) {
        const plc_bnode *n = &b->nodes[i];
        v[i] = (plc_compat_node){n->id, n->id_len, n->addr ? n->addr : "", n->addr_len,
                                 (uint32_t)n->weight, n->hash_id, n->vnodes};
    }
    *c = (plc_compat_config){b->compat, b->compat_dist, b->compat_hash, b->compat_avalanche,
                             {b->compat_tag[0], b->compat_tag[1]}, b->nnodes, v, NULL,
                             b->compat_max_points, {0}};
    memcpy(c->params, b->compat_params, sizeof c->params);
    *nodes = v;
    return 0;
}

int plc_compat_builder_size(const placer_builder *b, uint64_t *n)
{
    plc_compat_config c;
    plc_compat_node *nodes;
    int rc = config_of(b, &c, &nodes);
    if (rc)
        return rc;
    rc = plc_compat_layout_size(&c, n);
    plc_free(nodes);
    return rc;
}

int plc_compat_snapshot_build(placer_builder *b, const plc_strategy_ops *ops, uint64_t epoch,
                              placer_snapshot **out)
{
    const char *name = placer_compat_name(b->compat);
    plc_compat_index *x = plc_malloc(sizeof *x);
    plc_compat_config c;
    plc_compat_node *nodes = NULL;
    if (!x || config_of(b, &c, &nodes) != 0) {
        plc_free(x);
        return PLACER_ENOMEM;
    }
    int rc = plc_compat_index_build(x, &c);
    plc_free(nodes);
    if (rc) {
        plc_free(x);
        if (rc == PLACER_EINVAL)
            return plc_builder_refuse(b, "%s cannot place these nodes as given: an address, name, "
                                         "weight or id it refuses (docs/COMPAT.md)", name);
        uint64_t size;
        if (rc == PLACER_ETOOMANY && !b->compat_max_points &&
            plc_compat_builder_size(b, &size) == 0 && size > PLACER_MAX_COMPAT_POINTS)
            plc_builder_refuse(b, "%s would make %llu points or slots of these weights, past "
                                  "PLACER_MAX_COMPAT_POINTS (%u)", name,
                               (unsigned long long)size, PLACER_MAX_COMPAT_POINTS);
        return rc;
    }
    x->rule = b->key_rule; /* checked: plc_compat_check_key_rule, or the decoder */
    plc_key_rule_format(&x->rule, x->rule_text, sizeof x->rule_text);
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
