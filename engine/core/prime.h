/*
 * prime.h -- the prime test (Maglev's table sizes must be prime).
 */
#ifndef PLC_ENGINE_PRIME_H
#define PLC_ENGINE_PRIME_H

#include <stdint.h>

/* 1 when m is prime, 0 otherwise (trial division: m < 2^32). */
int plc_is_prime(uint32_t m);

#endif
