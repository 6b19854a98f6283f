/*
 * diff_buckets.c -- the moved fraction two snapshots of one bucket
 * strategy should show, from their buckets alone (diff_buckets.h).
 *
 * In a bucket strategy every bucket in use holds an equal share of the
 * keys, and a key changes bucket only when its bucket leaves or an added
 * bucket takes it (the algorithms' minimal disruption; jump's, jumpback's
 * and binomial's at the end). With W_a buckets in use in OLD, W_b in NEW,
 * S in use in both, R of those with another node (matched by id) in NEW:
 * a key stays on a bucket of S with probability (S / W_a) (S / W_b) --
 * it was on one (S of W_a), and no added bucket took it (S of W_b) --
 * and keeps its node when that bucket is not one of R, so
 *     expected moved = 1 - (S - R) S / (W_a W_b).
 * A removal alone gives (W_a - W_b) / W_a, the removed buckets' share; an
 * addition alone (W_b - W_a) / W_b; jump's middle removal, whose hole is
 * refilled by the last bucket's node, 2 / W_a. A key whose new bucket
 * happens to be its old node's other bucket is counted as moved, so a
 * node's own reshuffle (a weight change) is an upper bound.
 */
#include "diff_buckets.h"

#include <stdlib.h>
#include <string.h>

typedef struct bucket_owner {
    uint64_t bucket;
    const char *id;
} bucket_owner;

static int by_bucket(const void *x, const void *y)
{
    const bucket_owner *a = x, *b = y;
    return a->bucket < b->bucket ? -1 : a->bucket > b->bucket;
}

/* The buckets in use and their owners' ids, by bucket; NULL when out of
 * memory. */
static bucket_owner *buckets_of(const placer_snapshot *s, uint32_t *n)
{
    *n = placer_token_count(s);
    bucket_owner *v = malloc(((size_t)*n + 1) * sizeof *v);
    if (!v)
        return NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; i < *n; i++) {
        uint64_t t;
        uint32_t o;
        if (placer_token_at(s, i, &t, &o) == 0 && o < placer_node_count(s))
            v[k++] = (bucket_owner){t, placer_node_id(s, o)};
    }
    *n = k;
    qsort(v, k, sizeof *v, by_bucket);
    return v;
}

int cli_diff_buckets(const placer_snapshot *a, const placer_snapshot *b, cli_bucket_diff *d)
{
    int st = placer_snapshot_strategy(a);
    placer_strategy_traits t = {.size = sizeof t};
    if (st != placer_snapshot_strategy(b) || placer_strategy_describe(st, &t) ||
        !(t.traits & PLACER_TRAIT_BUCKETS))
        return 0;
    uint32_t na, nb;
    bucket_owner *x = buckets_of(a, &na), *y = x ? buckets_of(b, &nb) : NULL;
    if (!x || !y) {
        free(x);
        return -1;
    }
    uint32_t i = 0, j = 0, both = 0, reassigned = 0;
    while (i < na && j < nb) {
        if (x[i].bucket < y[j].bucket) {
            i++;
        } else if (y[j].bucket < x[i].bucket) {
            j++;
        } else {
            both++;
            reassigned += strcmp(x[i].id, y[j].id) != 0;
            i++, j++;
        }
    }
    free(x);
    free(y);
    *d = (cli_bucket_diff){na, nb, na - both, nb - both, reassigned, 0};
    d->expected = na && nb ? 1 - (double)(both - reassigned) * both / ((double)na * nb) : na != nb;
    return 1;
}
