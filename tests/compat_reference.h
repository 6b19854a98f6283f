/*
 * compat_reference.h -- plain references for the compatibility modes,
 * written from each program's rules with no sorting, no midpoints and no
 * tables: linear scans over the points in the order the program inserts
 * them. The differential fuzzer holds engine/compat_*.c to these.
 */
#ifndef PLACER_TESTS_COMPAT_REFERENCE_H
#define PLACER_TESTS_COMPAT_REFERENCE_H

#include "compat.h"

/* The owner (node index) of a key under config c, whose defaults were
 * resolved into l (distribution, key hash, haproxy ids) by a successful
 * plc_compat_layout_build. */
uint32_t ref_compat_owner(const plc_compat_config *c, const plc_compat_layout *l, const void *key,
                          size_t len);

#endif
