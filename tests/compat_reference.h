/*
 * compat_reference.h -- plain references for the compatibility modes,
 * written from each program's rules with no sorting, no midpoints and no
 * tables: linear scans over the points in the order the program inserts
 * them. The differential fuzzer holds engine/compat_*.c to these.
 */
#ifndef PLACER_TESTS_COMPAT_REFERENCE_H
#define PLACER_TESTS_COMPAT_REFERENCE_H

#include "compat.h"

/* A reference for config c, accepted by plc_compat_layout_build, whose
 * defaults (distribution, key hash) were resolved into l
 * (plc_compat_layout_resolve; no more of l is read): the program's points
 * in insertion order, haproxy's server ids of its own, made once (c and l
 * must outlive it). Aborts when out of memory. */
typedef struct ref_compat ref_compat;
ref_compat *ref_compat_new(const plc_compat_config *c, const plc_compat_layout *l);

/* The owner (node index) of a key: a linear scan of the unsorted points,
 * or the program's table rule. */
uint32_t ref_compat_owner(const ref_compat *r, const void *key, size_t len);

void ref_compat_free(ref_compat *r);

#endif
