/*
 * codec_kit.c -- what the strategy modules' decode checks and builds call:
 * the decoder's failure with its reason, the check of an owner column, and
 * a section's cells as host integers.
 * Below the modules and the registry; decode.c, which calls the modules,
 * sits above them all (tests/test_file_cycles.py).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "alloc.h"
#include "builder_internal.h"
#include "codec_decode.h"
#include "codec_format.h"

int plc_dec_fail(plc_dec *d, int err, const char *fmt, ...)
{
    if (d->why && d->why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->why, d->why_len, fmt, ap);
        va_end(ap);
    }
    return err;
}

/* Owners in range and allowed in the placement (target: not draining;
 * now: not joining); `holes` allows PLC_NO_NODE. */
int plc_dec_check_owners(plc_dec *d, const placer_builder *b, const unsigned char *p,
                         uint64_t cells, int target, int holes, const char *what)
{
    for (uint64_t i = 0; i < cells; i++) {
        uint32_t o = plc_rd32(p + 4 * i);
        if (o == PLC_NO_NODE && holes)
            continue;
        if (o >= d->nnodes)
            return plc_dec_fail(d, PLACER_ECORRUPT, "%s %llu: owner %u out of range", what,
                        (unsigned long long)i, o);
        if (!plc_in_placement(b->nodes[o].state, target))
            return plc_dec_fail(d, PLACER_ECORRUPT, "%s %llu: node %u cannot own in this placement", what,
                        (unsigned long long)i, o);
    }
    return 0;
}

const uint32_t *plc_dec_u32_cells(const plc_sec *s, uint64_t cells, uint32_t **copy)
{
    *copy = NULL;
    if (!PLC_HOST_BIG_ENDIAN)
        return (const uint32_t *)(const void *)s->p;
    if (cells > SIZE_MAX / sizeof(uint32_t))
        return NULL;
    uint32_t *c = plc_malloc(cells ? (size_t)cells * sizeof *c : 1);
    if (c)
        plc_rd32_array(c, s->p, (size_t)cells);
    return *copy = c;
}

const uint64_t *plc_dec_u64_cells(const plc_sec *s, uint64_t cells, uint64_t **copy)
{
    *copy = NULL;
    if (!PLC_HOST_BIG_ENDIAN)
        return (const uint64_t *)(const void *)s->p;
    if (cells > SIZE_MAX / sizeof(uint64_t))
        return NULL;
    uint64_t *c = plc_malloc(cells ? (size_t)cells * sizeof *c : 1);
    if (c)
        for (uint64_t i = 0; i < cells; i++)
            c[i] = plc_rd64(s->p + 8 * i);
    return *copy = c;
}
