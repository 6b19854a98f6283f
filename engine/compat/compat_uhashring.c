/*
 * compat_uhashring.c -- uhashring 2.1's two rings, as its Python builds
 * and searches them (HashRing in ring.py):
 *
 *   default  ring_meta.py: node n with vnodes v and weight w has the v * w
 *            points int(md5(f"{n}-{j}").hexdigest(), 16), j = 0 .. v*w - 1:
 *            128-bit integers, the digest read big-endian.
 *   ketama   ring_ketama.py: node n has ks = v * len(nodes) * w //
 *            sum(weights) names f"{n}-{j}", j < ks, and each name's MD5
 *            gives `replicas` points, the little-endian 32-bit words at
 *            bytes 0, 4, 8, 12 (as libmemcached's ketama).
 *
 * Both store ring[point] = node in a dict, nodes in their declaration
 * order, so the node written last at a point owns it; get_node() is
 * bisect (bisect_right) of the key's hash in the sorted points: the
 * first point strictly above it, index 0 past the last. The key's hash:
 * the same MD5 of str(key), as 128 bits or as its low little-endian word.
 *
 * placer's layouts hold 32-bit points, so the default ring keeps each
 * point's top 32 bits, ordered by all 128, and the other 96 bits beside
 * them: a key whose top 32 bits equal a point's is decided by comparing
 * the rest (plc_compat_uhashring_meta_slot), every other key by its top
 * bits alone, exactly as the 128-bit comparison.
 */
#include <string.h>

#include "alloc.h"
#include "compat_layout_kit.h"
#include "compat_program.h"
#include "compat_uhashring.h"
#include "kernels.h"
#include "md5x8.h"
#include "placer.h"

const char *plc_compat_uhashring_name(const plc_compat_node *nd, size_t *len)
{
    if (nd->id && nd->id_len) {
        *len = nd->id_len;
        return nd->id;
    }
    *len = nd->address ? nd->address_len : 0;
    return nd->address;
}

static uint32_t node_vnodes(const plc_uhashring_params *p, uint32_t i)
{
    if (p->node_vnodes && p->node_vnodes[i])
        return p->node_vnodes[i];
    if (p->vnodes)
        return p->vnodes;
    return p->ketama ? PLC_UHASHRING_KETAMA_VNODES : PLC_UHASHRING_META_VNODES;
}

static uint32_t replicas(const plc_uhashring_params *p)
{
    return p->replicas ? p->replicas : PLC_UHASHRING_KETAMA_REPLICAS;
}

/* ks of node i: v * len(nodes) * w // sum(weights) (below 2^64: v, w < 2^16). */
static uint64_t ketama_names(const plc_compat_config *c, const plc_uhashring_params *p,
                             uint32_t i, uint64_t total)
{
    return (uint64_t)node_vnodes(p, i) * c->nodes[i].weight * c->nnodes / total;
}

int plc_compat_uhashring_size(const plc_compat_config *c, const plc_uhashring_params *p,
                              uint64_t *n)
{
    if (p->vnodes > PLC_UHASHRING_MAX_VNODES || replicas(p) > PLC_UHASHRING_KETAMA_REPLICAS)
        return PLACER_EINVAL;
    uint64_t total;
    int rc = plc_compat_check_weights(c, PLC_UHASHRING_MAX_WEIGHT, &total);
    if (rc)
        return rc;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        size_t len;
        if (node_vnodes(p, i) > PLC_UHASHRING_MAX_VNODES || !plc_compat_uhashring_name(&c->nodes[i], &len) ||
            len == 0)
            return PLACER_EINVAL;
        if (p->ketama)
            sum += ketama_names(c, p, i, total) * replicas(p);
        else
            sum += (uint64_t)node_vnodes(p, i) * c->nodes[i].weight;
    }
    *n = sum;
    return 0;
}

static inline uint64_t load_be64(const unsigned char *d)
{
    uint64_t v = 0;
    for (int k = 0; k < 8; k++)
        v = v << 8 | d[k];
    return v;
}

static inline uint32_t load_le32(const unsigned char *d)
{
    return (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
}

/* The default ring's order past the top 64 bits (the radix sort's key):
 * runs of equal top 64 bits (about n^2 / 2^65 of them) sorted by the other
 * 64 bits, insertion order kept among equal points; then the rest moved
 * into sorted order and each run of equal 128-bit points given its last
 * writer. by_seq holds each point's 12 bytes by insertion order. */
static void meta_finish(plc_compat_points *a, const unsigned char *by_seq, unsigned char *rest)
{
    const size_t R = PLC_UHASHRING_REST;
    for (uint32_t i = 0; i < a->n;) {
        uint32_t j = i + 1;
        while (j < a->n && a->v[j].token == a->v[i].token)
            j++;
        for (uint32_t k = i + 1; k < j; k++) { /* insertion: stable */
            plc_sort_entry e = a->v[k];
            uint32_t m = k;
            while (m > i && memcmp(by_seq + R * a->v[m - 1].seq + 4, by_seq + R * e.seq + 4, 8) > 0) {
                a->v[m] = a->v[m - 1];
                m--;
            }
            a->v[m] = e;
        }
        for (uint32_t k = i; k < j;) { /* equal 128 bits: the last writer */
            uint32_t m = k + 1, last = k;
            while (m < j && !memcmp(by_seq + R * a->v[m].seq + 4, by_seq + R * a->v[k].seq + 4, 8)) {
                if (a->v[m].seq > a->v[last].seq)
                    last = m;
                m++;
            }
            for (uint32_t q = k; q < m; q++)
                a->v[q].owner = a->v[last].owner;
            k = m;
        }
        i = j;
    }
    for (uint32_t i = 0; i < a->n; i++) {
        memcpy(rest + R * i, by_seq + R * a->v[i].seq, R);
        a->v[i].token >>= 32;
    }
}

/* "name-j" into buf (room: len + 11); its length. */
static size_t point_name(char *buf, const char *name, size_t len, uint32_t j)
{
    memcpy(buf, name, len);
    buf[len] = '-';
    return len + 1 + plc_compat_put_decimal(buf + len + 1, j);
}

int plc_compat_uhashring_ring(const plc_compat_config *c, const plc_uhashring_params *p,
                              plc_compat_points *a, unsigned char *rest)
{
    uint64_t need, total = 0;
    int rc = plc_compat_uhashring_size(c, p, &need);
    if (rc)
        return rc;
    if (need > a->cap - a->n)
        return PLACER_ETOOMANY;
    if (!p->ketama && !rest)
        return PLACER_ENULL;
    if (a->n)
        return PLACER_EINVAL; /* by_seq is indexed by seq */
    size_t longest = 0;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        size_t len;
        plc_compat_uhashring_name(&c->nodes[i], &len);
        longest = len > longest ? len : longest;
        total += c->nodes[i].weight;
    }
    char *buf = plc_malloc(longest + 12);
    unsigned char *by_seq = p->ketama ? NULL : plc_calloc(need ? need : 1, PLC_UHASHRING_REST);
    if (!buf || (!p->ketama && !by_seq)) {
        plc_free(buf);
        plc_free(by_seq);
        return PLACER_ENOMEM;
    }
    unsigned char d[16];
    for (uint32_t i = 0; i < c->nnodes && !rc; i++) {
        size_t len;
        const char *name = plc_compat_uhashring_name(&c->nodes[i], &len);
        uint64_t names = p->ketama ? ketama_names(c, p, i, total)
                                   : (uint64_t)node_vnodes(p, i) * c->nodes[i].weight;
        for (uint64_t j = 0; j < names && !rc; j++) {
            plc_compat_md5(buf, point_name(buf, name, len, (uint32_t)j), d);
            if (p->ketama) {
                for (uint32_t r = 0; r < replicas(p) && !rc; r++)
                    rc = plc_compat_points_push(a, load_le32(d + 4 * r), i);
            } else {
                memcpy(by_seq + (size_t)PLC_UHASHRING_REST * a->n, d + 4, PLC_UHASHRING_REST);
                rc = plc_compat_points_push(a, 0, i);
                a->v[a->n - 1].token = load_be64(d); /* the top 64 bits sort */
            }
        }
    }
    plc_free(buf);
    if (!rc)
        rc = plc_compat_points_sort(a);
    if (!rc) {
        if (p->ketama)
            plc_compat_points_last_wins(a);
        else
            meta_finish(a, by_seq, rest);
    }
    plc_free(by_seq);
    return rc;
}

uint32_t plc_compat_uhashring_ketama_key(const void *key, size_t len)
{
    return plc_hash_md5(key, len) + 1u;
}

void plc_compat_uhashring_meta_key(const void *key, size_t len, unsigned char d[16])
{
    plc_compat_md5(key, len, d);
}

uint32_t plc_compat_uhashring_meta_slot(const uint32_t *points, const unsigned char *rest,
                                        uint32_t n, uint32_t i, const unsigned char d[16])
{
    uint32_t top = plc_compat_uhashring_top(d);
    while (i < n && points[i] == top && memcmp(rest + (size_t)PLC_UHASHRING_REST * i, d + 4,
                                               PLC_UHASHRING_REST) <= 0)
        i++;
    return i < n ? i : 0;
}

/* The MD5 first words (little-endian) of m <= 32 keys: the dispatch
 * table's multi-buffer MD5 when every key fits it, else one at a time. */
static void first_words(const plc_kernels *k, const void *const *keys, const size_t *lens, size_t m,
                        uint32_t *w)
{
    int fits = k->md5_batch != NULL;
    for (size_t i = 0; i < m && fits; i++)
        fits = lens[i] <= PLC_MD5X8_MAX_LEN;
    if (fits) {
        k->md5_batch(keys, lens, m, w);
        return;
    }
    for (size_t i = 0; i < m; i++)
        w[i] = plc_hash_md5(keys[i], lens[i]);
}

void plc_compat_uhashring_lookup_batch(const plc_compat_layout *l, const unsigned char *rest,
                                       const void *const *keys, const size_t *lens, size_t count,
                                       uint32_t *out)
{
    const plc_kernels *k = plc_kernels_get();
    size_t lanes = k->md5_batch ? k->md5_lanes : 32;
    uint32_t w[PLC_MD5X32_LANES];
    for (size_t at = 0; at < count; at += lanes) {
        size_t m = count - at < lanes ? count - at : lanes;
        first_words(k, keys + at, lens + at, m, w);
        for (size_t i = 0; i < m; i++) {
            if (!rest) { /* ketama: the first point above the word */
                out[at + i] = l->owners[plc_compat_slot(l, w[i] + 1u)];
                continue;
            }
            /* the default ring: the digest's top 32 bits, big-endian */
            uint32_t top = w[i] << 24 | (w[i] & 0xff00u) << 8 | (w[i] >> 8 & 0xff00u) | w[i] >> 24;
            uint32_t s = plc_compat_slot(l, top);
            if (l->points[s] == top) { /* its other 96 bits decide */
                unsigned char d[16];
                plc_compat_md5(keys[at + i], lens[at + i], d);
                s = plc_compat_uhashring_meta_slot(l->points, rest, l->n, s, d);
            }
            out[at + i] = l->owners[s];
        }
    }
}

/* ---- uhashring's ops (compat_program.h) ---- */

static const plc_compat_param uhashring_params[] = {
    /* HashRing(vnodes=...): 0 is its default, 160 (ketama: 40) */
    {"vnodes", 0, PLC_UHASHRING_MAX_VNODES, 0},
    /* HashRing(replicas=...), read by the ketama ring only */
    {"replicas", 1, PLC_UHASHRING_KETAMA_REPLICAS, PLC_UHASHRING_KETAMA_REPLICAS},
};

/* The nodes' own vnodes of c into a new array (*own; NULL when no node has
 * any), and the params of l with them. 0 or PLACER_ENOMEM. */
static int params_of(const plc_compat_config *c, const plc_compat_layout *l,
                     plc_uhashring_params *p, uint32_t **own)
{
    *own = NULL;
    for (uint32_t i = 0; i < c->nnodes && !*own; i++)
        if (c->nodes[i].vnodes && !(*own = plc_calloc(c->nnodes, sizeof **own)))
            return PLACER_ENOMEM;
    for (uint32_t i = 0; *own && i < c->nnodes; i++)
        (*own)[i] = c->nodes[i].vnodes;
    *p = (plc_uhashring_params){l->distribution == PLC_CD_KETAMA, l->params[0], l->params[1], *own};
    return 0;
}

static int uhashring_size(const plc_compat_config *c, const plc_compat_layout *l, uint64_t *n)
{
    plc_uhashring_params p;
    uint32_t *own;
    int rc = params_of(c, l, &p, &own);
    if (!rc)
        rc = plc_compat_uhashring_size(c, &p, n);
    plc_free(own);
    return rc;
}

/* The ring made and sorted by plc_compat_uhashring_ring, copied as it is
 * (the default ring's order is by all 128 bits: not re-sorted). */
static int uhashring_build(const plc_compat_config *c, plc_compat_layout *l, uint64_t max_points)
{
    plc_uhashring_params p;
    uint64_t n;
    int rc = params_of(c, l, &p, &l->node_vnodes); /* kept: the codec's section 14 */
    if (!rc)
        rc = plc_compat_uhashring_size(c, &p, &n);
    if (rc)
        return rc;
    if (n > max_points)
        return PLACER_ETOOMANY;
    if (n == 0)
        return PLACER_EINVAL; /* every ketama share rounded to no point */
    plc_compat_points a;
    if ((rc = plc_compat_ring_room(l, &a, n)) != 0)
        return rc;
    if (!p.ketama && !(l->extra = plc_malloc((size_t)n * PLC_UHASHRING_REST)))
        rc = PLACER_ENOMEM;
    if (!rc)
        rc = plc_compat_uhashring_ring(c, &p, &a, l->extra);
    if (!rc) {
        l->n = a.n;
        l->points = plc_malloc(sizeof *l->points * a.n);
        l->owners = plc_malloc(sizeof *l->owners * a.n);
        if (!l->points || !l->owners)
            rc = PLACER_ENOMEM;
    }
    for (uint32_t j = 0; !rc && j < a.n; j++) {
        l->points[j] = (uint32_t)a.v[j].token;
        l->owners[j] = a.v[j].owner;
    }
    plc_free(a.v);
    return rc;
}

/* What the points are searched with (the key's position, which
 * placer_lookup_hash and the replica, handoff and diff calls take back):
 * the ketama word + 1 (bisect's "strictly above"); for the default ring
 * the digest's top 32 bits, or those + 1 when the key's 128 bits are at
 * or past every point sharing them (so the search passes them, as
 * bisect does; 2^32 - 1 + 1 wraps to the first point, as bisect wraps).
 * Exact but when two points share their top 32 bits and the key's 96
 * other bits fall between theirs (about n^2 / 2^65 pairs, each hit by
 * one key in 2^32): a position cannot say "between", so there the hash
 * calls answer the later point's owner; placer_lookup and its batch
 * (uhashring_lookup) always answer exactly. */
static uint32_t uhashring_key_hash(const plc_compat_layout *l, const unsigned char *k, size_t len)
{
    if (l->distribution == PLC_CD_KETAMA)
        return plc_compat_uhashring_ketama_key(k, len);
    unsigned char d[16];
    plc_compat_uhashring_meta_key(k, len, d);
    uint32_t top = plc_compat_uhashring_top(d);
    if (!l->n || !l->extra) /* resolved only: no points to pass */
        return top;
    uint32_t s = plc_compat_slot(l, top);
    if (l->points[s] != top)
        return top;
    uint32_t t = plc_compat_uhashring_meta_slot(l->points, l->extra, l->n, s, d);
    return l->points[t] == top && t >= s ? top : top + 1u;
}

static uint32_t uhashring_lookup(const plc_compat_layout *l, const void *key, size_t len)
{
    if (l->distribution == PLC_CD_KETAMA)
        return l->owners[plc_compat_slot(l, plc_compat_uhashring_ketama_key(key, len))];
    unsigned char d[16];
    plc_compat_uhashring_meta_key(key, len, d);
    uint32_t s = plc_compat_slot(l, plc_compat_uhashring_top(d));
    return l->owners[plc_compat_uhashring_meta_slot(l->points, l->extra, l->n, s, d)];
}

static void uhashring_lookup_batch(const plc_compat_layout *l, const void *const *keys,
                                   const size_t *lens, size_t count, uint32_t *out)
{
    plc_compat_uhashring_lookup_batch(l, l->distribution == PLC_CD_KETAMA ? NULL : l->extra, keys,
                                      lens, count, out);
}

static const plc_compat_distribution uhashring_distributions[] = {
    /* HashRing's default ring (ring_meta.py), and hash_fn="ketama" */
    {"consistent", PLC_CD_CONSISTENT, PLC_CL_RING, PLC_CH_MD5, 0},
    {"ketama", PLC_CD_KETAMA, PLC_CL_RING, PLC_CH_MD5, 0},
};

static const plc_compat_hash_entry uhashring_hashes[] = {{"md5", PLC_CH_MD5}};

const plc_compat_program plc_compat_uhashring = {
    .id = PLACER_COMPAT_UHASHRING,
    .name = "uhashring",
    .title = "uhashring",
    .distributions = uhashring_distributions,
    .ndistributions = sizeof uhashring_distributions / sizeof uhashring_distributions[0],
    .hashes = uhashring_hashes,
    .nhashes = 1,
    .max_weight = PLC_UHASHRING_MAX_WEIGHT,
    .fields = PLC_CF_NODE_VNODES,
    .params = uhashring_params,
    .nparams = sizeof uhashring_params / sizeof uhashring_params[0],
    .size = uhashring_size,
    .build = uhashring_build,
    .key_hash = uhashring_key_hash,
    .batch_rule = PLC_CK_OWN, /* its lookups are its own */
    .lookup = uhashring_lookup,
    .lookup_batch = uhashring_lookup_batch,
};
