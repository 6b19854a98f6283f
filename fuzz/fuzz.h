/*
 * fuzz.h -- what every fuzz target shares (zstd's tests/fuzz idea):
 * FUZZ_ASSERT, on in every build type (a fuzzer that stops checking under
 * NDEBUG finds nothing), and a small producer that derives parameters from
 * the input bytes, returning zeros once they run out so every input is valid.
 */
#ifndef PLACER_FUZZ_H
#define PLACER_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ASSERT(cond)                                                                 \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: FUZZ_ASSERT failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

typedef struct fuzz_producer {
    const uint8_t *data;
    size_t size;
} fuzz_producer;

static inline uint64_t fuzz_bits(fuzz_producer *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes && p->size; i++, p->data++, p->size--)
        v |= (uint64_t)p->data[0] << (8 * i);
    return v;
}

static inline uint8_t fuzz_u8(fuzz_producer *p) { return (uint8_t)fuzz_bits(p, 1); }
static inline uint16_t fuzz_u16(fuzz_producer *p) { return (uint16_t)fuzz_bits(p, 2); }
static inline uint32_t fuzz_u32(fuzz_producer *p) { return (uint32_t)fuzz_bits(p, 4); }
static inline uint64_t fuzz_u64(fuzz_producer *p) { return fuzz_bits(p, 8); }

/* Up to n bytes, as a pointer into the input; *got receives how many. */
static inline const uint8_t *fuzz_bytes(fuzz_producer *p, size_t n, size_t *got)
{
    const uint8_t *at = p->data;
    *got = n < p->size ? n : p->size;
    p->data += *got;
    p->size -= *got;
    return at;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
