/*
 * ring_membership.h -- a deterministic membership per epoch for the router
 * tests: which nodes exist changes with every epoch, and anyone can
 * recompute the expected owner of a key in epoch e without the snapshot.
 */
#ifndef PLACER_TESTS_RING_MEMBERSHIP_H
#define PLACER_TESTS_RING_MEMBERSHIP_H

#include <stdint.h>

#include "placer.h"
#include "reference.h"

#define MEMBERSHIP_SEED 42u
#define MEMBERSHIP_VNODES 8u
#define MEMBERSHIP_MAX_NODES 10u

typedef struct membership {
    uint64_t epoch;
    uint32_t nodes;
    char ids[MEMBERSHIP_MAX_NODES][8];
    const char *id_ptrs[MEMBERSHIP_MAX_NODES];
    ref_token tokens[MEMBERSHIP_MAX_NODES * MEMBERSHIP_VNODES];
    uint32_t ntokens;
} membership;

/* Fill m with epoch e's membership and its reference tokens. */
void membership_for(membership *m, uint64_t e);

/* Epoch e's snapshot, built with placer; NULL on failure. */
placer_snapshot *membership_snapshot(uint64_t e);

/* The owner (node index) the reference gives for key in m. */
uint32_t membership_owner(const membership *m, const void *key, size_t len);

#endif
