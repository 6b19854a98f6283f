/*
 * reference.h -- plain, obviously-correct implementations that the fast
 * paths are checked against, in unit tests and in the fuzz targets.
 * Slow on purpose: no tables, no search, no cleverness.
 */
#ifndef PLACER_TESTS_REFERENCE_H
#define PLACER_TESTS_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "placer.h"

/* CRC-32C one bit at a time (RFC 3720 semantics: start with 0, chainable). */
uint32_t ref_crc32c(uint32_t crc, const void *data, size_t len);

/* IEEE CRC-32 one bit at a time (zlib's crc32() semantics). */
uint32_t ref_crc32(uint32_t crc, const void *data, size_t len);

/* SipHash-c-d (Aumasson & Bernstein) with 64-bit output, transcribed from
 * the paper: the 16-byte key as k0, k1 little-endian, byte-wise message
 * words. */
uint64_t ref_siphash(int c_rounds, int d_rounds, const unsigned char key[16], const void *msg,
                     size_t len);

/* placer-v2 (the default placement hash) from its definition in
 * simd/hash64_v2_body.h: 8-byte little-endian words, the last zero-padded
 * and, when the word count is odd, a zero word to finish the pair; a CRC-32C
 * register updated one bit at a time; the 128-bit products in 32-bit halves. */
uint64_t ref_hash64_v2(uint64_t seed, const void *key, size_t len);

/* One token of a reference ring: its value, owner and vnode index. */
typedef struct ref_token {
    uint64_t token;
    uint32_t node;
    uint32_t vnode;
} ref_token;

/* Owner of hash h by a linear scan: the smallest (token, id, vnode) with
 * token >= h, else the smallest overall (the wrap). ids[node] are the node
 * ids. n >= 1. */
uint32_t ref_ring_owner(const ref_token *t, size_t n, const char *const *ids, uint64_t h);

/* lower_bound with wrap over sorted tokens: the index of the first token
 * >= h, or 0 when there is none. The textbook binary search; n >= 1. */
uint32_t ref_lower_bound_wrap(const uint64_t *tokens, uint32_t n, uint64_t h);

/* Does hash h lie in one of the n moves' ranges (lo, hi] (lo >= hi wraps
 * past UINT64_MAX)? A linear scan. */
int ref_in_moves(const placer_move *m, size_t n, uint64_t h);

/* Jump consistent hash exactly as Lamping & Veach print it. */
int32_t ref_jump_hash(uint64_t key, int32_t buckets);

/* The slot of h among n equal ranges of the hash space: the i with
 * i * 2^64 <= h * n < (i + 1) * 2^64, found by a binary search over the
 * range starts ceil(i * 2^64 / n) (no multiply-high). */
uint32_t ref_range_slot(uint64_t h, uint32_t n);

/* The rendezvous owner of h in s by the plain formula: every node that is
 * not joining scores -w / ln(u) with libm's log, u from fmix64(h ^
 * the snapshot's key hash of id); the highest wins, the lowest index on ties. */
uint32_t ref_rendezvous_owner(const placer_snapshot *s, uint64_t h);

/* The owner of position h in any snapshot, from its inspection calls
 * only: ring, the first token >= h (wrapping; a linear scan); partitions and
 * Maglev, the slot whose range holds h; jump, table[jump(h, buckets)];
 * rendezvous, ref_rendezvous_owner. PLACER_NO_NODE for a partition with
 * no active copy. */
uint32_t ref_owner(const placer_snapshot *s, uint64_t h);

/* A ring's replica set of position h by placer.h's contract, from its
 * inspection calls only (zones compared by name): the owner of the first
 * token >= h (wrapping), then clockwise each node of a zone not used yet
 * while such zones remain (among the zones owning tokens), then the first
 * nodes not taken. Writes at most want nodes, returns how many. */
uint32_t ref_ring_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want);

/* Cassandra 4's NetworkTopologyStrategy set of position h, plainly, from
 * the snapshot's inspection calls (datacenters and racks compared by
 * name, factors from placer_node_replication): each datacenter's hosts
 * and racks owning tokens counted, then one walk from the first token >= h
 * (wrapping) taking a host of its datacenter while that datacenter wants
 * more (its factor, at most its hosts) when its rack is new there, or
 * while fewer than factor - racks repeats of a rack were taken. The walk's
 * order; at most want nodes, returns how many. */
uint32_t ref_nts_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want);

/* Consistent hashing with bounded loads by the plain rule: m = the nodes
 * whose states[] is active or draining, cap = ceil(c * (total + 1) / m);
 * from the first token >= h (wrapping; a linear scan), the first owner that
 * is one of those m with loads[owner] < cap. PLACER_NO_NODE when none. */
uint32_t ref_bounded_owner(const uint64_t *tokens, const uint32_t *owners, uint32_t n,
                           const int *states, uint32_t nnodes, const uint32_t *loads,
                           uint64_t total, double c, uint64_t h);

/* The balanced token allocator's rule (engine/strategies/balancer.h)
 * recomputed from the ring for every token (tests/reference_balance.c):
 * the same arguments and answer as engine/strategies/token_balance.h's
 * plc_tokens_balance. */
int ref_tokens_balance(const uint64_t *tokens, const uint32_t *owners, uint32_t n,
                       const double *weights, const uint32_t *zones, uint32_t nnodes,
                       uint32_t node, uint32_t count, uint64_t base, uint64_t *out);

/* The hand-over's rule (plc_tokens_hand_over) recomputed by scanning every
 * node for every token (tests/reference_balance.c): heirs[i] as
 * plc_tokens_hand_over's owners_out; 0, or PLACER_EINVAL when no eligible
 * node's quotient is finite. Arguments assumed valid. */
int ref_tokens_hand_over(const uint64_t *tokens, const uint32_t *owners, uint32_t n,
                         const double *weights, const uint32_t *zones, uint32_t nnodes,
                         const uint8_t *leaving, const uint8_t *eligible, uint32_t *heirs);

#endif
