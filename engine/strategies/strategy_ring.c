/*
 * strategy_ring.c -- the consistent-hash ring as a strategy module: the
 * first token >= the key's position owns it. Lookups go through the fused
 * hash + S+ tree kernels in the snapshot header (fused_stree); the build is
 * ring_build.c's. Codec sections: tokens and owners (and the target's
 * while in transition), and the precomputed replica sets when there are.
 */
#include "alloc.h"
#include "codec_decode.h"
#include "ring_build.h"
#include "strategy_ops.h"

static uint32_t ring_owner(const placer_snapshot *s, uint64_t h, int target)
{
    if (!target && s->bkt_search)
        return s->bkt_search(&s->bkt, h);
    if (!target && s->dir_search)
        return s->dir_search(&s->dir, h);
    return s->search(target ? &s->target : &s->tree, h);
}

static void ring_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t n,
                             uint32_t *owners)
{
    if (s->bkt_search_batch)
        s->bkt_search_batch(&s->bkt, h, n, owners);
    else if (s->dir_search_batch)
        s->dir_search_batch(&s->dir, h, n, owners);
    else
        s->search_batch(&s->tree, h, n, owners);
}

static uint32_t ring_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want,
                              uint32_t *zones)
{
    return plc_replicas_walk(s, plc_slot(s, h), out, want, zones);
}

/* ring_replicas of a chunk, every slot found and its leaf prefetched
 * before the first walk, so the chunk's leaf misses overlap. */
static void ring_replicas_batch(const placer_snapshot *s, const uint64_t *h, size_t m,
                                uint32_t want, uint32_t *out, uint32_t *counts)
{
    uint32_t slot[PLC_REPLICA_CHUNK], zones;
    for (size_t j = 0; j < m; j++) {
        slot[j] = plc_slot(s, h[j]);
        __builtin_prefetch(&s->tree.leaves[slot[j] / PLC_STREE_LEAF]);
    }
    for (size_t j = 0; j < m; j++)
        counts[j] = plc_replicas_walk(s, slot[j], out + j * want, want, &zones);
}

static void ring_diff_view(const placer_snapshot *s, int target, plc_diff_view *v)
{
    const plc_stree *t = target ? &s->target : &s->tree;
    *v = (plc_diff_view){.tree = t, .n = t->n, .wrap_owner = t->wrap_owner};
}

static uint32_t ring_encode_sections(const placer_snapshot *s, plc_fmt_section *out)
{
    uint32_t k = 0;
    out[k++] = (plc_fmt_section){PLC_SEC_TOKENS, 0, s->tree.n};
    out[k++] = (plc_fmt_section){PLC_SEC_OWNERS, 0, s->tree.n};
    if (s->has_target) {
        out[k++] = (plc_fmt_section){PLC_SEC_TARGET_TOKENS, 0, s->target.n};
        out[k++] = (plc_fmt_section){PLC_SEC_TARGET_OWNERS, 0, s->target.n};
    }
    if (s->rep_r)
        out[k++] = (plc_fmt_section){PLC_SEC_REPLICAS, s->rep_r | (uint32_t)s->rep_rule << 16,
                                     (uint64_t)s->tree.n * s->rep_r};
    return k;
}

static void ring_encode_section(const placer_snapshot *s, const plc_fmt_section *sec,
                                unsigned char *p)
{
    switch (sec->type) {
    case PLC_SEC_TOKENS:
    case PLC_SEC_TARGET_TOKENS: {
        const plc_stree *t = sec->type == PLC_SEC_TOKENS ? &s->tree : &s->target;
        for (uint32_t i = 0; i < t->n; i++)
            plc_wr64(p + 8 * (size_t)i, plc_stree_token(t, i));
        break;
    }
    case PLC_SEC_OWNERS:
    case PLC_SEC_TARGET_OWNERS: {
        const plc_stree *t = sec->type == PLC_SEC_OWNERS ? &s->tree : &s->target;
        for (uint32_t i = 0; i < t->n; i++)
            plc_wr32(p + 4 * (size_t)i, plc_stree_owner_at(t, i));
        break;
    }
    default: /* PLC_SEC_REPLICAS */
        plc_wr32_array(p, s->rep, sec->count);
    }
}

static void ring_decode_sections(int transition, unsigned *must, unsigned *may)
{
    *must = 1u << PLC_SEC_TOKENS | 1u << PLC_SEC_OWNERS;
    if (transition)
        *must |= 1u << PLC_SEC_TARGET_TOKENS | 1u << PLC_SEC_TARGET_OWNERS;
    *may = 1u << PLC_SEC_REPLICAS;
}

static int check_tokens(plc_dec *d, const plc_sec *t, const plc_sec *o, const char *what)
{
    if (!t->count || t->count != o->count)
        return plc_dec_fail(d, PLACER_ECORRUPT, "%s: %llu tokens, %llu owners", what,
                            (unsigned long long)t->count, (unsigned long long)o->count);
    uint64_t prev = 0;
    for (uint64_t i = 0; i < t->count; i++) {
        uint64_t v = plc_rd64(t->p + 8 * i);
        if (v < prev)
            return plc_dec_fail(d, PLACER_ECORRUPT,
                                "%s: token %llu is smaller than the one before", what,
                                (unsigned long long)i);
        prev = v;
    }
    return 0;
}

static int check_replicas(plc_dec *d, const plc_sec *r)
{
    uint32_t R = r->aux & 0xffff; /* the rule (replica_rules.c) in the high half */
    if (!R || R > PLACER_MAX_REPLICAS || r->aux >> 16 > PLACER_REPLICATION_NETWORK_TOPOLOGY)
        return plc_dec_fail(d, PLACER_ECORRUPT, "replica sets: size %u, rule %u", R, r->aux >> 16);
    if (r->count != d->s[PLC_SEC_TOKENS].count * R)
        return plc_dec_fail(d, PLACER_ECORRUPT, "replica sets: %llu entries for %llu tokens of %u",
                            (unsigned long long)r->count,
                            (unsigned long long)d->s[PLC_SEC_TOKENS].count, R);
    /* NetworkTopologyStrategy's set is empty where no datacenter it
     * replicates to has a node owning tokens (Cassandra's too): only the
     * other rules' sets always start with a node */
    int empty_ok = r->aux >> 16 == PLACER_REPLICATION_NETWORK_TOPOLOGY;
    for (uint64_t i = 0; i < r->count; i += R) {
        const unsigned char *set = r->p + 4 * i;
        int ended = 0;
        for (uint32_t j = 0; j < R; j++) {
            uint32_t v = plc_rd32(set + 4 * j);
            int bad = ended ? v != PLC_NO_NODE
                            : (v != PLC_NO_NODE && v >= d->nnodes) ||
                                  (!j && v == PLC_NO_NODE && !empty_ok);
            for (uint32_t x = 0; x < j && !bad && v != PLC_NO_NODE; x++)
                bad = plc_rd32(set + 4 * x) == v;
            if (bad)
                return plc_dec_fail(d, PLACER_ECORRUPT, "replica set %llu: bad entry %u",
                                    (unsigned long long)(i / R), j);
            ended |= v == PLC_NO_NODE;
        }
    }
    return 0;
}

static int ring_decode_check(plc_dec *d, const placer_builder *b)
{
    int err = check_tokens(d, &d->s[PLC_SEC_TOKENS], &d->s[PLC_SEC_OWNERS], "ring");
    if (!err)
        err = plc_dec_check_owners(d, b, d->s[PLC_SEC_OWNERS].p, d->s[PLC_SEC_OWNERS].count, 0, 0,
                                   "token");
    if (!err && d->have[PLC_SEC_TARGET_TOKENS])
        err = check_tokens(d, &d->s[PLC_SEC_TARGET_TOKENS], &d->s[PLC_SEC_TARGET_OWNERS],
                           "target ring");
    if (!err && d->have[PLC_SEC_TARGET_TOKENS])
        err = plc_dec_check_owners(d, b, d->s[PLC_SEC_TARGET_OWNERS].p,
                                   d->s[PLC_SEC_TARGET_OWNERS].count, 1, 0, "target token");
    if (!err && d->have[PLC_SEC_REPLICAS])
        err = check_replicas(d, &d->s[PLC_SEC_REPLICAS]);
    return err;
}

static int ring_decode_build(plc_dec *d, placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    /* Tokens, owners and replica sets in host order (in place on a
     * little-endian host; converted copies, freed below, on a big-endian one). */
    const plc_sec *t = &d->s[PLC_SEC_TOKENS], *o = &d->s[PLC_SEC_OWNERS];
    const plc_sec *tt = &d->s[PLC_SEC_TARGET_TOKENS], *to = &d->s[PLC_SEC_TARGET_OWNERS];
    const plc_sec *r = &d->s[PLC_SEC_REPLICAS];
    int transition = d->have[PLC_SEC_TARGET_TOKENS], rep = d->have[PLC_SEC_REPLICAS];
    uint64_t *copy_t = NULL, *copy_tt = NULL;
    uint32_t *copy_o = NULL, *copy_to = NULL, *copy_r = NULL;
    plc_ring_input cur = {plc_dec_u64_cells(t, t->count, &copy_t), 8,
                          plc_dec_u32_cells(o, o->count, &copy_o), 4, (uint32_t)t->count};
    plc_ring_input tgt = {NULL, 8, NULL, 4, 0};
    if (transition)
        tgt = (plc_ring_input){plc_dec_u64_cells(tt, tt->count, &copy_tt), 8,
                               plc_dec_u32_cells(to, to->count, &copy_to), 4, (uint32_t)tt->count};
    const uint32_t *sets = rep ? plc_dec_u32_cells(r, r->count, &copy_r) : NULL;
    int have_all = cur.tokens && cur.owners && (!transition || (tgt.tokens && tgt.owners)) &&
                   (!rep || sets);
    b->rep_rule = rep ? (int)(r->aux >> 16) : 0;
    *out = have_all ? plc_ring_assemble(b, epoch, cur, tgt, sets, rep ? r->aux & 0xffff : 0) : NULL;
    plc_free(copy_t);
    plc_free(copy_o);
    plc_free(copy_tt);
    plc_free(copy_to);
    plc_free(copy_r);
    return *out ? 0 : PLACER_ENOMEM;
}

static uint32_t ring_token_count(const placer_snapshot *s)
{
    return s->tree.n;
}

static void ring_token_at(const placer_snapshot *s, uint32_t i, uint64_t *token, uint32_t *owner)
{
    *token = plc_stree_token(&s->tree, i);
    *owner = plc_stree_owner_at(&s->tree, i);
}

const plc_strategy_ops plc_ring_ops = {
    .id = PLACER_RING,
    .name = "ring",
    .key_hashes = PLC_PLACER_HASHES | 1u << PLACER_HASH_CASSANDRA_MURMUR3,
    .fused_stree = 1,
    .options = PLACER_OPTION_VNODES | PLACER_OPTION_TOKENS | PLACER_OPTION_ALLOCATION |
               PLACER_OPTION_REPLICAS | PLACER_OPTION_PREVIOUS,
    .traits = PLACER_TRAIT_WRAPS | PLACER_TRAIT_BOUNDED,
    .build = plc_ring_build,
    /* unfused (placer-v1, SipHash-1-3): hash, then the S+ tree */
    .lookup = plc_lookup_by_hash,
    .lookup_batch = plc_lookup_batch_by_hash,
    .owner = ring_owner,
    .owner_batch = ring_owner_batch,
    .replicas = ring_replicas,
    .replicas_batch = ring_replicas_batch,
    .diff_view = ring_diff_view,
    .encode_sections = ring_encode_sections,
    .encode_section = ring_encode_section,
    .decode_sections = ring_decode_sections,
    .decode_check = ring_decode_check,
    .decode_build = ring_decode_build,
    .token_count = ring_token_count,
    .token_at = ring_token_at,
};
