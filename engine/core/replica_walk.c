/*
 * replica_walk.c -- the replica walk the ring, Maglev and jump share: the
 * primary, then clockwise distinct physical nodes, preferring zones not
 * used yet.
 *
 * From the key's slot the walk goes clockwise twice at most. The first lap
 * takes a node only if it is new and its zone is unused, and ends once
 * every zone of the placement is used; the second takes any new node. So
 * zones are distinct while unused ones remain, nodes are always distinct,
 * and a ring with fewer nodes (or zones) than asked is reported, never
 * padded. Deterministic: it depends only on the snapshot and the hash.
 * With AVX-512 (s->walk_lines, s->walk_window: simd/walk.h) the first lap
 * is read in vectors: from the key's line of the line table and the next
 * when they hold it (plc_replicas_walk_hash), else three leaf lines at a
 * time, picks as a mask rather than a branch a token; the second lap and
 * other CPU levels go a token at a time. placer_builder_set_replicas(b, R) precomputes the
 * sets of R for every slot at build time (4 * R bytes per token), and then
 * any want <= R is a lookup plus one read (replicas.c).
 */
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "snapshot_internal.h"
#include "validate.h"

/* A clockwise cursor over the ring's leaf lines (no division per step), or
 * over a flat owner sequence (Maglev's table, jump's buckets; memento's,
 * anchor's and dx's, whose removed buckets are PLC_NO_NODE: skipped). */
typedef struct cursor {
    const plc_stree_leaf *leaf, *first, *end;
    uint32_t slot, left; /* slot in the leaf; tokens left in this lap */
    uint32_t last_slots; /* tokens in the last leaf */
    const uint32_t *flat; /* flat mode when not NULL: flat[0..n) */
    uint32_t pos, n;
} cursor;

static void cursor_flat(cursor *c, const uint32_t *seq, uint32_t n, uint32_t i)
{
    c->flat = seq;
    c->n = n;
    c->pos = i;
    c->left = n;
}

static void cursor_at(cursor *c, const plc_stree *t, uint32_t i)
{
    c->flat = NULL;
    c->first = t->leaves;
    c->end = t->leaves + t->nleaves;
    c->leaf = t->leaves + i / PLC_STREE_LEAF;
    c->slot = i % PLC_STREE_LEAF;
    c->left = t->n;
    c->last_slots = t->n - (t->nleaves - 1) * PLC_STREE_LEAF;
}

/* The owner of the next token clockwise; call at most `left` times a lap.
 * Inlined with the walk, so that the ring's walk (plc_replicas_walk) is
 * compiled with the flat branch gone. */
static inline __attribute__((always_inline)) uint32_t cursor_next(cursor *c)
{
    if (c->flat) {
        c->pos = c->pos + 1 == c->n ? 0 : c->pos + 1;
        c->left--;
        return c->flat[c->pos];
    }
    uint32_t slots = c->leaf + 1 == c->end ? c->last_slots : PLC_STREE_LEAF;
    if (++c->slot >= slots) {
        c->slot = 0;
        if (++c->leaf == c->end)
            c->leaf = c->first;
    }
    c->left--;
    return c->leaf->owner[c->slot];
}


static int chosen(const uint32_t *out, uint32_t count, uint32_t node)
{
    for (uint32_t i = 0; i < count; i++)
        if (out[i] == node)
            return 1;
    return 0;
}

/* Is zone z among the zones picked so far? In the first lap every pick adds
 * a new zone, so the zones picked are exactly those of out[0..count): the
 * first ZONE_CAP are also kept in a small array, beyond that the chosen
 * nodes' records are read. */
#define ZONE_CAP 64u
static int zone_taken(const placer_snapshot *s, const uint32_t *zone, uint32_t nz,
                      const uint32_t *out, uint32_t count, uint32_t z)
{
    if (nz <= ZONE_CAP)
        return chosen(zone, nz, z);
    for (uint32_t i = 0; i < count; i++)
        if (s->nodes[out[i]].zone_id == z)
            return 1;
    return 0;
}

/* The second lap from the start (the cursor `c`): any node not taken yet. */
static inline __attribute__((always_inline)) uint32_t second_lap(cursor c, uint32_t *out,
                                                                 uint32_t count, uint32_t want)
{
    while (c.left > 1 && count < want) {
        uint32_t o = cursor_next(&c);
        if (o != PLC_NO_NODE && !chosen(out, count, o))
            out[count++] = o;
    }
    return count;
}

/* The walk from the cursor's position, whose owner is `first`; returns how
 * many nodes it wrote, and the number of distinct zones among them in
 * *zones. `restart` puts the cursor back for the second lap. */
static inline __attribute__((always_inline)) uint32_t walk(const placer_snapshot *s, cursor c,
                                                           uint32_t first, uint32_t *out,
                                                           uint32_t want, uint32_t *zones)
{
    const cursor restart = c;
    uint32_t zone[ZONE_CAP];
    uint32_t count = 0, nz = 0;
    out[count++] = first;
    /* The first lap, when every zone id is below 64 (placements of up to
     * 64 zone names): the zones taken are a bit mask, and a node whose
     * zone is not taken cannot have been taken either, so one bit test
     * decides a step. It is applied without a branch (the node is written
     * at out[count], and count moves only when it is new), because whether
     * a step's zone is new is a coin toss the branch predictor loses. */
    if (s->zone_ids <= 64) {
        uint64_t taken = (uint64_t)1 << s->nodes[first].zone_id;
        while (c.left > 1 && count < want && count < s->nzones) {
            uint32_t o = cursor_next(&c);
            if (o == PLC_NO_NODE) /* a removed bucket (memento, anchor, dx) */
                continue;
            uint32_t z = s->nodes[o].zone_id;
            uint32_t fresh = (uint32_t)(~taken >> z & 1);
            out[count] = o;
            count += fresh;
            taken |= (uint64_t)fresh << z;
        }
        nz = count; /* every pick of the first lap is a new zone */
    } else {
        zone[nz++] = s->nodes[first].zone_id;
        while (c.left > 1 && count < want && nz < s->nzones) {
            uint32_t o = cursor_next(&c);
            if (o == PLC_NO_NODE)
                continue;
            uint32_t z = s->nodes[o].zone_id;
            if (zone_taken(s, zone, nz, out, count, z)) /* a new zone: a new node too */
                continue;
            out[count++] = o;
            if (nz < ZONE_CAP)
                zone[nz] = z;
            nz++;
        }
    }
    if (count < want)
        count = second_lap(restart, out, count, want);
    *zones = nz;
    return count;
}

/* The window reads a node's zone as zone_id of the records, a 4-byte
 * stride apart. */
_Static_assert(sizeof(plc_node) % sizeof(uint32_t) == 0 &&
                   offsetof(plc_node, zone_id) % sizeof(uint32_t) == 0,
               "plc_node's zone_id at a 4-byte stride");
#define ZSTRIDE ((uint32_t)(sizeof(plc_node) / sizeof(uint32_t)))

/* The ring's first lap a window of three leaf lines at a time
 * (simd/walk.h): from the start token (always taken: no zone is used yet)
 * over the ring's n tokens once, until lap1 zones are used. A window ends
 * where the lap or the ring does; the last two leaves, where a window has
 * no three lines to read, go a token at a time. One window answers most
 * keys (15 - j tokens: 3 zones are all in 11 about 98% of the time), so
 * the loop's one branch is predictable. */
static uint32_t ring_first_lap(const placer_snapshot *s, uint32_t start, uint32_t *out,
                               uint32_t lap1)
{
    const plc_stree *t = &s->tree;
    const uint32_t *zone = &s->nodes[0].zone_id;
    const uint32_t zstride = ZSTRIDE;
    const uint32_t n = t->n, wend = t->nleaves > 2 ? t->nleaves - 2 : 0;
    uint32_t taken = 0, count = 0, p = start, rem = n;
    while (count < lap1 && rem) {
        uint32_t leaf = p / PLC_STREE_LEAF, j = p % PLC_STREE_LEAF, lim = 1;
        if (__builtin_expect(leaf < wend, 1)) {
            lim = PLC_WALK_WINDOW_LEAVES * PLC_STREE_LEAF - j;
            lim = lim < rem ? lim : rem;
            lim = lim < n - p ? lim : n - p; /* the third leaf may be the last, part full */
            count += s->walk_window(t->leaves + leaf, j, lim, zone, zstride, &taken, lap1 - count,
                                    out + count);
        } else {
            uint32_t o = t->leaves[leaf].owner[j], z = zone[(size_t)o * zstride];
            uint32_t fresh = (uint32_t)(~taken >> z & 1);
            out[count] = o; /* count < lap1 <= want */
            count += fresh;
            taken |= fresh << z;
        }
        rem -= lim;
        p += lim;
        p = p == n ? 0 : p;
    }
    return count;
}

void plc_replicas_walk_kernels(placer_snapshot *s, plc_walk_window_fn window,
                               plc_walk_lines_fn lines)
{
    /* zone ids below 32 (a 32-bit mask of those taken), and nodes few
     * enough for the gather's 31-bit indexes */
    int fit = s->zone_ids <= PLC_WALK_MAX_ZONES && s->nnodes <= INT32_MAX / ZSTRIDE;
    s->walk_window = fit ? window : NULL;
    s->walk_lines = fit ? lines : NULL;
}

uint32_t plc_replicas_walk(const placer_snapshot *s, uint32_t start, uint32_t *out, uint32_t want,
                           uint32_t *zones)
{
    cursor c;
    if (__builtin_expect(s->walk_window != NULL, 1)) {
        uint32_t lap1 = want < s->nzones ? want : s->nzones;
        uint32_t count = ring_first_lap(s, start, out, lap1 ? lap1 : 1);
        *zones = count; /* every pick of the first lap is a new zone */
        if (__builtin_expect(count < want, 0)) {
            cursor_at(&c, &s->tree, start);
            count = second_lap(c, out, count, want);
        }
        return count;
    }
    cursor_at(&c, &s->tree, start);
    return walk(s, c, plc_stree_owner_at(&s->tree, start), out, want, zones);
}

uint32_t plc_replicas_walk_hash(const placer_snapshot *s, uint64_t h, uint32_t *out,
                                uint32_t want)
{
    /* want <= nzones: the first lap is the whole set */
    if (__builtin_expect(s->walk_lines && want <= s->nzones, 1) &&
        __builtin_expect(s->walk_lines(&s->bkt, h, &s->nodes[0].zone_id, ZSTRIDE,
                                       s->nnodes <= PLC_WALK_SMALL_NODES ? s->walk_zone16 : NULL,
                                       want, out) != 0,
                         1))
        return want;
    uint32_t zones;
    return plc_replicas_walk(s, s->bkt_index(&s->bkt, h), out, want, &zones);
}

uint32_t plc_replicas_walk_flat(const placer_snapshot *s, const uint32_t *seq, uint32_t n,
                                uint32_t start, uint32_t *out, uint32_t want, uint32_t *zones)
{
    cursor c;
    cursor_flat(&c, seq, n, start);
    return walk(s, c, seq[start], out, want, zones);
}

uint32_t plc_distinct_zones(const placer_snapshot *s, const uint32_t *set, uint32_t k)
{
    uint32_t d = 0;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t seen = 0;
        for (uint32_t j = 0; j < i; j++)
            seen |= s->nodes[set[j]].zone_id == s->nodes[set[i]].zone_id;
        d += !seen;
    }
    return d;
}

/* Puts x first in list[0..*n) (dropping its earlier copy, by key), keeping
 * at most cap entries: the first distinct keys from one position, made
 * from those of the next position. */
static void push_front(uint32_t *key, uint32_t *val, uint32_t *n, uint32_t cap, uint32_t k,
                       uint32_t v)
{
    uint32_t at = *n < cap ? *n : cap - 1; /* the entry that goes: k's copy, else the last */
    for (uint32_t i = 0; i < *n; i++)
        if (key[i] == k) {
            at = i;
            break;
        }
    if (at == *n)
        (*n)++;
    for (uint32_t i = at; i > 0; i--) {
        key[i] = key[i - 1];
        val[i] = val[i - 1];
    }
    key[0] = k;
    val[0] = v;
}

int plc_replicas_walk_all(const placer_snapshot *s, uint32_t want, uint32_t *sets)
{
    /* The walk from slot i takes, in its first lap, the node at the first
     * slot of each zone not seen yet (up to want, and no further once every
     * zone is used); in its second, the first nodes not taken yet, in the
     * order they first appear. Both are "the first distinct zones (nodes)
     * from slot i", which slot i's lists get from slot i + 1's by putting
     * slot i's zone (node) first: going counterclockwise over two laps,
     * O(want) per slot instead of a walk that can cross the ring (a node
     * owning most tokens made every set a walk of the whole ring). */
    const plc_stree *t = &s->tree;
    uint32_t n = t->n;
    if (!want || !n)
        return 0;
    uint32_t *buf = plc_malloc(sizeof *buf * 4 * (size_t)want);
    if (!buf)
        return PLACER_ENOMEM;
    uint32_t *zkey = buf, *znode = buf + want, *nkey = buf + 2 * (size_t)want,
             *nval = buf + 3 * (size_t)want;
    uint32_t nz = 0, nn = 0;
    uint32_t lap1 = want < s->nzones ? want : s->nzones;
    if (lap1 < 1)
        lap1 = 1;
    for (uint64_t p = 2 * (uint64_t)n; p-- > 0;) {
        uint32_t i = (uint32_t)(p % n), o = plc_stree_owner_at(t, i);
        push_front(zkey, znode, &nz, want, s->nodes[o].zone_id, o);
        push_front(nkey, nval, &nn, want, o, o);
        if (p >= n)
            continue; /* the first lap only fills the lists */
        uint32_t *set = sets + (size_t)i * want, count = 0;
        for (uint32_t j = 0; j < nz && count < lap1; j++)
            set[count++] = znode[j];
        for (uint32_t j = 0; j < nn && count < want; j++)
            if (!chosen(set, count, nkey[j]))
                set[count++] = nkey[j];
        for (uint32_t j = count; j < want; j++)
            set[j] = UINT32_MAX;
    }
    plc_free(buf);
    return 0;
}
