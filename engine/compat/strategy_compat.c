/*
 * strategy_compat.c -- a compatibility mode's own ring or table as a
 * strategy module (PLACER_EMULATED): the layout of compat_build.c, searched
 * through plc_compat_index (its points p as S+ tree tokens p << 32, its key
 * hashes in batches), held by the snapshot in s->compat. Positions are the
 * program's 32-bit key hashes; a ring's tree is also the snapshot's `tree`,
 * so the replica walk, the diff and the inspection calls read it as they
 * read placer's own ring. Redis is not here: it is PLACER_PARTITIONS with
 * the Redis slot hash (strategy_partitions.c, compat_redis.c). The codec
 * sections are compat_codec.c's.
 */
#include <string.h>

#include "alloc.h"
#include "compat_index.h"
#include "fastrange.h"
#include "compat_snapshot.h"
#include "strategy_ops.h"

static const plc_compat_layout *layout(const placer_snapshot *s)
{
    return &s->compat->layout;
}

/* b's nodes and mode as the layout builder's config; *nodes to free. */
static int config_of(const placer_builder *b, plc_compat_config *c, plc_compat_node **nodes)
{
    plc_compat_node *v = plc_malloc(sizeof *v * (b->nnodes ? b->nnodes : 1));
    if (!v)
        return PLACER_ENOMEM;
    for (uint32_t i = 0; i < b->nnodes; i++) {
        const plc_bnode *n = &b->nodes[i];
        v[i] = (plc_compat_node){n->id, n->id_len, n->addr ? n->addr : "", n->addr_len,
                                 (uint32_t)n->weight, n->hash_id};
    }
    *c = (plc_compat_config){b->compat, b->compat_dist, b->compat_hash, b->compat_avalanche,
                             {b->compat_tag[0], b->compat_tag[1]}, b->nnodes, v, NULL,
                             b->compat_max_points};
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

int plc_compat_snapshot_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
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
    const plc_compat_layout *l = &x->layout;
    /* The snapshot is the builder's nodes under the mode's strategy and key
     * hash: read through a copy, so b is not changed. */
    placer_builder v = *b;
    v.strategy = PLACER_EMULATED;
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

static int compat_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    if (!b->compat) /* the strategy comes with a mode, never alone */
        return plc_builder_refuse(b, "strategy compat without a compatibility mode");
    return plc_compat_build(b, epoch, out);
}

static uint64_t compat_position(const placer_snapshot *s, const void *key, size_t len)
{
    return plc_compat_key_hash(layout(s), key, len);
}

static int compat_lookup(const placer_snapshot *s, const void *key, size_t len)
{
    return (int)plc_compat_index_lookup(s->compat, key, len);
}

static void compat_lookup_batch(const placer_snapshot *s, const void *const *keys,
                                const size_t *lens, size_t n, uint32_t *owners)
{
    plc_compat_index_lookup_batch(s->compat, keys, lens, n, owners);
}

/* The slot of a position: only its low 32 bits are the program's hash. */
static uint32_t slot_of(const placer_snapshot *s, uint64_t h)
{
    const plc_compat_layout *l = layout(s);
    if (l->kind == PLC_CL_TABLE)
        return (uint32_t)h % l->n;
    return s->index(&s->tree, (uint64_t)(uint32_t)h << 32);
}

static uint32_t compat_owner(const placer_snapshot *s, uint64_t h, int target)
{
    (void)target; /* no transitions: the target is the current placement */
    return layout(s)->owners[slot_of(s, h)];
}

static void compat_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t n,
                               uint32_t *owners)
{
    for (size_t i = 0; i < n; i++)
        owners[i] = compat_owner(s, h[i], 0);
}

static uint32_t compat_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want,
                                uint32_t *zones)
{
    const plc_compat_layout *l = layout(s);
    if (l->kind == PLC_CL_RING)
        return plc_replicas_walk(s, slot_of(s, h), out, want, zones);
    return plc_replicas_walk_flat(s, l->owners, l->n, slot_of(s, h), out, want, zones);
}

/* Rings are ranges (of the space where hash h is h << 32); a table placed
 * by hash % n is not: no view (placer_diff says PLACER_ENOTSUP). */
static void compat_diff_view(const placer_snapshot *s, int target, plc_diff_view *v)
{
    (void)target;
    if (layout(s)->kind == PLC_CL_RING)
        *v = (plc_diff_view){&s->tree, NULL, s->tree.n, s->tree.wrap_owner};
    else
        *v = (plc_diff_view){NULL, NULL, 0, 0};
}

static uint32_t compat_token_count(const placer_snapshot *s)
{
    return layout(s)->n;
}

/* Tokens in the 64-bit space of placer's other strategies, where the diff
 * and the tools that measure shares by ranges read them: point p is
 * p << 32 (where hash p sits); table slot i, which holds 1/n of the
 * hashes (h % n), is the i-th of n equal ranges, as partitions' and
 * Maglev's slots are. */
static void compat_token_at(const placer_snapshot *s, uint32_t i, uint64_t *token, uint32_t *owner)
{
    const plc_compat_layout *l = layout(s);
    *token = l->kind == PLC_CL_RING ? (uint64_t)l->points[i] << 32 : plc_range_end(i, l->n);
    *owner = l->owners[i];
}

const plc_strategy_ops plc_compat_ops = {
    .id = PLACER_EMULATED,
    .name = "compat",
    .key_hashes = PLC_COMPAT_RING_HASHES,
    .implied = 1,
    .build = compat_build,
    .position = compat_position,
    .lookup = compat_lookup,
    .lookup_batch = compat_lookup_batch,
    .owner = compat_owner,
    .owner_batch = compat_owner_batch,
    .replicas = compat_replicas,
    .diff_view = compat_diff_view,
    .encode_sections = plc_compat_encode_sections,
    .encode_section = plc_compat_encode_section,
    .decode_sections = plc_compat_decode_sections,
    .decode_check = plc_compat_decode_check,
    .decode_build = plc_compat_decode_build,
    .token_count = compat_token_count,
    .token_at = compat_token_at,
};
