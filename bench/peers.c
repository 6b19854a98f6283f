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
