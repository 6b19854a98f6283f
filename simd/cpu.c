/*
 * cpu.c -- detect instruction sets once.
 *
 * x86: cpuid leaf 1 (SSE4.2, PCLMULQDQ, OSXSAVE, AVX, POPCNT) and leaf 7
 * (AVX2 with BMI2, AVX-512 F/DQ/BW/VL), then xgetbv(0) to confirm the OS
 * saves the XMM/YMM state (bits 1, 2) and the opmask/ZMM state (bits 5, 6, 7).
 * AArch64: getauxval(AT_HWCAP) for CRC32; NEON is architectural.
 */
#include "cpu.h"

#include <pthread.h>
#include <stdatomic.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static uint64_t read_xcr0(void)
{
    uint32_t eax, edx;
    /* xgetbv with ecx = 0; encoded as bytes so no -mxsave is needed. */
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((uint64_t)edx << 32) | eax;
}

static unsigned detect(void)
{
    unsigned eax, ebx, ecx, edx, out = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return 0;
    if (ecx & (1u << 20))
        out |= PLC_CPU_SSE42;
    if (ecx & (1u << 1))
        out |= PLC_CPU_PCLMUL;
    unsigned ecx1 = ecx;
    int osxsave = (ecx >> 27) & 1, avx = (ecx >> 28) & 1;
    if (!osxsave || !avx)
        return out;
    uint64_t xcr0 = read_xcr0();
    if ((xcr0 & 0x6) != 0x6) /* XMM and YMM state */
        return out;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
        return out;
    int popcnt = (ecx1 >> 23) & 1; /* the AVX2 and AVX-512 kernels count mask bits */
    int bmi2 = (ebx >> 8) & 1;      /* the AVX2 kernels are built with -mbmi2 (mulx, shrx) */
    if ((ebx & (1u << 5)) && popcnt && bmi2)
        out |= PLC_CPU_AVX2;
    unsigned need512 = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31); /* F DQ BW VL */
    if ((ebx & need512) == need512 && (xcr0 & 0xe0) == 0xe0 && popcnt)
        out |= PLC_CPU_AVX512;
    return out;
}
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
static unsigned detect(void)
{
    unsigned out = PLC_CPU_ARM_NEON;
    if (getauxval(AT_HWCAP) & HWCAP_CRC32)
        out |= PLC_CPU_ARM_CRC;
    return out;
}
#else
static unsigned detect(void)
{
    return 0;
}
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned detected;
static atomic_uint mask = ~0u;

static void init(void)
{
    detected = detect();
}

unsigned plc_cpu_detected(void)
{
    pthread_once(&once, init);
    return detected;
}

unsigned plc_cpu_features(void)
{
    return plc_cpu_detected() & atomic_load_explicit(&mask, memory_order_relaxed);
}

void plc_cpu_set_mask(unsigned m)
{
    atomic_store_explicit(&mask, m, memory_order_relaxed);
}
