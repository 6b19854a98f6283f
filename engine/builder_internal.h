/*
 * builder_internal.h -- what a placer_builder holds, shared by builder.c
 * (mutation, validation) and ring_build.c (turning it into a snapshot).
 */
#ifndef PLC_ENGINE_BUILDER_INTERNAL_H
#define PLC_ENGINE_BUILDER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "placer.h"

typedef struct plc_bnode {
    char *id;
    char *zone;
    uint32_t id_len;
    uint32_t zone_len;
    double weight;
    uint32_t explicit_tokens; /* > 0: no generated tokens */
    int state;                /* PLACER_NODE_* */
} plc_bnode;

typedef struct plc_btoken {
    uint64_t token;
    uint32_t node;
} plc_btoken;

struct placer_builder {
    uint64_t seed;
    uint32_t vnodes;
    uint32_t replicas; /* per-slot replica sets to precompute (0: none) */
    plc_bnode *nodes;
    uint32_t nnodes, cap_nodes;
    plc_btoken *explicit_tokens; /* in call order */
    uint32_t nexplicit, cap_explicit;
    uint32_t *id_index; /* open addressing over ids: node index + 1, 0 = empty */
    uint32_t id_index_cap; /* power of two, > 2 * nnodes */
};

#endif
