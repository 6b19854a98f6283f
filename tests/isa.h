/*
 * isa.h -- one loop over the CPU levels this machine has, for every kernel
 * test (dav1d's checkasm idea): for_each_cpu_level(fn, ctx) sets the CPU
 * mask of each level in turn, from the widest down to none (the portable
 * kernels), calls fn(ctx, level), and restores the full mask. A level
 * the machine lacks is skipped (and said so once), so a test run names
 * every kernel it really compared.
 *
 * Kernels are chosen when a snapshot is built: build inside fn what the
 * comparison needs; a test that also wants the portable kernels' answer
 * sets mask 0 and then level->mask again.
 */
#ifndef PLC_TESTS_ISA_H
#define PLC_TESTS_ISA_H

#include <stdio.h>

#include "placer.h"

typedef struct cpu_level {
    const char *name;
    unsigned mask; /* PLACER_CPU_* bits the level keeps */
} cpu_level;

/* Widest first; "none" last. A level runs when the machine has every bit of
 * its mask. */
static const cpu_level cpu_levels[] = {
    {"avx512", PLACER_CPU_AVX512 | PLACER_CPU_AVX2 | PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL},
    {"avx2", PLACER_CPU_AVX2 | PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL},
    {"sse4.2", PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL},
    {"neon", PLACER_CPU_ARM_NEON | PLACER_CPU_ARM_CRC},
    {"arm-crc", PLACER_CPU_ARM_CRC},
    {"none", 0},
};

/* Runs fn once per level the machine has; returns how many ran. */
static inline int for_each_cpu_level(void (*fn)(void *ctx, const cpu_level *level), void *ctx)
{
    placer_set_cpu_mask(~0u);
    unsigned have = placer_cpu_features();
    int ran = 0;
    for (size_t i = 0; i < sizeof cpu_levels / sizeof cpu_levels[0]; i++) {
        const cpu_level *l = &cpu_levels[i];
        if ((have & l->mask) != l->mask) {
            printf("isa: level %s not on this machine, skipped\n", l->name);
            continue;
        }
        placer_set_cpu_mask(l->mask);
        printf("isa: level %s (search=%s md5=%s bytehash=%s)\n", l->name,
               placer_kernel_name(PLACER_KERNEL_SEARCH), placer_kernel_name(PLACER_KERNEL_MD5),
               placer_kernel_name(PLACER_KERNEL_BYTEHASH));
        fn(ctx, l);
        ran++;
    }
    placer_set_cpu_mask(~0u);
    return ran;
}

#endif
