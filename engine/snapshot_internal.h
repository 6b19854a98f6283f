/*
 * snapshot_internal.h -- the layout of an immutable snapshot.
 *
 * One 64-byte-aligned allocation holds everything, in this order:
 *   struct placer_snapshot   (hot fields in its first cache line)
 *   tokens[ntokens]          uint64_t, ascending, 64-byte aligned
 *   owners[ntokens]          uint32_t node index of each token, 64-byte aligned
 *   nodes[nnodes]            plc_node records
 *   strings                  ids and zones, NUL-terminated
 * so freeing is one call and a reader never chases memory that another
 * snapshot could share. Nothing in it changes after placer_builder_build
 * returns: readers need no synchronisation.
 */
#ifndef PLC_ENGINE_SNAPSHOT_INTERNAL_H
#define PLC_ENGINE_SNAPSHOT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "placer.h"

typedef struct plc_node {
    const char *id;
    const char *zone;
    double weight;
    uint32_t ntokens;
    uint32_t pad_;
} plc_node;

struct placer_snapshot {
    /* first cache line: what every lookup reads */
    const uint64_t *tokens;
    const uint32_t *owners;
    plc_hash64_fn hash64;
    plc_search_fn search;
    uint64_t seed;
    uint32_t ntokens;
    uint32_t nnodes;
    uint64_t epoch;
    const plc_node *nodes;
    /* cold */
    size_t bytes; /* size of the whole allocation */
};

#endif
