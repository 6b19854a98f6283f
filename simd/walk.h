/*
 * walk.h -- a window of the replica walk's first lap (engine/core/
 * replica_walk.c) over three consecutive leaf lines of the S+ tree
 * (stree.h), without a branch a token.
 *
 * The first lap takes, clockwise from the key's slot, the node of each
 * zone's first token until enough zones are used: in a window of tokens,
 * the tokens whose zone is neither among those taken before the window nor
 * on an earlier token of it. A token at a time that test is a branch the
 * predictor loses about every other key (and the loop's end another); here
 * the window's owners are read from the three leaves at once, their zones
 * fetched, and the picks are a mask.
 *
 * Lane k of the window is the token at slot j + k of the three leaves'
 * 15 (leaf[0] slot j is lane 0); lanes k < lim are read (1 <= lim <=
 * 15 - j), the rest ignored. A node's zone is zone[owner * zstride]
 * (the snapshot's node records), below 32. At most `need` picks are
 * written to out[0..), in window order; returns how many. When fewer than
 * need, every zone of the window is added to *taken (the lap goes on);
 * else *taken is left as it is (the lap is over). All three leaf lines must
 * be readable.
 */
#ifndef PLC_SIMD_WALK_H
#define PLC_SIMD_WALK_H

#include <stdint.h>

#include "buckets.h"
#include "stree.h"

#define PLC_WALK_WINDOW_LEAVES 3u
#define PLC_WALK_MAX_ZONES 32u /* zone ids below this: a 32-bit taken mask */
#define PLC_WALK_SMALL_NODES 128u /* zones of up to this many nodes in four vectors */

typedef uint32_t (*plc_walk_window_fn)(const plc_stree_leaf *leaf, uint32_t j, uint32_t lim,
                                       const uint32_t *zone, uint32_t zstride, uint32_t *taken,
                                       uint32_t need, uint32_t *out);

/* The same first lap from the ring's line table (buckets.h) alone, for a
 * key whose hash is h: the line's owners from the key's rank on (own[r]
 * is the owner of the key's token, own[r + 1] the next token's ...) and
 * the next line's after them (the next line's base minus this one's says
 * where this line's tokens end), 16 consecutive tokens without the slot
 * or a leaf, the lookup's one line and the one beside it. Writes the
 * first `need` picks and returns need, or returns 0 when it cannot answer
 * them all (a tie on the line's 16 bits, a crowded line or owner 0xFFFF,
 * the last line, fewer than need zones in the 16 tokens): then the slot's
 * walk does, and out[0..need) may have been written. zone16, when not
 * NULL, holds the zones of nodes 0 .. PLC_WALK_SMALL_NODES - 1: a ring of that few nodes has its zones looked up in vectors
 * instead of gathered from the records. */
typedef uint32_t (*plc_walk_lines_fn)(const plc_bkt *k, uint64_t h, const uint32_t *zone,
                                      uint32_t zstride, const uint16_t *zone16, uint32_t need,
                                      uint32_t *out);

/* AVX-512 only (NULL in the other instruction sets' kernel tables: the walk
 * a token at a time). A portable kernel of the same mask (fifteen zone
 * tests, the picks read off the mask) was measured no faster than that
 * walk, 7.2x a lookup for 3 of 3 zones against 7.3x: without vector
 * compares and compress, a window's fixed fifteen steps cost what the
 * branches it saves cost. */
#if defined(PLC_HAVE_AVX512)
uint32_t plc_walk_window_avx512(const plc_stree_leaf *leaf, uint32_t j, uint32_t lim,
                                const uint32_t *zone, uint32_t zstride, uint32_t *taken,
                                uint32_t need, uint32_t *out);
uint32_t plc_walk_lines_avx512(const plc_bkt *k, uint64_t h, const uint32_t *zone,
                               uint32_t zstride, const uint16_t *zone16, uint32_t need,
                               uint32_t *out);
#endif

#endif
