/*
 * compat_pymemcache.h -- pymemcache 3.5's HashClient with its default
 * hasher, RendezvousHash (rendezvous.py, murmur3.py), bit for bit:
 * docs/COMPAT.md, "pymemcache".
 */
#ifndef PLC_ENGINE_COMPAT_PYMEMCACHE_H
#define PLC_ENGINE_COMPAT_PYMEMCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "compat.h"

/* A node as the scores need it: MurmurHash3's state after "name-" (the
 * name's characters each reduced to their low 8 bits, as murmur3.py's
 * ord(c) & 0xff does), and the name's rank among the nodes' names in
 * Python's str order (the winner of a tie in score). */
typedef struct plc_pymemcache_node {
    uint32_t h1;     /* after the whole 4-byte blocks */
    uint32_t carry;  /* the bytes past them, little-endian */
    uint32_t carry_n;
    uint32_t chars;  /* characters of "name-" */
    uint32_t rank;   /* 0 for the smallest name */
} plc_pymemcache_node;

/* The nodes of c (each named by its address, "host:port" as HashClient's
 * _make_client_key writes a (host, port) server) into out[0..nnodes).
 * 0, or PLACER_EINVAL: a node without an address, an address that is not
 * UTF-8 (a Python str cannot hold it), two nodes with one address
 * (RendezvousHash keeps one), PLACER_ENOMEM. */
int plc_compat_pymemcache_nodes(const plc_compat_config *c, plc_pymemcache_node *out);

/* The score RendezvousHash gives node nd for a key: murmur3_32 of
 * "%s-%s" % (node, key), seed 0. The key's bytes are read as UTF-8: a
 * character counts once and hashes as its code point's low 8 bits; a byte
 * that starts no valid UTF-8 sequence is a character of its own with that
 * byte's value (Python's surrogateescape). */
uint32_t plc_compat_pymemcache_score(const plc_pymemcache_node *nd, const void *key, size_t len);

/* The node get_node() returns: the highest score, a tie won by the
 * greater name. n >= 1; key may be NULL only when len is 0. */
uint32_t plc_compat_pymemcache_pick(const plc_pymemcache_node *nodes, uint32_t n,
                                    const void *key, size_t len);

/* plc_compat_pymemcache_pick of count keys into out. */
void plc_compat_pymemcache_pick_batch(const plc_pymemcache_node *nodes, uint32_t n,
                                      const void *const *keys, const size_t *lens, size_t count,
                                      uint32_t *out);

#endif
