/*
 * cpu.h -- CPU feature detection, done once, maskable for tests.
 *
 * Detection runs under pthread_once: cpuid for the instruction sets, and
 * xgetbv for the register state, because a CPU that has AVX-512 is of no use
 * when the OS does not save ZMM registers on a context switch. The feature
 * bits are the PLACER_CPU_* values of placer.h, kept numerically equal here
 * so that simd/ does not need the public header.
 */
#ifndef PLC_SIMD_CPU_H
#define PLC_SIMD_CPU_H

#include <stdint.h>

#define PLC_CPU_SSE42 (1u << 0)
#define PLC_CPU_PCLMUL (1u << 1)
#define PLC_CPU_AVX2 (1u << 2)
#define PLC_CPU_AVX512 (1u << 3)
#define PLC_CPU_ARM_CRC (1u << 4)
#define PLC_CPU_ARM_NEON (1u << 5)
#define PLC_CPU_ALL ((1u << 6) - 1) /* every bit above */

/* What the CPU and OS support, ignoring any mask. */
unsigned plc_cpu_detected(void);

/* plc_cpu_detected() & the mask set by plc_cpu_set_mask() (initially ~0). */
unsigned plc_cpu_features(void);

/* Hide features outside mask (tests). Takes effect for kernels chosen later. */
void plc_cpu_set_mask(unsigned mask);

#endif
