/*
 * compat_groupcache.c -- groupcache's consistenthash ring, as the Go code
 * builds and searches it:
 *
 *   Add:  for each peer in order, for i = 0 .. replicas - 1, the point
 *         crc32.ChecksumIEEE([]byte(strconv.Itoa(i) + peer)), appended to
 *         keys and stored as hashMap[point] = peer; then sort.Ints(keys).
 *         Equal points stay in keys, but the map holds the last peer
 *         written at that value: it owns all of them.
 *   Get:  sort.Search for the first point >= crc32.ChecksumIEEE(key),
 *         index 0 past the last point; the owner hashMap[keys[idx]].
 *
 * The points are unsigned 32-bit CRCs in a Go int (64 bits on every
 * platform groupcache is built for), so sort.Ints orders them as uint32.
 */
#include <string.h>

#include "alloc.h"
#include "compat_groupcache.h"
#include "compat_layout_kit.h"
#include "compat_program.h"
#include "kernels.h"
#include "placer.h"

uint32_t plc_compat_groupcache_key_hash(const void *key, size_t len)
{
    return plc_hash_crc32_ieee(key, len);
}

int plc_compat_groupcache_ring(const plc_compat_config *c, uint32_t replicas,
                               plc_compat_points *a)
{
    if (replicas < 1 || replicas > PLC_GROUPCACHE_MAX_REPLICAS)
        return PLACER_EINVAL;
    size_t longest = 0;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        if (!c->nodes[i].address || c->nodes[i].address_len == 0)
            return PLACER_EINVAL;
        if (c->nodes[i].address_len > longest)
            longest = c->nodes[i].address_len;
    }
    if ((uint64_t)c->nnodes * replicas > a->cap)
        return PLACER_ETOOMANY;
    char *buf = plc_malloc(longest + 10); /* strconv.Itoa(i) + peer */
    if (!buf)
        return PLACER_ENOMEM;
    int rc = 0;
    for (uint32_t i = 0; i < c->nnodes && !rc; i++) {
        const plc_compat_node *nd = &c->nodes[i];
        for (uint32_t r = 0; r < replicas && !rc; r++) {
            size_t d = plc_compat_put_decimal(buf, r);
            memcpy(buf + d, nd->address, nd->address_len);
            rc = plc_compat_points_push(a, plc_hash_crc32_ieee(buf, d + nd->address_len), i);
        }
    }
    plc_free(buf);
    if (!rc)
        rc = plc_compat_points_sort(a);
    if (!rc)
        plc_compat_points_last_wins(a);
    return rc;
}

void plc_compat_groupcache_lookup_batch(const plc_compat_layout *l, const void *const *keys,
                                        const size_t *lens, size_t count, uint32_t *out)
{
    const plc_kernels *k = plc_kernels_get();
    uint32_t h[64];
    for (size_t at = 0; at < count; at += 64) {
        size_t m = count - at < 64 ? count - at : 64;
        if (k->crc32_batch) /* carry-less multiplication, where the CPU has it */
            k->crc32_batch(keys + at, lens + at, m, h);
        else
            for (size_t i = 0; i < m; i++)
                h[i] = plc_hash_crc32_ieee(keys[at + i], lens[at + i]);
        for (size_t i = 0; i < m; i++)
            out[at + i] = l->owners[plc_compat_slot(l, h[i])];
    }
}

/* ---- groupcache's ops (compat_program.h) ---- */

static const plc_compat_param groupcache_params[] = {
    /* consistenthash.New(replicas, nil); groupcache's HTTPPool passes 50 */
    {"replicas", 1, PLC_GROUPCACHE_MAX_REPLICAS, 50},
};

static int groupcache_size(const plc_compat_config *c, const plc_compat_layout *l, uint64_t *n)
{
    for (uint32_t i = 0; i < c->nnodes; i++)
        if (c->nodes[i].weight != 1)
            return PLACER_EINVAL; /* Map.Add takes no weights */
    *n = (uint64_t)c->nnodes * l->params[0];
    return 0;
}

static int groupcache_build(const plc_compat_config *c, plc_compat_layout *l, uint64_t max_points)
{
    uint64_t n;
    int rc = groupcache_size(c, l, &n);
    if (rc)
        return rc;
    if (n > max_points)
        return PLACER_ETOOMANY;
    plc_compat_points a;
    if ((rc = plc_compat_ring_room(l, &a, n)) != 0)
        return rc;
    /* the ring comes sorted, equal points given to their last writer */
    return plc_compat_ring_finish(l, &a, plc_compat_groupcache_ring(c, l->params[0], &a), NULL);
}

static uint32_t groupcache_key_hash(const plc_compat_layout *l, const unsigned char *k, size_t len)
{
    (void)l;
    return plc_compat_groupcache_key_hash(k, len);
}

static const plc_compat_distribution groupcache_distributions[] = {
    {"consistent", PLC_CD_CONSISTENT, PLC_CL_RING, PLC_CH_CRC32A, 0},
};

static const plc_compat_hash_entry groupcache_hashes[] = {{"crc32", PLC_CH_CRC32A}};

const plc_compat_program plc_compat_groupcache = {
    .id = PLACER_COMPAT_GROUPCACHE,
    .name = "groupcache",
    .title = "groupcache",
    .distributions = groupcache_distributions,
    .ndistributions = 1,
    .hashes = groupcache_hashes,
    .nhashes = 1,
    .max_weight = 0,
    .fields = PLC_CF_ADDRESS,
    .params = groupcache_params,
    .nparams = sizeof groupcache_params / sizeof groupcache_params[0],
    .size = groupcache_size,
    .build = groupcache_build,
    .key_hash = groupcache_key_hash,
    .batch_rule = PLC_CK_FUNCTION,
};
