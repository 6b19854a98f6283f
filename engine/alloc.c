/*
 * alloc.c -- see alloc.h. jemalloc's extended API is used on purpose: an
 * aligned allocation and its release are one call each, and the size class
 * is known to jemalloc without a header.
 */
#include "alloc.h"

#include <stdatomic.h>
#include <sys/mman.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(PLC_HAVE_JEMALLOC)
#include <jemalloc/jemalloc.h>
#endif

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
#if defined(PLC_HAVE_JEMALLOC)
    return mallocx(n ? n : 1, 0);
#else
    return malloc(n ? n : 1);
#endif
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
#if defined(PLC_HAVE_JEMALLOC)
    return rallocx(p, n ? n : 1, 0);
#else
    return realloc(p, n ? n : 1);
#endif
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
#if defined(PLC_HAVE_JEMALLOC)
    void *p = mallocx(n, MALLOCX_ALIGN(align));
#else
    void *p = aligned_alloc(align, n);
#endif
#if defined(MADV_HUGEPAGE)
    if (p && align == PLC_HUGE_PAGE)
        (void)madvise(p, n, MADV_HUGEPAGE);
#endif
    return p;
}

void plc_free(void *p)
{
    if (!p)
        return;
#if defined(PLC_HAVE_JEMALLOC)
    dallocx(p, 0);
#else
    free(p);
#endif
}

const char *plc_allocator_name(void)
{
#if defined(PLC_HAVE_JEMALLOC)
    return "jemalloc";
#else
    return "libc";
#endif
}
