/* peers.c -- the C peers of placer's lookup; see peers.h. */
#include "peers.h"

uint32_t peer_ketama_search(const uint64_t *tokens, uint32_t n, uint64_t h)
{
    /* libmemcached's dispatch_host(), with 64-bit points */
    const uint64_t *begin = tokens, *left = tokens, *right = tokens + n, *end = tokens + n;
    while (left < right) {
        const uint64_t *middle = left + (right - left) / 2;
        if (*middle < h)
            left = middle + 1;
        else
            right = middle;
    }
    if (right == end)
        right = begin;
    return (uint32_t)(right - begin);
}

int32_t peer_jump_hash(uint64_t key, int32_t num_buckets)
{
    int64_t b = -1, j = 0;
    while (j < num_buckets) {
        b = j;
        key = key * 2862933555777941757ULL + 1;
        j = (int64_t)((double)(b + 1) * ((double)(1LL << 31) / (double)((key >> 33) + 1)));
    }
    return (int32_t)b;
}
