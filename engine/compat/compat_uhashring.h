/*
 * compat_uhashring.h -- the rings of Python's uhashring 2.1 (HashRing):
 * its default ring (ring_meta.py, 128-bit MD5 points) and its ketama ring
 * (hash_fn="ketama", ring_ketama.py), bit for bit: docs/COMPAT.md,
 * "uhashring".
 */
#ifndef PLC_ENGINE_COMPAT_UHASHRING_H
#define PLC_ENGINE_COMPAT_UHASHRING_H

#include <stddef.h>
#include <stdint.h>

#include "compat.h"
#include "compat_layout_kit.h"

#define PLC_UHASHRING_META_VNODES 160u  /* HashRing's vnodes default */
#define PLC_UHASHRING_KETAMA_VNODES 40u /* with hash_fn="ketama" */
#define PLC_UHASHRING_KETAMA_REPLICAS 4u /* KetamaRing's replicas default, and most */
#define PLC_UHASHRING_MAX_VNODES 65535u
#define PLC_UHASHRING_MAX_WEIGHT 65535u
#define PLC_UHASHRING_REST 12u /* the bytes of a default-ring point past its top 32 bits */

typedef struct plc_uhashring_params {
    int ketama;                  /* HashRing(hash_fn="ketama") */
    uint32_t vnodes;             /* HashRing's vnodes=; 0: 160, ketama 40 */
    uint32_t replicas;           /* ketama: KetamaRing's replicas=, 1 .. 4; 0: 4 */
    const uint32_t *node_vnodes; /* NULL, or each node's own "vnodes" (0: vnodes) */
} plc_uhashring_params;

/* A node's name, the string uhashring is given: its id, else its address. */
const char *plc_compat_uhashring_name(const plc_compat_node *nd, size_t *len);

/* The points the ring of c and p holds, into *n. 0 or PLACER_EINVAL (a
 * weight or vnodes outside 1 .. 65535, replicas outside 1 .. 4, a node
 * without a name). */
int plc_compat_uhashring_size(const plc_compat_config *c, const plc_uhashring_params *p,
                              uint64_t *n);

/* The ring into a, empty (room from plc_compat_uhashring_size), sorted as
 * uhashring sorts its points, each run of equal points owned by the node
 * written last (its dict keeps the last), a->v[i].token each point's 32
 * bits: the ketama point, or the default ring's top 32 bits. The default
 * ring also fills rest[12 i ..] with point i's other 96 bits (big-endian,
 * as md5's hexdigest reads), which plc_compat_uhashring_meta_slot needs;
 * rest is NULL for ketama. 0, the size's errors, PLACER_ETOOMANY,
 * PLACER_ENOMEM; PLACER_EINVAL also when a is not empty. */
int plc_compat_uhashring_ring(const plc_compat_config *c, const plc_uhashring_params *p,
                              plc_compat_points *a, unsigned char *rest);

/* Ketama: the key's hash to search for the first point >= it. uhashring
 * takes the first point strictly above the little-endian low 32 bits of
 * MD5 (bisect), so this is that hash + 1, wrapping to 0, whose first point
 * >= is the first point: the wrap uhashring makes too. */
uint32_t plc_compat_uhashring_ketama_key(const void *key, size_t len);

/* Default ring: the key's MD5 into d; its top 32 bits (big-endian) are
 * what the points are searched with. */
void plc_compat_uhashring_meta_key(const void *key, size_t len, unsigned char d[16]);
static inline uint32_t plc_compat_uhashring_top(const unsigned char d[16])
{
    return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
}

/* Default ring: given i, the first point whose top 32 bits are >= the
 * key's (a search of points[0..n)), the index of uhashring's answer: the
 * first point whose 128 bits are above the key's MD5, wrapping to 0. Only
 * points with the key's top 32 bits are compared further, with rest. */
uint32_t plc_compat_uhashring_meta_slot(const uint32_t *points, const unsigned char *rest,
                                        uint32_t n, uint32_t i, const unsigned char d[16]);

/* The owners of count keys in l, a RING layout of the ring's points and
 * owners; rest the default ring's (plc_compat_uhashring_ring), NULL for
 * ketama. keys[i] may be NULL only when lens[i] is 0. */
void plc_compat_uhashring_lookup_batch(const plc_compat_layout *l, const unsigned char *rest,
                                       const void *const *keys, const size_t *lens, size_t count,
                                       uint32_t *out);

#endif
