/*
 * control_alloc.h -- libplacer-control allocates through libplacer's one
 * seam (placer_mem_alloc, placer.h), so the tests' injected allocation
 * failures reach the control plane too.
 */
#ifndef PLC_CONTROL_ALLOC_H
#define PLC_CONTROL_ALLOC_H

#include <jansson.h>
#include <string.h>

#include "placer.h"

/* strdup through the seam; NULL when out of memory. */
static inline char *plc_ctl_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = placer_mem_alloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Release what jansson allocated for the caller (json_dumps): with the free
 * function jansson was given, which a program may have changed. */
static inline void plc_ctl_json_free(void *p)
{
    json_free_t release = NULL;
    json_get_alloc_funcs(NULL, &release);
    if (p)
        release(p);
}

#endif
