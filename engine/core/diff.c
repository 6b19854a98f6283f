/*
 * diff.c -- which ranges of the hash space change owner between two
 * snapshots whose ownership is made of ranges: rings, partitions and
 * Maglev tables (a table's slot i is one range, ending at its largest
 * position), in any combination.
 *
 * The union of both token sets cuts the ring into intervals (v[k-1], v[k]].
 * Inside one interval no token of either ring lies strictly between its
 * ends, so every hash in it has the same lower_bound in a and in b: the
 * owners at v[k] are the owners of the whole interval. One merge walk over
 * both sorted token lists visits every boundary once; the interval before
 * the smallest boundary wraps past UINT64_MAX and belongs, in each ring, to
 * the owner of its smallest token (the lookup's wrap). Owners are compared
 * by node id: a's node indices are mapped to b's once, up front. The same
 * walk compares a snapshot's current and target placements (same nodes).
 * Jump and rendezvous scatter each node's keys over the whole space: they
 * have no ranges (PLACER_ENOTSUP), and placer_moved_fraction measures them.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "diff_internal.h"
#include "fastrange.h"
#include "named.h"
#include "compat_kafka.h"
#include "compat_snapshot.h"
#include "validate.h"

#define ABSENT PLC_NO_NODE

typedef plc_diff_view view;

static uint64_t vtoken(const view *v, uint32_t i)
{
    return v->tree ? plc_stree_token(v->tree, i) : plc_range_end(i, v->n);
}

static uint32_t vowner(const view *v, uint32_t i)
{
    return v->tree ? plc_stree_owner_at(v->tree, i) : v->table->own[(size_t)i * v->table->width];
}

int plc_diff_view_of(const placer_snapshot *s, int target, view *v)
{
    *v = (view){0};
    if (!s->ops->diff_view)
        return PLACER_ENOTSUP;
    s->ops->diff_view(s, target, v);
    return v->tree || v->table ? 0 : PLACER_ENOTSUP; /* a compat table: hash % n */
}

/* The strategy's ranges, or PLACER_ENOTSUP when it has none or when its
 * keys do not spread over the position space (a program's ring searched
 * by a 15-bit hash: its ranges' coverage would not be a share of keys). */
static int view_of(const placer_snapshot *s, int target, view *v)
{
    int err = plc_diff_view_of(s, target, v);
    return err ? err : v->tree && v->hash_bits && v->hash_bits < 32 ? PLACER_ENOTSUP : 0;
}

int plc_diff_same_positions(const placer_snapshot *a, const placer_snapshot *b)
{
    if (a->key_hash != b->key_hash || !plc_compat_same_positions(a, b))
        return 0;
    if (a->key_hash == PLACER_HASH_COUCHBASE || plc_kafka_of_key_hash(a->key_hash))
        return a->table.n == b->table.n; /* partitions by hash % n: a range each */
    return a->hkey.seed == b->hkey.seed && a->hkey.k0 == b->hkey.k0 && a->hkey.k1 == b->hkey.k1;
}

static uint32_t mapped(const uint32_t *map, uint32_t node)
{
    return node == ABSENT ? ABSENT : map[node];
}

uint32_t *plc_diff_map_nodes(const placer_snapshot *a, const placer_snapshot *b)
{
    uint32_t *map = plc_malloc((size_t)a->nnodes * sizeof *map);
    plc_named *sorted = plc_malloc((size_t)b->nnodes * sizeof *sorted);
    if (!map || !sorted) {
        plc_free(map);
        plc_free(sorted);
        return NULL;
    }
    for (uint32_t j = 0; j < b->nnodes; j++)
        sorted[j] = (plc_named){b->nodes[j].id, j};
    qsort(sorted, b->nnodes, sizeof *sorted, plc_cmp_named);
    for (uint32_t i = 0; i < a->nnodes; i++) {
        plc_named key = {a->nodes[i].id, 0};
        const plc_named *hit = bsearch(&key, sorted, b->nnodes, sizeof *sorted, plc_cmp_named);
        map[i] = hit ? hit->index : ABSENT;
    }
    plc_free(sorted);
    return map;
}

typedef struct move_list {
    placer_move *m;
    size_t n, cap;
} move_list;

/* Append (lo, hi] from -> to, merging with the previous range if adjacent. */
static int add_move(move_list *l, uint64_t lo, uint64_t hi, uint32_t from, uint32_t to)
{
    if (l->n && l->m[l->n - 1].hi == lo && l->m[l->n - 1].from == from && l->m[l->n - 1].to == to) {
        l->m[l->n - 1].hi = hi;
        return 0;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        placer_move *m = plc_realloc(l->m, cap * sizeof *m);
        if (!m)
            return PLACER_ENOMEM;
        l->m = m;
        l->cap = cap;
    }
    l->m[l->n++] = (placer_move){lo, hi, from, to};
    return 0;
}

/* Owner in t of every hash in the interval ending at boundary v: the first
 * token >= v, found by advancing *i (boundaries come in ascending order). */
static uint32_t owner_at_boundary(const view *t, uint32_t *i, uint64_t v)
{
    while (*i < t->n && vtoken(t, *i) < v)
        (*i)++;
    return *i < t->n ? vowner(t, *i) : t->wrap_owner;
}

int plc_diff_views(const view *ta, const view *tb, const uint32_t *map, placer_move **moves,
                      size_t *count)
{
    uint64_t first = vtoken(ta, 0) < vtoken(tb, 0) ? vtoken(ta, 0) : vtoken(tb, 0);
    uint64_t last_a = vtoken(ta, ta->n - 1), last_b = vtoken(tb, tb->n - 1);
    uint64_t last = last_a > last_b ? last_a : last_b;

    move_list l = {NULL, 0, 0};
    int err = 0;
    /* The wrapping interval (last, first]: each ring's smallest token. */
    uint32_t fa = ta->wrap_owner, fb = tb->wrap_owner;
    int wrap_moves = mapped(map, fa) != fb;
    uint32_t ia = 0, ib = 0;
    uint64_t prev = first;
    /* Then every boundary after the first, in ascending order. */
    while (!err) {
        uint64_t va = ia < ta->n ? vtoken(ta, ia) : UINT64_MAX;
        uint64_t vb = ib < tb->n ? vtoken(tb, ib) : UINT64_MAX;
        int more_a = ia < ta->n, more_b = ib < tb->n;
        if (!more_a && !more_b)
            break;
        uint64_t v = !more_b || (more_a && va < vb) ? va : vb;
        if (v == prev) { /* the first boundary, or a token equal to it: skip past */
            while (ia < ta->n && vtoken(ta, ia) == v)
                ia++;
            while (ib < tb->n && vtoken(tb, ib) == v)
                ib++;
            continue;
        }
        uint32_t oa = owner_at_boundary(ta, &ia, v), ob = owner_at_boundary(tb, &ib, v);
        if (mapped(map, oa) != ob)
            err = add_move(&l, prev, v, oa, ob);
        prev = v;
        while (ia < ta->n && vtoken(ta, ia) == v)
            ia++;
        while (ib < tb->n && vtoken(tb, ib) == v)
            ib++;
    }
    if (!err && wrap_moves) {
        /* (last, first]: merge with a range ending at `last` when it is the
         * same move, else append (lo >= hi marks the wrap). */
        if (l.n && l.m[l.n - 1].hi == last && l.m[l.n - 1].from == fa && l.m[l.n - 1].to == fb &&
            first != last)
            l.m[l.n - 1].hi = first;
        else
            err = add_move(&l, last, first, fa, fb);
        /* A wrapping range that now meets the first range is one range. */
        if (!err && l.n > 1 && l.m[l.n - 1].hi == l.m[0].lo && l.m[l.n - 1].from == l.m[0].from &&
            l.m[l.n - 1].to == l.m[0].to) {
            l.m[0].lo = l.m[l.n - 1].lo;
            l.n--;
        }
    }
    if (err) {
        plc_free(l.m);
        return err;
    }
    if (!l.n) {
        plc_free(l.m);
        l.m = NULL;
    }
    *moves = l.m;
    *count = l.n;
    return 0;
}

int placer_diff(const placer_snapshot *a, const placer_snapshot *b, placer_move **moves,
                size_t *count)
{
    PLC_VALIDATE_OR_RET(a && b && moves && count, PLACER_ENULL);
    view va, vb;
    if (view_of(a, 0, &va) || view_of(b, 0, &vb))
        return PLACER_ENOTSUP;
    PLC_VALIDATE_OR_RET(plc_diff_same_positions(a, b), PLACER_EINVAL);
    uint32_t *map = plc_diff_map_nodes(a, b);
    if (!map)
        return PLACER_ENOMEM;
    int err = plc_diff_views(&va, &vb, map, moves, count);
    plc_free(map);
    return err;
}

int placer_diff_transition(const placer_snapshot *s, placer_move **moves, size_t *count)
{
    PLC_VALIDATE_OR_RET(s && moves && count, PLACER_ENULL);
    view vc, vt;
    if (view_of(s, 0, &vc))
        return PLACER_ENOTSUP;
    if (!s->has_target) {
        *moves = NULL;
        *count = 0;
        return 0;
    }
    uint32_t *map = plc_malloc((size_t)s->nnodes * sizeof *map);
    if (!map)
        return PLACER_ENOMEM;
    for (uint32_t i = 0; i < s->nnodes; i++)
        map[i] = i; /* the same nodes on both sides */
    view_of(s, 1, &vt);
    int err = plc_diff_views(&vc, &vt, map, moves, count);
    plc_free(map);
    return err;
}

void placer_moves_free(placer_move *moves)
{
    plc_free(moves);
}

/* Size of (lo, hi] as a fraction of 2^64; lo == hi is the whole space. */
static double range_share(const placer_move *m)
{
    if (m->lo == m->hi)
        return 1.0;
    return (double)(m->hi - m->lo) / 18446744073709551616.0;
}

double placer_moves_coverage(const placer_move *moves, size_t count)
{
    double f = 0;
    for (size_t i = 0; moves && i < count; i++)
        f += range_share(&moves[i]);
    return f;
}

/* The deprecated name (placer.h), until soname 2. */
double placer_moves_fraction(const placer_move *moves, size_t count)
{
    return placer_moves_coverage(moves, count);
}

int placer_moves_shares(const placer_snapshot *a, const placer_snapshot *b,
                        const placer_move *moves, size_t count, double *out_of, double *into)
{
    PLC_VALIDATE_OR_RET(a && b && (moves || !count), PLACER_ENULL);
    for (size_t i = 0; i < count; i++)
        PLC_VALIDATE_OR_RET((moves[i].from < a->nnodes || moves[i].from == ABSENT) &&
                                (moves[i].to < b->nnodes || moves[i].to == ABSENT),
                            PLACER_ERANGE);
    if (out_of)
        memset(out_of, 0, (size_t)a->nnodes * sizeof *out_of);
    if (into)
        memset(into, 0, (size_t)b->nnodes * sizeof *into);
    for (size_t i = 0; i < count; i++) {
        double f = range_share(&moves[i]);
        if (out_of && moves[i].from != ABSENT)
            out_of[moves[i].from] += f;
        if (into && moves[i].to != ABSENT)
            into[moves[i].to] += f;
    }
    return 0;
}
