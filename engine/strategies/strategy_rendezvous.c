/*
 * strategy_rendezvous.c -- highest random weight, weighted by -w / ln(u),
 * as a strategy module: the candidate with the highest score owns a
 * position. The candidates follow from the nodes and their states, so the
 * encoding has no section of its own. The build is rendezvous_build.c's.
 */
#include "alloc.h"
#include "codec_decode.h"
#include "rendezvous_build.h"
#include "strategy_ops.h"

static uint32_t hrw_owner(const placer_snapshot *s, uint64_t h, int target)
{
    const plc_hrw_set *c = target ? &s->thrw : &s->hrw;
    return c->node[plc_hrw_winner(c, h)];
}

static void hrw_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t n,
                            uint32_t *owners)
{
    for (size_t i = 0; i < n; i++)
        owners[i] = hrw_owner(s, h[i], 0);
}

/* Candidates in descending score, the walk's rules (zones not used yet
 * while any remain, then any new node). */
static uint32_t hrw_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want,
                             uint32_t *zones)
{
    const plc_hrw_set *c = &s->hrw;
    if (!want)
        return *zones = 0, 0;
    out[0] = c->node[plc_hrw_winner(c, h)]; /* the owner first, however the set ranks */
    double local[256], *score = c->n <= 256 ? local : plc_malloc((size_t)c->n * sizeof *score);
    if (!score) /* out of memory: the owner alone, reported as under-replicated */
        return *zones = 1, 1;
    c->scores(c->seed, c->inv_w, c->n, h, score);
    uint32_t count = 1, nz = 1;
    for (int lap = 0; lap < 2; lap++) {
        while (count < want && (lap || nz < s->nzones)) {
            uint32_t best = UINT32_MAX;
            for (uint32_t i = 0; i < c->n; i++) {
                if (best != UINT32_MAX && !(score[i] > score[best]))
                    continue;
                uint32_t node = c->node[i], skip = 0;
                for (uint32_t j = 0; j < count; j++)
                    skip |= out[j] == node || (!lap && s->nodes[out[j]].zone_id == s->nodes[node].zone_id);
                if (!skip)
                    best = i;
            }
            if (best == UINT32_MAX)
                break;
            out[count++] = c->node[best];
            nz += !lap;
        }
    }
    if (score != local)
        plc_free(score);
    *zones = plc_distinct_zones(s, out, count);
    return count;
}

static uint32_t hrw_encode_sections(const placer_snapshot *s, plc_fmt_section *out)
{
    (void)s;
    (void)out;
    return 0; /* candidates follow from the nodes */
}

static void hrw_encode_section(const placer_snapshot *s, const plc_fmt_section *sec,
                               unsigned char *p)
{
    (void)s; /* never called: no sections */
    (void)sec;
    (void)p;
}

static void hrw_decode_sections(int transition, unsigned *must, unsigned *may)
{
    (void)transition;
    *must = 0;
    *may = 0;
}

static int hrw_decode_check(plc_dec *d, const placer_builder *b)
{
    /* Candidates follow from the states: so does the transition. */
    if (!(d->flags & PLC_FMT_FLAG_TRANSITION) != !plc_builder_in_transition(b))
        return plc_dec_fail(d, PLACER_ECORRUPT, "transition flag disagrees with the node states");
    return 0;
}

static int hrw_decode_build(plc_dec *d, placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    int err = plc_rendezvous_build(b, epoch, out);
    return err == PLACER_ENONODES ? plc_dec_fail(d, PLACER_ECORRUPT, "no node in a placement") : err;
}

static uint32_t hrw_token_count(const placer_snapshot *s)
{
    return s->hrw.n;
}

static void hrw_token_at(const placer_snapshot *s, uint32_t i, uint64_t *token, uint32_t *owner)
{
    *token = i;
    *owner = s->hrw.node[i];
}

const plc_strategy_ops plc_rendezvous_ops = {
    .id = PLACER_RENDEZVOUS,
    .name = "rendezvous",
    .key_hashes = PLC_PLACER_HASHES,
    .traits = PLACER_TRAIT_SCANS_NODES,
    .layout = "candidates",
    .build = plc_rendezvous_build,
    .lookup = plc_lookup_by_hash,
    .lookup_batch = plc_lookup_batch_by_hash,
    .owner = hrw_owner,
    .owner_batch = hrw_owner_batch,
    .replicas = hrw_replicas,
    .encode_sections = hrw_encode_sections,
    .encode_section = hrw_encode_section,
    .decode_sections = hrw_decode_sections,
    .decode_check = hrw_decode_check,
    .decode_build = hrw_decode_build,
    .token_count = hrw_token_count,
    .token_at = hrw_token_at,
};
