/* eytzinger.c -- see eytzinger.h. */
#include "eytzinger.h"

#define GROUP 16u

void plc_eytzinger_size(uint32_t n, size_t *key_bytes, size_t *owner_bytes)
{
    *key_bytes = ((size_t)n + 1) * sizeof(uint64_t);
    *owner_bytes = ((size_t)n + 1) * sizeof(uint32_t);
}

void plc_eytzinger_build(plc_eytzinger *e, const uint64_t *tokens, const uint32_t *owners,
                         uint32_t n, uint64_t *key_mem, uint32_t *owner_mem)
{
    /* In-order walk of the implicit tree without recursion: visit the
     * leftmost descendant, then climb while coming from a right child. */
    uint64_t k = 1;
    uint32_t i = 0;
    while (2 * k <= n)
        k *= 2;
    key_mem[0] = 0;
    owner_mem[0] = 0;
    while (i < n) {
        key_mem[k] = tokens[i];
        owner_mem[k] = owners[i];
        i++;
        if (2 * k + 1 <= n) { /* right subtree: go right, then all the way left */
            k = 2 * k + 1;
            while (2 * k <= n)
                k *= 2;
        } else { /* climb out of every right child, then one more step */
            while (k & 1)
                k >>= 1;
            k >>= 1;
        }
    }
    e->key = key_mem;
    e->owner = owner_mem;
    e->n = n;
    e->wrap_owner = owners[0];
}

/* The slot found: shift off the trailing 1s (right turns) and the last left
 * turn; 0 means every key was < h (the wrap). */
static inline uint32_t finish(const plc_eytzinger *e, uint64_t k)
{
    k >>= __builtin_ctzll(~k) + 1;
    return k ? e->owner[k] : e->wrap_owner;
}

uint32_t plc_eytzinger_search(const plc_eytzinger *e, uint64_t h)
{
    const uint64_t *key = e->key;
    uint64_t k = 1;
    while (k <= e->n) {
        __builtin_prefetch(key + k * 8);
        k = 2 * k + (key[k] < h);
    }
    return finish(e, k);
}

void plc_eytzinger_batch(const plc_eytzinger *e, const uint64_t *h, size_t n, uint32_t *owners)
{
    const uint64_t *key = e->key;
    uint32_t full = 0; /* levels every path has: floor(log2(n + 1)) */
    while (((uint64_t)1 << (full + 1)) - 1 <= e->n)
        full++;
    uint64_t k[GROUP];
    for (size_t base = 0; base < n; base += GROUP) {
        uint32_t g = n - base < GROUP ? (uint32_t)(n - base) : GROUP;
        for (uint32_t q = 0; q < g; q++)
            k[q] = 1;
        for (uint32_t d = 0; d < full; d++)
            for (uint32_t q = 0; q < g; q++) {
                k[q] = 2 * k[q] + (key[k[q]] < h[base + q]);
                __builtin_prefetch(key + k[q] * 8);
            }
        for (uint32_t q = 0; q < g; q++) {
            uint64_t kk = k[q];
            uint64_t probe = kk <= e->n ? kk : 0; /* key[0] is a dummy */
            kk = kk <= e->n ? 2 * kk + (key[probe] < h[base + q]) : kk;
            owners[base + q] = finish(e, kk);
        }
    }
}
