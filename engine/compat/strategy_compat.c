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
#include "compat_program.h"
#include "compat_snapshot.h"
#include "strategy_ops.h"

static const plc_compat_layout *layout(const placer_snapshot *s)
{
    return &s->compat->layout;
}

/* Never reached with a mode: placer_builder_build sends those to
 * plc_compat_build (compat_mode_build.c) before the registry, and
 * placer_builder_set_strategy refuses this strategy (implied). */
static int compat_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    (void)epoch, (void)out;
    return plc_builder_refuse(b, "strategy compat without a compatibility mode");
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
    if (l->kind != PLC_CL_RING) /* a table, or the scores' winner (owners[i] = i) */
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

/* The width of the program's key hash: its distribution's (nginx's plain
 * hash keeps 15 bits), else the 15-bit crc32's (libmemcached "crc",
 * twemproxy crc32) or 32 (compat_program.h). */
static unsigned hash_bits(const plc_compat_layout *l)
{
    const plc_compat_distribution *d =
        plc_compat_program_distribution(plc_compat_program_get(l->program), l->distribution);
    if (d && d->hash_bits)
        return d->hash_bits;
    return l->key_hash == PLC_CH_CRC32 ? 15 : 32;
}

/* Rings are ranges (of the space where hash h is h << 32); a table placed
 * by hash % n is not: its view is the table (placer_diff says
 * PLACER_ENOTSUP; placer_diff_measure counts its residues). Scores have
 * neither: a position is a winner's index, not a share of keys (an empty
 * view: placer_diff_measure samples keys). */
static void compat_diff_view(const placer_snapshot *s, int target, plc_diff_view *v)
{
    (void)target;
    const plc_compat_layout *l = layout(s);
    if (l->kind == PLC_CL_SCORES)
        *v = (plc_diff_view){NULL, NULL, 0, 0, 0, NULL, 0, 0, NULL, 0};
    else if (l->kind == PLC_CL_RING)
        *v = (plc_diff_view){&s->tree, NULL, s->tree.n, s->tree.wrap_owner, hash_bits(l), NULL, 0, 0, NULL, 0};
    else
        *v = (plc_diff_view){NULL, NULL, 0, 0, hash_bits(l), l->owners, l->n, 1, NULL, 0};
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
    .traits = PLACER_TRAIT_IMPLIED | PLACER_TRAIT_WRAPS,
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
