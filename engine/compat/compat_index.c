/*
 * compat_index.c -- see compat_index.h. Batches go in groups of 64 keys:
 * hash the group (MD5 eight lanes at a time when the mode's key hash is a
 * plain MD5: sixteen at a time), then descend the S+ tree for the whole group with the batch
 * kernel, which interleaves the descents and prefetches.
 */
#include "compat_index.h"

#include <string.h>

#include "alloc.h"
#include "kernels.h"
#include "md5x8.h"
#include "compat_program.h"
#include "placer.h"

/* The SIMD byte-hash kernel's id for a key hash, 0 where it has none. */
static int bytehash_of(int key_hash)
{
    switch (key_hash) {
    case PLC_CH_HAP_SDBM: return PLC_BH_SDBM;
    case PLC_CH_HAP_DJB2: return PLC_BH_DJB2;
    case PLC_CH_FNV1A_32: return PLC_BH_FNV1A_32;
    case PLC_CH_FNV1_32: return PLC_BH_FNV1_32;
    case PLC_CH_FNV1A_64: return PLC_BH_FNV1A_64_32;
    case PLC_CH_ONE_AT_A_TIME: return PLC_BH_OAAT;
    case PLC_CH_MURMUR: return PLC_BH_MURMUR;
    case PLC_CH_JENKINS: return PLC_BH_JENKINS;
    case PLC_CH_FNV1_64: return PLC_BH_FNV1_64;
    case PLC_CH_HAP_WT6: return PLC_BH_WT6;
    case PLC_CH_HSIEH: return PLC_BH_HSIEH;
    default: return 0;
    }
}

/* The program's batch rule (compat_program.h, PLC_CK_*) on layout l:
 * PLC_CK_FUNCTION where its rule does nothing on l, PLC_CK_OWN where the
 * index hashes key by key. */
static int resolve_rule(const plc_compat_program *p, const plc_compat_layout *l)
{
    /* scores: the "hash" is the winner, the program's own lookup; one
     * server: each program's own rule; a tag the user chose (twemproxy's
     * hash_tag): each key's length changes */
    if (!p || l->kind == PLC_CL_SCORES || l->nnodes < 2 || (l->hash_tag[0] && !p->tag))
        return PLC_CK_OWN;
    if (p->batch_rule == PLC_CK_AVALANCHE)
        return l->avalanche ? PLC_CK_AVALANCHE : PLC_CK_FUNCTION;
    if (p->batch_rule == PLC_CK_NARROWED) {
        const plc_compat_distribution *d = plc_compat_program_distribution(p, l->distribution);
        unsigned bits = d ? d->hash_bits : 1u; /* (no entry: key by key) */
        return bits == 15 ? PLC_CK_NARROWED : bits ? PLC_CK_OWN : PLC_CK_FUNCTION;
    }
    return p->batch_rule;
}

/* The key hash kernels for x->layout, from the dispatch table (simd/
 * kernels.c: what the CPU features allow now); NULL where none applies. */
static void choose_hashers(plc_compat_index *x)
{
    const plc_compat_layout *l = &x->layout;
    const plc_compat_program *p = plc_compat_program_get(l->program);
    x->hash_rule = resolve_rule(p, l);
    if (x->hash_rule == PLC_CK_OWN)
        return;
    /* A fixed tag (Redis' "{}") is cut before the lockstep hashes; the
     * CRC16 batch leaves the keys that hold its first character; the other
     * kernels hash whole keys. */
    int tagged = p->tag != NULL;
    if (tagged) {
        x->tag[0] = p->tag[0];
        x->tag[1] = p->tag[1];
    }
    const plc_kernels *k = plc_kernels_get();
    if (k->md5_batch && l->key_hash == PLC_CH_MD5 && !tagged) {
        x->md5_kernel = k->md5_batch;
        x->md5_lanes = (unsigned)k->md5_lanes;
        return;
    }
    x->x4 = plc_compat_hash_x4(l->key_hash);
    if (k->bytehash && !tagged && bytehash_of(l->key_hash))
        x->wide = k->bytehash(bytehash_of(l->key_hash));
    if (!k->crc32_batch)
        return;
    switch (l->key_hash) {
    case PLC_CH_CRC32:
        x->crc15 = 1;
        /* fall through */
    case PLC_CH_CRC32A:
    case PLC_CH_NGX_CRC32:
    case PLC_CH_HAP_CRC32:
        if (!tagged)
            x->crc32 = k->crc32_batch;
        break;
    case PLC_CH_CRC16:
        if (tagged)
            break; /* its last two bytes go by table: no stop there */
        x->crc16_unmasked = 1;
        /* fall through */
    case PLC_CH_REDIS_CRC16:
        x->crc16 = k->crc16_batch;
        break;
    default:
        break;
    }
}

int plc_compat_index_hash_only(plc_compat_index *x, const plc_compat_config *c)
{
    if (!x)
        return PLACER_ENULL;
    memset(x, 0, sizeof *x);
    int rc = plc_compat_layout_resolve(c, &x->layout);
    if (!rc)
        choose_hashers(x);
    return rc;
}

int plc_compat_index_build(plc_compat_index *x, const plc_compat_config *c)
{
    if (!x)
        return PLACER_ENULL;
    memset(x, 0, sizeof *x);
    int rc = plc_compat_layout_build(c, &x->layout);
    if (rc)
        return rc;
    choose_hashers(x);
    const plc_compat_layout *l = &x->layout;
    if (l->kind != PLC_CL_RING)
        return 0;
    const plc_kernels *k = plc_kernels_get();
    x->search = k->search;
    x->search_batch = k->search_batch;
    uint64_t *tokens = plc_malloc(sizeof *tokens * l->n);
    size_t node_bytes, leaf_bytes;
    plc_stree_size(l->n, &node_bytes, &leaf_bytes);
    x->nodes = plc_aligned_alloc(node_bytes ? node_bytes : PLC_CACHE_LINE);
    x->leaves = plc_aligned_alloc(leaf_bytes);
    if (!tokens || !x->nodes || !x->leaves) {
        plc_free(tokens);
        plc_compat_index_free(x);
        return PLACER_ENOMEM;
    }
    for (uint32_t i = 0; i < l->n; i++)
        tokens[i] = (uint64_t)l->points[i] << 32;
    plc_stree_build(&x->tree, tokens, sizeof *tokens, l->owners, sizeof *l->owners, l->n, x->nodes,
                    x->leaves);
    plc_free(tokens);
    /* The directory where the native ring would have one (same budget). */
    uint32_t bits = plc_dir_choose_bits(l->n, node_bytes + leaf_bytes);
    if (bits) {
        x->dir_mem = plc_aligned_alloc(plc_dir_bytes(bits));
        if (!x->dir_mem) {
            plc_compat_index_free(x);
            return PLACER_ENOMEM;
        }
        plc_dir_build(&x->dir, &x->tree, bits, x->dir_mem);
        x->dir_batch = k->dir_search_batch;
    }
    return 0;
}

void plc_compat_index_free(plc_compat_index *x)
{
    if (!x)
        return;
    plc_compat_layout_free(&x->layout);
    plc_free(x->nodes);
    plc_free(x->leaves);
    plc_free(x->dir_mem);
    memset(x, 0, sizeof *x);
}

uint32_t plc_compat_index_lookup(const plc_compat_index *x, const void *key, size_t len)
{
    const plc_compat_layout *l = &x->layout;
    const plc_compat_program *p = plc_compat_program_get(l->program);
    if (p && p->lookup)
        return p->lookup(l, key, len);
    uint32_t h = plc_compat_key_hash(l, key, len);
    if (l->kind != PLC_CL_RING)
        return l->owners[h % l->n];
    return x->search(&x->tree, (uint64_t)h << 32);
}

/* MD5 (first word) of n keys, x->md5_lanes at a time through the SIMD
 * kernel; keys too long for it go to Nettle one by one. */
static void md5_batch(const plc_compat_index *x, const void *const *keys, const size_t *lens,
                      size_t n, uint32_t *out)
{
    const void *k[PLC_MD5X32_LANES];
    size_t len[PLC_MD5X32_LANES], at[PLC_MD5X32_LANES];
    uint32_t h[PLC_MD5X32_LANES];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] > PLC_MD5X8_MAX_LEN) {
            out[i] = plc_hash_md5(keys[i], lens[i]);
            continue;
        }
        k[m] = keys[i];
        len[m] = lens[i];
        at[m++] = i;
        if (m == x->md5_lanes || i + 1 == n) {
            x->md5_kernel(k, len, m, h);
            for (size_t j = 0; j < m; j++)
                out[at[j]] = h[j];
            m = 0;
        }
    }
    if (m) {
        x->md5_kernel(k, len, m, h);
        for (size_t j = 0; j < m; j++)
            out[at[j]] = h[j];
    }
}

/* What the program's key_hash does to the function's values h[0..m) of
 * keys of lens[0..m) bytes (after any tag is cut): x->hash_rule, one switch,
 * then a plain loop. */
static void apply_rule(int rule, uint32_t *h, const size_t *lens, size_t m)
{
    switch (rule) {
    case PLC_CK_SLOTS:
        for (size_t i = 0; i < m; i++)
            h[i] &= PLC_REDIS_SLOTS - 1u;
        break;
    case PLC_CK_AVALANCHE:
        for (size_t i = 0; i < m; i++)
            h[i] = plc_hash_haproxy_full(h[i]);
        break;
    case PLC_CK_EMPTY_ZERO:
        for (size_t i = 0; i < m; i++)
            if (!lens[i])
                h[i] = 0;
        break;
    case PLC_CK_NARROWED:
        for (size_t i = 0; i < m; i++)
            h[i] = (h[i] >> 16) & 0x7fffu;
        break;
    default:
        break;
    }
}

/* The CRC key hashes a batch at a time, 64 keys a step. CRC16: the keys
 * of at least PLC_CRC16_CLMUL_MIN_LEN bytes without the tag's first
 * character are the kernel's; the others (own) get the program's key_hash,
 * one at a time, after the rule. */
static void crc_batch(const plc_compat_index *x, const void *const *keys, const size_t *lens,
                      size_t n, uint32_t *hashes)
{
    const plc_compat_layout *l = &x->layout;
    int stop = x->tag[0] ? (unsigned char)x->tag[0] : -1;
    for (size_t at = 0; at < n; at += 64) {
        size_t m = n - at < 64 ? n - at : 64;
        uint32_t *h = hashes + at;
        if (x->crc32) {
            x->crc32(keys + at, lens + at, m, h);
            if (x->crc15)
                for (size_t i = 0; i < m; i++)
                    h[i] = (h[i] >> 16) & 0x7fffu;
            apply_rule(x->hash_rule, h, lens + at, m);
            continue;
        }
        uint64_t own = 0;
        int all_long = !x->crc16_unmasked;
        for (size_t i = 0; all_long && i < m; i++)
            all_long = lens[at + i] >= PLC_CRC16_CLMUL_MIN_LEN;
        if (all_long) {
            /* every key long enough (the usual case): the kernel reads the
             * batch as it is */
            x->crc16(keys + at, lens + at, m, stop, h);
            for (size_t i = 0; i < m; i++)
                own |= (uint64_t)(h[i] == PLC_CRC_SKIPPED) << i;
        } else {
            /* twemproxy's unmasked register after n bytes is crc(n) | the
             * high bytes of crc(n - 1) and crc(n - 2) above it (each step
             * shifts the register up 8 bits): the kernel gives crc(n - 2),
             * two table steps the rest. */
            size_t drop = x->crc16_unmasked ? 2 : 0;
            const void *k[64];
            size_t len[64], pos[64], nl = 0;
            for (size_t i = 0; i < m; i++) {
                if (lens[at + i] >= PLC_CRC16_CLMUL_MIN_LEN + drop) {
                    k[nl] = keys[at + i];
                    len[nl] = lens[at + i] - drop;
                    pos[nl++] = i;
                } else {
                    own |= (uint64_t)1 << i;
                }
            }
            uint32_t lh[64];
            x->crc16(k, len, nl, stop, lh);
            for (size_t j = 0; j < nl; j++) {
                uint32_t c = lh[j];
                if (c == PLC_CRC_SKIPPED) {
                    own |= (uint64_t)1 << pos[j];
                    continue;
                }
                if (drop) {
                    const unsigned char *tail = (const unsigned char *)k[j] + len[j];
                    uint32_t c1 = ((c << 8) ^ plc_crc16_xmodem[((c >> 8) ^ tail[0]) & 0xffu]) & 0xffffu;
                    uint32_t c2 = ((c1 << 8) ^ plc_crc16_xmodem[((c1 >> 8) ^ tail[1]) & 0xffu]) & 0xffffu;
                    c = c2 | (c1 >> 8) << 16 | (c >> 8) << 24;
                }
                h[pos[j]] = c;
            }
        }
        apply_rule(x->hash_rule, h, lens + at, m);
        for (size_t i = 0; own && i < m; i++)
            if (own >> i & 1u)
                h[i] = plc_compat_key_hash(l, keys[at + i], lens[at + i]);
    }
}

void plc_compat_index_hash_batch(const plc_compat_index *x, const void *const *keys,
                                 const size_t *lens, size_t n, uint32_t *hashes)
{
    if (x->md5_kernel) {
        md5_batch(x, keys, lens, n, hashes);
        apply_rule(x->hash_rule, hashes, lens, n);
        return;
    }
    const plc_compat_layout *l = &x->layout;
    if (x->crc32 || x->crc16) {
        crc_batch(x, keys, lens, n, hashes);
        return;
    }
    size_t i = 0;
    while (i < n) {
        if (x->wide) {
            /* A run of keys of one length goes across SIMD lanes. */
            size_t m = n - i < PLC_BYTEHASH_LANES ? n - i : PLC_BYTEHASH_LANES;
            size_t len = lens[i], run = 1;
            while (run < m && lens[i + run] == len)
                run++;
            if (len >= PLC_BYTEHASH_MIN_LEN && len <= PLC_BYTEHASH_MAX_LEN && run >= 8) {
                x->wide(keys + i, len, run, hashes + i);
                apply_rule(x->hash_rule, hashes + i, lens + i, run);
                i += run;
                continue;
            }
        }
        if (x->x4 && n - i >= 4) {
            const unsigned char *k[4];
            size_t len[4];
            for (int j = 0; j < 4; j++) {
                k[j] = keys[i + (size_t)j];
                len[j] = lens[i + (size_t)j];
                if (x->tag[0])
                    plc_compat_tag(x->tag[0], x->tag[1], &k[j], &len[j]);
            }
            x->x4(k, len, hashes + i);
            apply_rule(x->hash_rule, hashes + i, len, 4);
            i += 4;
            continue;
        }
        hashes[i] = plc_compat_key_hash(l, keys[i], lens[i]);
        i++;
    }
}

void plc_compat_index_lookup_batch(const plc_compat_index *x, const void *const *keys,
                                   const size_t *lens, size_t n, uint32_t *owners)
{
    const plc_compat_layout *l = &x->layout;
    const plc_compat_program *p = plc_compat_program_get(l->program);
    if (p && p->lookup_batch) {
        p->lookup_batch(l, keys, lens, n, owners);
        return;
    }
    uint32_t h[64];
    uint64_t q[64];
    for (size_t at = 0; at < n; at += 64) {
        size_t m = n - at < 64 ? n - at : 64;
        plc_compat_index_hash_batch(x, keys + at, lens + at, m, h);
        if (l->kind != PLC_CL_RING) {
            for (size_t i = 0; i < m; i++)
                owners[at + i] = l->owners[h[i] % l->n];
            continue;
        }
        for (size_t i = 0; i < m; i++)
            q[i] = (uint64_t)h[i] << 32;
        if (x->dir_batch)
            x->dir_batch(&x->dir, q, m, owners + at);
        else
            x->search_batch(&x->tree, q, m, owners + at);
    }
}
