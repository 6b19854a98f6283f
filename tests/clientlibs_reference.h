/*
 * clientlibs_reference.h -- plain references for the client libraries'
 * placements (groupcache, uhashring, pymemcache), written from each
 * library's code with no sort and no precomputed state: every point
 * recomputed in insertion order and scanned, every score hashed from the
 * whole "name-key" text. tests/compat_clientlibs_place.c holds the engine's
 * kernels to them on every key it is given.
 */
#ifndef PLACER_TESTS_CLIENTLIBS_REFERENCE_H
#define PLACER_TESTS_CLIENTLIBS_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

typedef struct ref_lib_node {
    const char *name;
    size_t len;
    uint32_t weight, vnodes; /* vnodes 0: the ring's default */
} ref_lib_node;

/* A ring's points in the library's insertion order, unsorted, with their
 * owners; a key's owner is a scan of all of them. Aborts when out of
 * memory. */
typedef struct ref_ring ref_ring;

/* groupcache's Map after Add(nodes...) with `replicas`. */
ref_ring *ref_ring_groupcache(const ref_lib_node *nodes, uint32_t n, uint32_t replicas);

/* uhashring's HashRing: ketama (1, with replicas) or the default ring (0);
 * vnodes its default (0: 160, ketama 40). */
ref_ring *ref_ring_uhashring(const ref_lib_node *nodes, uint32_t n, int ketama, uint32_t vnodes,
                             uint32_t replicas);

/* Map.Get / HashRing.get_node: the node index. */
uint32_t ref_ring_owner(const ref_ring *r, const void *key, size_t len);
void ref_ring_free(ref_ring *r);

/* pymemcache RendezvousHash.get_node. */
uint32_t ref_pymemcache_owner(const ref_lib_node *nodes, uint32_t n, const void *key, size_t len);

#endif
