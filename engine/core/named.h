/*
 * named.h -- a node index paired with a name (id or zone), and the
 * comparator that sorts such pairs byte-wise as strcmp: how the builder
 * orders nodes and how a diff matches nodes between snapshots.
 */
#ifndef PLC_ENGINE_NAMED_H
#define PLC_ENGINE_NAMED_H

#include <stdint.h>
#include <string.h>

typedef struct plc_named {
    const char *name;
    uint32_t index;
} plc_named;

static inline int plc_cmp_named(const void *x, const void *y)
{
    return strcmp(((const plc_named *)x)->name, ((const plc_named *)y)->name);
}

#endif
