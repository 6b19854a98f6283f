/* jump.c -- jump consistent hash, as Lamping & Veach (2014) print it. */
#include "jump.h"

int32_t plc_jump_hash(uint64_t key, int32_t num_buckets)
{
    int64_t b = -1, j = 0;
    while (j < num_buckets) {
        b = j;
        key = key * 2862933555777941757ULL + 1;
        j = (int64_t)((double)(b + 1) * ((double)(1LL << 31) / (double)((key >> 33) + 1)));
    }
    return (int32_t)b;
}

/* Four keys' loops side by side: each step advances every live lane, and
 * a lane whose j reached n stops (live cleared, b kept). The lanes'
 * multiplies and divisions overlap; the answers are the loop's above. */
void plc_jump_batch_scalar(const uint64_t *keys, size_t count, int32_t buckets, uint32_t *out)
{
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        uint64_t key[4];
        int64_t b[4];
        int live[4], any;
        for (int l = 0; l < 4; l++) {
            key[l] = keys[i + l];
            b[l] = 0;
            live[l] = 1;
        }
        do {
            any = 0;
            for (int l = 0; l < 4; l++) {
                key[l] = key[l] * 2862933555777941757ULL + 1;
                double y = (double)(b[l] + 1) * ((double)(1LL << 31) / (double)((key[l] >> 33) + 1));
                live[l] &= y < (double)buckets;
                b[l] = live[l] ? (int64_t)y : b[l];
                any |= live[l];
            }
        } while (any);
        for (int l = 0; l < 4; l++)
            out[i + l] = (uint32_t)b[l];
    }
    for (; i < count; i++)
        out[i] = (uint32_t)plc_jump_hash(keys[i], buckets);
}
