/*
 * icount_workload.c -- a fixed lookup workload for instruction counting
 * (bench/icount_check.sh runs it under valgrind --tool=callgrind).
 * Instruction counts do not depend on what else the machine is doing, so
 * unlike times they can gate CI on a shared, noisy machine.
 *
 * The seed ring (120 nodes x 256 tokens); 100,000 fixed 32-byte keys looked
 * up one at a time, then the same keys as one batch. Only run_lookups() is
 * counted (callgrind's --toggle-collect), so building the ring is not.
 * Prints the kernel used and a checksum of the owners.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fixtures.h"
#include "placer.h"

#define NKEYS 100000u
#define KEY_LEN 32u

/* Not static, not inlined: callgrind toggles collection on this symbol. */
__attribute__((noinline)) uint64_t run_lookups(const placer_snapshot *s, const void *const *keys,
                                               const size_t *lens, uint32_t *owners);

__attribute__((noinline)) uint64_t run_lookups(const placer_snapshot *s, const void *const *keys,
                                               const size_t *lens, uint32_t *owners)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < NKEYS; i++)
        sum += (uint64_t)placer_lookup(s, keys[i], lens[i]);
    if (placer_lookup_batch(s, keys, lens, NKEYS, owners) != 0)
        return 0;
    for (uint32_t i = 0; i < NKEYS; i++)
        sum += owners[i];
    return sum;
}

int main(void)
{
    placer_snapshot *s = bench_seed_ring(1);
    if (!s)
        return 1;
    unsigned char *buf = malloc((size_t)NKEYS * KEY_LEN);
    const void **keys = malloc(NKEYS * sizeof *keys);
    size_t *lens = malloc(NKEYS * sizeof *lens);
    uint32_t *owners = malloc(NKEYS * sizeof *owners);
    uint64_t x = 88172645463325252u;
    for (size_t i = 0; i < (size_t)NKEYS * KEY_LEN; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = (unsigned char)('a' + x % 26);
    }
    for (uint32_t i = 0; i < NKEYS; i++) {
        keys[i] = buf + (size_t)i * KEY_LEN;
        lens[i] = KEY_LEN;
    }
    uint64_t sum = run_lookups(s, keys, lens, owners);
    printf("kernel %s checksum %llu\n", placer_kernel_name(PLACER_KERNEL_SEARCH),
           (unsigned long long)sum);
    free(buf);
    free(keys);
    free(lens);
    free(owners);
    placer_snapshot_free(s);
    return sum == 0;
}
