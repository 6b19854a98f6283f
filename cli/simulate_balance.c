/*
 * simulate_balance.c -- churn of a ring and hot keys with bounded loads
 * (simulate_balance.h).
 *
 * The churn's loads are exact: a ring's share of the hash space is the sum
 * of its tokens' ranges, read through placer_token_at, so no key sampling
 * blurs the 1.05 the balanced allocator is held to. The drains are spread
 * over the nodes (every (N + joins) / drains-th, starting half a step in),
 * not only the newest ones; each build follows the last (--previous), so
 * a balanced ring hands each leaver's tokens over to the nodes most under
 * their share (engine/ring_balance.c) while random tokens leave the ranges
 * to the successors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simulate_balance.h"

#define TWO64 18446744073709551616.0

/* max over mean of share / weight share, exact. */
static double ring_max_mean(const placer_snapshot *s)
{
    uint32_t N = placer_node_count(s), n = placer_token_count(s);
    double *share = calloc(N, sizeof *share), W = 0, mx = 0, sum = 0;
    uint32_t present = 0;
    if (!share || !n)
        return free(share), NAN;
    uint64_t first, last, prev;
    uint32_t o;
    placer_token_at(s, 0, &first, &o);
    placer_token_at(s, n - 1, &last, &o);
    prev = last;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t t;
        placer_token_at(s, i, &t, &o);
        uint64_t len = t - prev;
        share[o] += i == 0 && len == 0 ? 1.0 : (double)len / TWO64;
        prev = t;
    }
    for (uint32_t i = 0; i < N; i++)
        if (placer_node_tokens(s, i)) {
            W += placer_node_weight(s, i);
            present++;
        }
    for (uint32_t i = 0; i < N; i++)
        if (placer_node_tokens(s, i)) {
            double r = share[i] / (placer_node_weight(s, i) / W);
            mx = fmax(mx, r);
            sum += r;
        }
    free(share);
    return mx / (sum / present);
}

static double moved_fraction(const placer_snapshot *a, const placer_snapshot *b)
{
    placer_move *mv = NULL;
    size_t k = 0;
    if (placer_diff(a, b, &mv, &k))
        return NAN;
    double f = placer_moves_coverage(mv, k);
    placer_moves_free(mv);
    return f;
}

/* The ring of nodes [0, upto) of the membership and joined nodes, minus
 * those marked gone. */
static int build_step(const placer_builder *m, int tokens, uint32_t vn, uint32_t joined,
                      const uint8_t *gone, const placer_snapshot *prev, uint64_t epoch,
                      placer_snapshot **out)
{
    uint32_t N = placer_builder_node_count(m);
    double W = 0;
    for (uint32_t i = 0; i < N; i++)
        W += placer_builder_node_weight(m, i);
    placer_builder *b = placer_builder_new();
    if (!b)
        return PLACER_ENOMEM;
    placer_builder_set_seed(b, placer_builder_seed(m));
    placer_builder_set_vnodes(b, vn);
    placer_builder_set_token_allocation(b, tokens);
    placer_builder_set_previous(b, prev);
    int err = 0;
    for (uint32_t i = 0; i < N + joined && err >= 0; i++) {
        if (gone[i])
            continue;
        if (i < N) {
            err = placer_builder_add_node(b, placer_builder_node_id(m, i),
                                          placer_builder_node_zone(m, i),
                                          placer_builder_node_weight(m, i));
        } else {
            char id[40];
            snprintf(id, sizeof id, "churn-join-%u", i - N);
            err = placer_builder_add_node(b, id, placer_builder_node_zone(m, (i - N) % N), W / N);
        }
        if (err >= 0) /* the datacenter of the node (or the one whose zone a join takes) */
            err = placer_builder_set_datacenter(b, (uint32_t)err,
                                                placer_builder_node_datacenter(m, i < N ? i : (i - N) % N));
    }
    if (err >= 0)
        err = placer_builder_build(b, epoch, out);
    placer_builder_free(b);
    return err;
}

int plc_sim_churn_run(const placer_builder *m, int tokens, uint32_t v, uint32_t joins,
                      uint32_t drains, plc_sim_churn *out)
{
    uint32_t N = placer_builder_node_count(m);
    if (!N || (uint64_t)N + joins > PLACER_MAX_NODES || drains >= N + joins)
        return PLACER_EINVAL;
    double W = 0;
    for (uint32_t i = 0; i < N; i++)
        W += placer_builder_node_weight(m, i);
    uint32_t vn = (uint32_t)fmax(1, round(v * N / W)); /* v tokens per node of mean weight */
    uint8_t *gone = calloc((size_t)N + joins, 1);
    if (!gone)
        return PLACER_ENOMEM;
    memset(out, 0, sizeof *out);
    placer_snapshot *s = NULL, *next = NULL;
    uint64_t epoch = 1;
    int err = build_step(m, tokens, vn, 0, gone, NULL, epoch++, &s);
    if (!err)
        out->start_max = ring_max_mean(s);
    double Wnow = W;
    for (uint32_t j = 1; j <= joins && !err; j++) {
        if ((err = build_step(m, tokens, vn, j, gone, s, epoch++, &next)))
            break;
        Wnow += W / N;
        out->join_max = fmax(out->join_max, ring_max_mean(next));
        out->join_moved = fmax(out->join_moved, moved_fraction(s, next) / ((W / N) / Wnow));
        placer_snapshot_free(s);
        s = next;
    }
    uint32_t total = N + joins, step = drains ? total / drains : 0;
    for (uint32_t d = 0; d < drains && !err; d++) {
        uint32_t victim = step / 2 + d * step;
        double w = victim < N ? placer_builder_node_weight(m, victim) : W / N;
        gone[victim] = 1;
        if ((err = build_step(m, tokens, vn, joins, gone, s, epoch++, &next)))
            break;
        out->drain_moved = fmax(out->drain_moved, moved_fraction(s, next) / (w / Wnow));
        Wnow -= w;
        placer_snapshot_free(s);
        s = next;
    }
    if (!err)
        out->drain_max = ring_max_mean(s);
    placer_snapshot_free(s);
    free(gone);
    return err;
}

int plc_sim_hot_run(const placer_snapshot *s, const plc_keys *keys, double c, uint64_t requests,
                    uint64_t seed, plc_sim_hot *out)
{
    uint32_t N = placer_node_count(s);
    uint64_t n = keys->n;
    double *cdf = malloc(n * sizeof *cdf);
    uint32_t *plain = calloc(N, sizeof *plain), *bounded = calloc(N, sizeof *bounded);
    uint8_t *asked = calloc(n, 1); /* 1: requested, 2: once placed off its owner */
    int err = PLACER_ENOMEM;
    memset(out, 0, sizeof *out);
    if (!cdf || !plain || !bounded || !asked || !n)
        goto done;
    double sum = 0;
    for (uint64_t i = 0; i < n; i++)
        cdf[i] = (sum += keys->qps[i]);
    uint64_t st = seed, off = 0;
    err = 0;
    for (uint64_t r = 0; r < requests && !err; r++) {
        /* splitmix64, then the key whose cumulative QPS passes u */
        uint64_t z = (st += UINT64_C(0x9E3779B97F4A7C15));
        z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
        double u = (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0 * sum;
        uint64_t lo = 0, hi = n - 1;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (cdf[mid] <= u)
                lo = mid + 1;
            else
                hi = mid;
        }
        const char *key = keys->bytes + keys->offsets[lo];
        size_t len = (size_t)(keys->offsets[lo + 1] - keys->offsets[lo]);
        int o = placer_lookup(s, key, len);
        uint32_t b = 0;
        if (o < 0 || (err = placer_lookup_bounded(s, key, len, bounded, r, c, &b)))
            break;
        plain[o]++;
        bounded[b]++;
        asked[lo] |= 1;
        if (b != (uint32_t)o) {
            off++;
            asked[lo] |= 2;
        }
    }
    if (!err) {
        uint32_t mp = 0, mb = 0, live = 0;
        for (uint32_t i = 0; i < N; i++) {
            int state = placer_node_state(s, i);
            live += state == PLACER_NODE_ACTIVE || state == PLACER_NODE_DRAINING;
            mp = plain[i] > mp ? plain[i] : mp;
            mb = bounded[i] > mb ? bounded[i] : mb;
        }
        double mean = (double)requests / (live ? live : 1);
        uint64_t ka = 0, km = 0;
        for (uint64_t i = 0; i < n; i++) {
            ka += asked[i] & 1;
            km += asked[i] >> 1;
        }
        out->max_mean = mp / mean;
        out->bounded_max_mean = mb / mean;
        out->moved = requests ? (double)off / (double)requests : 0;
        out->keys_moved = ka ? (double)km / (double)ka : 0;
    }
done:
    free(cdf);
    free(plain);
    free(bounded);
    free(asked);
    return err;
}
