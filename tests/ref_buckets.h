/*
 * ref_buckets.h -- plain references of the bucket strategies, written
 * from the papers' pseudo-code with their own data structures, updated
 * one removal or addition at a time as the papers do (no code shared with
 * engine/strategies/): MementoHash, AnchorHash, DxHash, JumpBackHash,
 * BinomialHash. Only the random streams are the module's by definition
 * (the same draws of the key), written again here.
 */
#ifndef PLACER_TESTS_REF_BUCKETS_H
#define PLACER_TESTS_REF_BUCKETS_H

#include <stdint.h>

uint32_t ref_jumpback(uint64_t h, uint32_t n);
/* JumpBackHash's first point of position h under a range mask, bit by
 * bit (the first-step kernels' contract, simd/jumpback.h): SplitMix64's
 * first output r0, the range bits (r0's halves xored, masked), the
 * highest set one 2^i plus the low i bits of r0's low half (an even count
 * of set bits) or high half (odd); 0 when none is set. */
uint32_t ref_jumpback_first(uint64_t h, uint32_t mask);
/* JumpBackHash as Ertl's paper loops it (arXiv 2403.18682, Algorithm 2):
 * the same answers as ref_jumpback, the benchmarks' baseline, compiled
 * here, out of line, as a library providing it would be called. */
uint32_t ref_jumpback_paper(uint64_t h, uint32_t n);
uint32_t ref_binomial(uint64_t h, uint32_t n);

/* MementoHash: n, the last removed bucket l, and per bucket its replacer
 * (-1 while working) and the bucket removed before it. */
typedef struct ref_memento {
    int64_t n, l;
    int64_t *repl, *prev;
    int64_t cap;
} ref_memento;
void ref_memento_init(ref_memento *m, int64_t cap);
void ref_memento_free(ref_memento *m);
int64_t ref_memento_add(ref_memento *m);
void ref_memento_remove(ref_memento *m, int64_t b);
int64_t ref_memento_lookup(const ref_memento *m, uint64_t h);

/* AnchorHash: capacity a, the arrays A, K, W, L and the stack R. */
typedef struct ref_anchor {
    uint32_t a, N, nr;
    uint32_t *A, *K, *W, *L, *R;
} ref_anchor;
void ref_anchor_init(ref_anchor *x, uint32_t a); /* every bucket removed, 0 on top */
void ref_anchor_free(ref_anchor *x);
uint32_t ref_anchor_add(ref_anchor *x);
void ref_anchor_remove(ref_anchor *x, uint32_t b);
uint32_t ref_anchor_lookup(const ref_anchor *x, uint64_t h);

/* DxHash: a power-of-two array of active flags and a stack of inactive
 * buckets. */
typedef struct ref_dx {
    uint32_t a, ni;
    unsigned char *active;
    uint32_t *inactive;
} ref_dx;
void ref_dx_init(ref_dx *x, uint32_t a);
void ref_dx_free(ref_dx *x);
uint32_t ref_dx_add(ref_dx *x);
void ref_dx_remove(ref_dx *x, uint32_t b);
uint32_t ref_dx_lookup(const ref_dx *x, uint64_t h);

#endif
