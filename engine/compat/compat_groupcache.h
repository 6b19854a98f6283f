/*
 * compat_groupcache.h -- the ring of Go's groupcache
 * (github.com/golang/groupcache/consistenthash, Map.Add and Map.Get), bit
 * for bit: docs/COMPAT.md, "groupcache".
 */
#ifndef PLC_ENGINE_COMPAT_GROUPCACHE_H
#define PLC_ENGINE_COMPAT_GROUPCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "compat.h"
#include "compat_layout_kit.h"

/* The replicas a peer may be given (consistenthash.New's first argument;
 * groupcache's HTTPPool uses 50). */
#define PLC_GROUPCACHE_MAX_REPLICAS 65536u

/* The points of c's peers (each node's address, the string Map.Add is
 * given) with `replicas` points each, into a (room for nnodes * replicas),
 * sorted, each run of equal points owned by the peer written last.
 * 0, PLACER_EINVAL (replicas outside 1 .. PLC_GROUPCACHE_MAX_REPLICAS, a
 * node without an address), PLACER_ETOOMANY or PLACER_ENOMEM. */
int plc_compat_groupcache_ring(const plc_compat_config *c, uint32_t replicas,
                               plc_compat_points *a);

/* A key's hash: the IEEE CRC-32 of its bytes (crc32.ChecksumIEEE), searched
 * for the first point >= it, wrapping to the first point. */
uint32_t plc_compat_groupcache_key_hash(const void *key, size_t len);

/* The owners of count keys in l, the ring's points and owners (a RING
 * layout of those points): each key's IEEE CRC-32 searched for the first
 * point >= it (plc_compat_slot). keys[i] may be NULL only when lens[i] is 0. */
void plc_compat_groupcache_lookup_batch(const plc_compat_layout *l, const void *const *keys,
                                        const size_t *lens, size_t count, uint32_t *out);

#endif
