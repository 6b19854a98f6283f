/*
 * alloc.c -- see alloc.h. The library allocates from the process's malloc
 * and never links an allocator of its own: a program that wants jemalloc
 * links it (the placer command and the benchmarks do), and then every
 * allocation here is jemalloc's too, without libplacer replacing the
 * malloc of programs that embed it.
 */
#include "alloc.h"

#include <stdatomic.h>
#include <sys/mman.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "placer.h"

static atomic_long fail_countdown = -1;

void plc_alloc_fail_at(long k)
{
    atomic_store(&fail_countdown, k);
}

/* True when the test hook says this allocation must fail. */
static int injected_failure(void)
{
    long k = atomic_load_explicit(&fail_countdown, memory_order_relaxed);
    if (k < 0)
        return 0;
    return atomic_fetch_sub(&fail_countdown, 1) == 0;
}

void *plc_malloc(size_t n)
{
    if (injected_failure())
        return NULL;
    return malloc(n ? n : 1);
}

void *plc_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = plc_malloc(count * size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

void *plc_realloc(void *p, size_t n)
{
    if (!p)
        return plc_malloc(n);
    if (injected_failure())
        return NULL;
    return realloc(p, n ? n : 1);
}

void *plc_aligned_alloc(size_t n)
{
    if (injected_failure())
        return NULL;
    /* Large snapshots are looked up at random: with 4 KiB pages nearly every
     * lookup would also miss the TLB. Align them to 2 MiB and ask for
     * transparent huge pages (a hint; the kernel may decline). */
    size_t align = n >= PLC_HUGE_MIN ? PLC_HUGE_PAGE : PLC_CACHE_LINE;
    /* C11 aligned_alloc wants a size that is a multiple of the alignment. */
    if (n > SIZE_MAX - align)
        return NULL;
    n = (n + align - 1) & ~(align - 1);
    if (!n)
        n = align;
    void *p = aligned_alloc(align, n);
#if defined(MADV_HUGEPAGE)
    if (p && align == PLC_HUGE_PAGE)
        (void)madvise(p, n, MADV_HUGEPAGE);
#endif
    return p;
}

void plc_free(void *p)
{
    free(p);
}

const char *plc_allocator_name(void)
{
    return "the process's malloc";
}

/* The public face of the seam, for libplacer-control and other callers. */
void *placer_mem_alloc(size_t n)
{
    return plc_malloc(n);
}

void *placer_mem_calloc(size_t count, size_t size)
{
    return plc_calloc(count, size);
}

void *placer_mem_realloc(void *p, size_t n)
{
    return plc_realloc(p, n);
}

void placer_mem_free(void *p)
{
    plc_free(p);
}
