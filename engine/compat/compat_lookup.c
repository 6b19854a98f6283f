/*
 * compat_lookup.c -- a key's hash as each compatible program computes it
 * (its ops' key_hash: hash tags, single-server and empty-key rules,
 * avalanche), and the plain search of a compatibility layout: the reference the vectorised paths and
 * the differential fuzzer are held to.
 */
#include <string.h>

#include "compat_program.h"

uint32_t plc_compat_key_hash(const plc_compat_layout *l, const void *key, size_t len)
{
    const plc_compat_program *p = plc_compat_program_get(l->program);
    return p ? p->key_hash(l, key, len) : 0;
}

uint32_t plc_compat_slot(const plc_compat_layout *l, uint32_t hash)
{
    if (l->kind == PLC_CL_TABLE)
        return hash % l->n;
    uint32_t lo = 0, hi = l->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (l->points[mid] < hash)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == l->n ? 0 : lo;
}
