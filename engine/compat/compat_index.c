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

/* The key hash kernels for x->layout, from the dispatch table (simd/
 * kernels.c: what the CPU features allow now); NULL where none applies. */
static void choose_hashers(plc_compat_index *x)
{
    const plc_compat_layout *l = &x->layout;
    const plc_kernels *k = plc_kernels_get();
    if (l->kind == PLC_CL_SCORES)
        return; /* its "hash" is the winner of the scores: the program's own lookup */
    int cut_tag = l->program == PLC_COMPAT_TWEMPROXY && l->hash_tag[0];
    /* Only where the key hash is MD5 of the whole key: no tag to cut, more
     * than one server (one server hashes to 0). */
    if (k->md5_batch && l->key_hash == PLC_CH_MD5 && !l->hash_tag[0] && l->nnodes > 1 &&
        (l->program == PLC_COMPAT_LIBMEMCACHED || l->program == PLC_COMPAT_TWEMPROXY)) {
        x->md5_kernel = k->md5_batch;
        x->md5_lanes = (unsigned)k->md5_lanes;
    }
    /* Lockstep hashing where the program's key rules allow it: no tag to
     * cut but Redis' (cut before hashing), more than one server. */
    if (!x->md5_kernel && l->nnodes > 1 && !cut_tag) {
        x->x4 = plc_compat_hash_x4(l->key_hash);
        if (k->bytehash && l->program != PLC_COMPAT_REDIS && bytehash_of(l->key_hash))
            x->wide = k->bytehash(bytehash_of(l->key_hash));
    }
    if (!x->md5_kernel && l->nnodes > 1 && !cut_tag && k->crc32_batch) {
        switch (l->key_hash) {
        case PLC_CH_CRC32:
            x->crc15 = 1;
            /* fall through */
        case PLC_CH_CRC32A:
        case PLC_CH_NGX_CRC32:
        case PLC_CH_HAP_CRC32:
            x->crc32 = k->crc32_batch;
            break;
        case PLC_CH_CRC16:
            x->crc16_unmasked = 1;
            /* fall through */
        case PLC_CH_REDIS_CRC16:
            x->crc16 = k->crc16_batch;
            break;
        default:
            break;
        }
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

/* What plc_compat_key_hash does to the key hashes h[0..m) of keys of
 * lens[0..m) bytes (after any tag is cut), for the batch paths that compute
 * the key hash alone (layouts of more than one server). One switch, then
 * a plain loop. */
static void program_rule(const plc_compat_layout *l, uint32_t *h, const size_t *lens, size_t m)
{
    switch (l->program) {
    case PLC_COMPAT_REDIS:
        for (size_t i = 0; i < m; i++)
            h[i] &= PLC_REDIS_SLOTS - 1u;
        break;
    case PLC_COMPAT_HAPROXY:
        if (l->avalanche)
            for (size_t i = 0; i < m; i++)
                h[i] = plc_hash_haproxy_full(h[i]);
        break;
    case PLC_COMPAT_TWEMPROXY:
        for (size_t i = 0; i < m; i++)
            if (!lens[i])
                h[i] = 0; /* twemproxy: an empty key hashes to 0 */
        break;
    case PLC_COMPAT_NGINX:
        if (l->distribution == PLC_CD_HASH)
            for (size_t i = 0; i < m; i++)
                h[i] = (h[i] >> 16) & 0x7fffu;
        break;
    default:
        break;
    }
}

/* The CRC key hashes a batch at a time, 64 keys a step. CRC16: the keys
 * of at least PLC_CRC16_CLMUL_MIN_LEN bytes (Redis: without a '{', so
 * without a tag) are the kernel's; the others go one at a time. */
static void crc_batch(const plc_compat_index *x, const void *const *keys, const size_t *lens,
                      size_t n, uint32_t *hashes)
{
    const plc_compat_layout *l = &x->layout;
    for (size_t at = 0; at < n; at += 64) {
        size_t m = n - at < 64 ? n - at : 64;
        uint32_t *h = hashes + at;
        if (x->crc32) {
            x->crc32(keys + at, lens + at, m, h);
            if (x->crc15)
                for (size_t i = 0; i < m; i++)
                    h[i] = (h[i] >> 16) & 0x7fffu;
            program_rule(l, h, lens + at, m);
            continue;
        }
        if (!x->crc16_unmasked) {
            /* Redis, when every key is long enough (the usual case): the
             * kernel reads the batch as it is; the keys it skips (a '{')
             * lose their tag and go one at a time. */
            int all_long = 1;
            for (size_t i = 0; i < m; i++)
                all_long &= lens[at + i] >= PLC_CRC16_CLMUL_MIN_LEN;
            if (all_long) {
                x->crc16(keys + at, lens + at, m, '{', h);
                for (size_t i = 0; i < m; i++)
                    h[i] = h[i] == PLC_CRC_SKIPPED ? plc_compat_key_hash(l, keys[at + i], lens[at + i])
                                                   : h[i] & (PLC_REDIS_SLOTS - 1u);
                continue;
            }
        }
        /* twemproxy's unmasked register after n bytes is crc(n) | the high
         * bytes of crc(n - 1) and crc(n - 2) above it (each step shifts
         * the register up 8 bits): the kernel gives crc(n - 2), two table
         * steps the rest. */
        size_t drop = x->crc16_unmasked ? 2 : 0;
        const void *k[64];
        size_t len[64], pos[64], nl = 0;
        for (size_t i = 0; i < m; i++) {
            h[i] = PLC_CRC_SKIPPED;
            if (lens[at + i] >= PLC_CRC16_CLMUL_MIN_LEN + drop) {
                k[nl] = keys[at + i];
                len[nl] = lens[at + i] - drop;
                pos[nl++] = i;
            }
        }
        uint32_t lh[64];
        x->crc16(k, len, nl, drop ? -1 : '{', lh);
        for (size_t j = 0; j < nl; j++) {
            uint32_t c = lh[j];
            if (drop && c != PLC_CRC_SKIPPED) {
                const unsigned char *tail = (const unsigned char *)k[j] + len[j];
                uint32_t c1 = ((c << 8) ^ plc_crc16_xmodem[((c >> 8) ^ tail[0]) & 0xffu]) & 0xffffu;
                uint32_t c2 = ((c1 << 8) ^ plc_crc16_xmodem[((c1 >> 8) ^ tail[1]) & 0xffu]) & 0xffffu;
                c = c2 | (c1 >> 8) << 16 | (c >> 8) << 24;
            }
            h[pos[j]] = c;
        }
        for (size_t i = 0; i < m; i++)
            if (h[i] == PLC_CRC_SKIPPED)
                h[i] = plc_compat_key_hash(l, keys[at + i], lens[at + i]);
        program_rule(l, h, lens + at, m);
    }
}

void plc_compat_index_hash_batch(const plc_compat_index *x, const void *const *keys,
                                 const size_t *lens, size_t n, uint32_t *hashes)
{
    if (x->md5_kernel) {
        md5_batch(x, keys, lens, n, hashes);
        if (x->layout.program == PLC_COMPAT_TWEMPROXY)
            for (size_t i = 0; i < n; i++)
                if (!lens[i])
                    hashes[i] = 0; /* twemproxy: an empty key hashes to 0 */
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
                program_rule(l, hashes + i, lens + i, run);
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
                if (l->program == PLC_COMPAT_REDIS)
                    plc_compat_tag('{', '}', &k[j], &len[j]);
            }
            x->x4(k, len, hashes + i);
            program_rule(l, hashes + i, len, 4);
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
