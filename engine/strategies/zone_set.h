/*
 * zone_set.h -- the tokens of one zone, in ring order, for the balanced
 * allocator (balancer.c): which of the zone's tokens follows a position
 * and which precedes it, and inserting one, each in O(log n + ZSET_CHUNK).
 *
 * Tokens live in chunks of at most ZSET_CHUNK ascending entries (equal
 * tokens in insertion order), the chunks in order; a lookup binary-searches
 * the chunks' last tokens, then one chunk. Inserting shifts at most one
 * chunk and splits it when full. Every elementary step (a comparison of a
 * search, an entry moved) adds one to *work, so callers can bound the work.
 */
#ifndef PLC_ENGINE_ZONE_SET_H
#define PLC_ENGINE_ZONE_SET_H

#include <stdint.h>

#define ZSET_CHUNK 128u

typedef struct zset_chunk {
    uint32_t n;
    uint64_t tok[ZSET_CHUNK];
    uint32_t own[ZSET_CHUNK];
} zset_chunk;

typedef struct plc_zone_set {
    zset_chunk **c;
    uint32_t nc, cap; /* chunks used, room for */
    uint32_t n;       /* tokens in all */
} plc_zone_set;

/* Append token t of owner o: t at least every token in z. 0 or
 * PLACER_ENOMEM. */
int plc_zset_append(plc_zone_set *z, uint64_t t, uint32_t o);

/* Insert token t of owner o after the tokens <= t. 0 or PLACER_ENOMEM. */
int plc_zset_insert(plc_zone_set *z, uint64_t t, uint32_t o, uint64_t *work);

/* The owner of the first token >= s, wrapping to the first token; in
 * *before the token before that one, wrapping to the last (the last token
 * < s: for a range (p, s] with no token inside, the last token <= p).
 * z not empty. */
uint32_t plc_zset_around(const plc_zone_set *z, uint64_t s, uint64_t *before, uint64_t *work);

void plc_zset_free(plc_zone_set *z);

#endif
