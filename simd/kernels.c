/*
 * kernels.c -- choose each job's kernel from the CPU features.
 *
 * The current table is published through an atomic pointer: the first call
 * builds the tables (pthread_once) and selects; readers pay one acquire
 * load, which on x86 is a plain load.
 */
#include "kernels.h"

#include <pthread.h>
#include <stdatomic.h>

#include "cpu.h"
#include "crc32c.h"
#include "search.h"

static const plc_kernels software = {
    plc_crc32c_sw, plc_hash64_sw, plc_hash64_batch_sw, plc_search_branchless,
    "slicing-by-8", "crc32c-sw+mum", "branchless-binary",
};

#if defined(PLC_HAVE_CRC_HW)
#if defined(__aarch64__)
#define HW_FEATURE PLC_CPU_ARM_CRC
#define HW_NAME "armv8-crc-3way"
#define HW_HASH_NAME "armv8-crc+mum"
#else
#define HW_FEATURE PLC_CPU_SSE42
#define HW_NAME "sse4.2-3way"
#define HW_HASH_NAME "sse4.2+mum"
#endif
static const plc_kernels hardware = {
    plc_crc32c_hw, plc_hash64_hw, plc_hash64_batch_hw, plc_search_branchless, HW_NAME, HW_HASH_NAME, "branchless-binary",
};
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Atomic(const plc_kernels *) current;

static void select_kernels(void)
{
    const plc_kernels *k = &software;
#if defined(PLC_HAVE_CRC_HW)
    if (plc_cpu_features() & HW_FEATURE)
        k = &hardware;
#endif
    atomic_store_explicit(&current, k, memory_order_release);
}

static void init(void)
{
    plc_crc32c_tables_init();
    select_kernels();
}

void plc_kernels_reselect(void)
{
    pthread_once(&once, init);
    select_kernels();
}

const plc_kernels *plc_kernels_get(void)
{
    const plc_kernels *k = atomic_load_explicit(&current, memory_order_acquire);
    if (k)
        return k;
    pthread_once(&once, init);
    return atomic_load_explicit(&current, memory_order_acquire);
}

const plc_kernels *plc_kernels_sw(void)
{
    pthread_once(&once, init);
    return &software;
}
