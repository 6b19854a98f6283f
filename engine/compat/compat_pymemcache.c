/*
 * compat_pymemcache.c -- pymemcache's RendezvousHash, as its Python does it:
 *
 *   get_node(key): for each node, score = murmur3_32("%s-%s" % (node, key),
 *   seed 0); the highest score wins, and an equal score goes to
 *   max(str(node), str(winner)), so the order of the nodes never matters.
 *
 * murmur3.py hashes a str, not bytes: each character is ord(c), masked to
 * its low 8 bits everywhere but the top byte of a block, whose bits past
 * 32 its later masks drop, and the length it mixes in is the number of
 * characters. So for an ASCII text it is MurmurHash3_x86_32 of the bytes,
 * and for any other it is MurmurHash3 of the code points' low bytes. The
 * text is "name-key": each node's "name-" is hashed once
 * (plc_compat_pymemcache_nodes), and a key continues from there.
 *
 * As a registry program ("compat": "pymemcache") its layout is of the
 * kind of its own, PLC_CL_SCORES (compat.h): no points, owners[i] = i,
 * each node's state after "name-" beside them (layout->extra), and the
 * key's "hash" the index of its winner.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "compat_layout_kit.h"
#include "compat_program.h"
#include "compat_pymemcache.h"
#include "placer.h"

static inline uint32_t rotl32(uint32_t x, int r)
{
    return x << r | x >> (32 - r);
}

static inline uint32_t mix_k(uint32_t k)
{
    k *= 0xcc9e2d51u;
    k = rotl32(k, 15);
    return k * 0x1b873593u;
}

static inline uint32_t mix_h(uint32_t h, uint32_t k)
{
    h ^= mix_k(k);
    h = rotl32(h, 13);
    return h * 5u + 0xe6546b64u;
}

static inline uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Bytes p[0..n) (already one per character) onto the state. */
static void feed(plc_pymemcache_node *s, const unsigned char *p, size_t n)
{
    size_t i = 0;
    s->chars += (uint32_t)n; /* only its low 32 bits reach the hash */
    while (s->carry_n && i < n) {
        s->carry |= (uint32_t)p[i++] << (8 * s->carry_n);
        if (++s->carry_n == 4) {
            s->h1 = mix_h(s->h1, s->carry);
            s->carry = s->carry_n = 0;
        }
    }
    for (; i + 4 <= n; i += 4)
        s->h1 = mix_h(s->h1, load_le32(p + i));
    for (; i < n; i++)
        s->carry |= (uint32_t)p[i] << (8 * s->carry_n++);
}

static uint32_t finish(const plc_pymemcache_node *s)
{
    uint32_t h = s->h1;
    if (s->carry_n)
        h ^= mix_k(s->carry);
    h ^= s->chars;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ h >> 16;
}

/* The characters of p[*pos..n) as their low bytes into out (room cap),
 * whole characters only; their count. Past them *pos. */
static size_t reduce(const unsigned char *p, size_t n, size_t *pos, unsigned char *out, size_t cap)
{
    size_t i = *pos, m = 0;
    while (i < n && m < cap) {
        size_t len = plc_compat_utf8_seq(p + i, n - i);
        if (len <= 1) { /* ASCII, or a byte standing for itself */
            out[m++] = p[i++];
            continue;
        }
        out[m++] = (unsigned char)((p[i + len - 2] & 0x03) << 6 | (p[i + len - 1] & 0x3F));
        i += len;
    }
    *pos = i;
    return m;
}

static int is_ascii(const unsigned char *p, size_t n)
{
    unsigned char acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc < 0x80;
}

#define CHUNK 512

/* The state of nd with the key fed (reduced in chunks when not ASCII). */
static uint32_t score_slow(const plc_pymemcache_node *nd, const unsigned char *k, size_t len)
{
    plc_pymemcache_node s = *nd;
    unsigned char buf[CHUNK];
    size_t pos = 0;
    while (pos < len)
        feed(&s, buf, reduce(k, len, &pos, buf, sizeof buf));
    return finish(&s);
}

uint32_t plc_compat_pymemcache_score(const plc_pymemcache_node *nd, const void *key, size_t len)
{
    const unsigned char *k = key;
    if (!is_ascii(k, len))
        return score_slow(nd, k, len);
    plc_pymemcache_node s = *nd;
    feed(&s, k, len);
    return finish(&s);
}

uint32_t plc_compat_pymemcache_pick(const plc_pymemcache_node *nodes, uint32_t n,
                                    const void *key, size_t len)
{
    const unsigned char *k = key;
    unsigned char buf[CHUNK];
    int slow = 0;
    if (!is_ascii(k, len)) {
        size_t pos = 0, m = reduce(k, len, &pos, buf, sizeof buf);
        if (pos == len) { /* the whole key reduced once, for every node */
            k = buf;
            len = m;
        } else
            slow = 1;
    }
    uint64_t best = 0;
    uint32_t win = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t score;
        if (slow)
            score = score_slow(&nodes[i], key, len);
        else {
            plc_pymemcache_node s = nodes[i];
            feed(&s, k, len);
            score = finish(&s);
        }
        /* (score, rank): the higher score, then the greater name */
        uint64_t v = (uint64_t)score << 32 | nodes[i].rank;
        if (v >= best) {
            best = v;
            win = i;
        }
    }
    return win;
}

void plc_compat_pymemcache_pick_batch(const plc_pymemcache_node *nodes, uint32_t n,
                                      const void *const *keys, const size_t *lens, size_t count,
                                      uint32_t *out)
{
    for (size_t i = 0; i < count; i++)
        out[i] = plc_compat_pymemcache_pick(nodes, n, keys[i], lens[i]);
}

/* Order of two nodes' names (qsort over pointers to them): Python's str
 * order, which for UTF-8 is the bytes' order (a prefix first). */
static int name_cmp(const void *pa, const void *pb)
{
    const plc_compat_node *a = *(const plc_compat_node *const *)pa;
    const plc_compat_node *b = *(const plc_compat_node *const *)pb;
    size_t m = a->address_len < b->address_len ? a->address_len : b->address_len;
    int r = memcmp(a->address, b->address, m);
    if (r)
        return r;
    return (a->address_len > b->address_len) - (a->address_len < b->address_len);
}

int plc_compat_pymemcache_nodes(const plc_compat_config *c, plc_pymemcache_node *out)
{
    for (uint32_t i = 0; i < c->nnodes; i++) {
        const plc_compat_node *nd = &c->nodes[i];
        if (!nd->address || nd->address_len == 0)
            return PLACER_EINVAL;
        const unsigned char *p = (const unsigned char *)nd->address;
        for (size_t j = 0; j < nd->address_len;) {
            size_t len = plc_compat_utf8_seq(p + j, nd->address_len - j);
            if (!len)
                return PLACER_EINVAL;
            j += len;
        }
        plc_pymemcache_node s = {0};
        unsigned char buf[CHUNK];
        size_t pos = 0;
        while (pos < nd->address_len)
            feed(&s, buf, reduce(p, nd->address_len, &pos, buf, sizeof buf));
        feed(&s, (const unsigned char *)"-", 1);
        out[i] = s;
    }
    const plc_compat_node **by_name = plc_calloc(c->nnodes ? c->nnodes : 1, sizeof *by_name);
    if (!by_name)
        return PLACER_ENOMEM;
    for (uint32_t i = 0; i < c->nnodes; i++)
        by_name[i] = &c->nodes[i];
    qsort(by_name, c->nnodes, sizeof *by_name, name_cmp);
    int rc = 0;
    for (uint32_t r = 0; r < c->nnodes; r++) {
        if (r && !name_cmp(&by_name[r - 1], &by_name[r]))
            rc = PLACER_EINVAL; /* one address twice */
        out[by_name[r] - c->nodes].rank = r;
    }
    plc_free(by_name);
    return rc;
}

/* ---- pymemcache's ops (compat_program.h) ---- */

/* One slot per node (HashClient takes no weights). */
static int pymemcache_size(const plc_compat_config *c, const plc_compat_layout *l, uint64_t *n)
{
    (void)l;
    for (uint32_t i = 0; i < c->nnodes; i++)
        if (c->nodes[i].weight != 1)
            return PLACER_EINVAL;
    *n = c->nnodes;
    return 0;
}

/* Each node's "name-" hashed once into l->extra, owners[i] = i. */
static int pymemcache_build(const plc_compat_config *c, plc_compat_layout *l, uint64_t max_points)
{
    uint64_t n;
    int rc = pymemcache_size(c, l, &n);
    if (rc)
        return rc;
    if (n > max_points)
        return PLACER_ETOOMANY;
    l->kind = PLC_CL_SCORES;
    l->owners = plc_malloc(sizeof *l->owners * (size_t)n);
    l->extra = plc_malloc(sizeof(plc_pymemcache_node) * (size_t)n);
    if (!l->owners || !l->extra)
        return PLACER_ENOMEM;
    l->n = (uint32_t)n;
    for (uint32_t i = 0; i < l->n; i++)
        l->owners[i] = i;
    return plc_compat_pymemcache_nodes(c, l->extra);
}

/* The key's position: its winner's index (0 on a layout only resolved,
 * which has no nodes to score). */
static uint32_t pymemcache_lookup(const plc_compat_layout *l, const void *key, size_t len)
{
    if (!l->extra || !l->n)
        return 0;
    return plc_compat_pymemcache_pick(l->extra, l->n, key, len);
}

static uint32_t pymemcache_key_hash(const plc_compat_layout *l, const unsigned char *k, size_t len)
{
    return pymemcache_lookup(l, k, len);
}

static void pymemcache_lookup_batch(const plc_compat_layout *l, const void *const *keys,
                                    const size_t *lens, size_t count, uint32_t *out)
{
    plc_compat_pymemcache_pick_batch(l->extra, l->n, keys, lens, count, out);
}

static const plc_compat_distribution pymemcache_distributions[] = {
    /* HashClient's default hasher, RendezvousHash (seed 0, murmur3_32) */
    {"rendezvous", PLC_CD_RENDEZVOUS, PLC_CL_SCORES, PLC_CH_MURMUR3, 0},
};

static const plc_compat_hash_entry pymemcache_hashes[] = {{"murmur3", PLC_CH_MURMUR3}};

const plc_compat_program plc_compat_pymemcache = {
    .id = PLACER_COMPAT_PYMEMCACHE,
    .name = "pymemcache",
    .title = "pymemcache",
    .distributions = pymemcache_distributions,
    .ndistributions = 1,
    .hashes = pymemcache_hashes,
    .nhashes = 1,
    .max_weight = 0,
    .fields = PLC_CF_ADDRESS | PLC_CF_ADDRESS_ONCE,
    .size = pymemcache_size,
    .build = pymemcache_build,
    .key_hash = pymemcache_key_hash,
    .batch_rule = PLC_CK_OWN, /* its lookups are its own */
    .lookup = pymemcache_lookup,
    .lookup_batch = pymemcache_lookup_batch,
};
