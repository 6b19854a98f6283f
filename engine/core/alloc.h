/*
 * alloc.h -- the one allocation seam of libplacer (redis' zmalloc idea).
 *
 * They map to the process's malloc (jemalloc when the program links it:
 * the library never does). Memory from any of them is released with
 * plc_free, which accepts NULL. placer_mem_* (placer.h) are the same seam
 * for code outside the engine, libplacer-control included.
 *
 * plc_alloc_fail_at() is a test hook: the k-th allocation from now (0-based)
 * fails, so every allocation-failure path can be walked; -1 turns it off.
 */
#ifndef PLC_ENGINE_ALLOC_H
#define PLC_ENGINE_ALLOC_H

#include <stddef.h>

#define PLC_CACHE_LINE 64u
#define PLC_HUGE_PAGE ((size_t)2 << 20)
#define PLC_HUGE_MIN ((size_t)4 << 20) /* from this size, plc_aligned_alloc asks for huge pages */

void *plc_malloc(size_t n);
void *plc_calloc(size_t count, size_t size); /* NULL also when count * size overflows */
void *plc_realloc(void *p, size_t n);
void *plc_aligned_alloc(size_t n); /* PLC_CACHE_LINE-aligned; 2 MiB and huge pages from PLC_HUGE_MIN */
void plc_free(void *p);

const char *plc_allocator_name(void);
void plc_alloc_fail_at(long k);

#endif
