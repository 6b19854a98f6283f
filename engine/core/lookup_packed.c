/*
 * lookup_packed.c -- batches whose keys are packed in one buffer with n + 1
 * offsets (key i is data[offsets[i] .. offsets[i + 1]), the layout of Arrow
 * string columns and of a multi-get buffer): the offsets are checked once,
 * then turned chunk by chunk into pointer and length arrays on the stack and
 * handed to the ordinary batch calls. Thin on purpose: the batch path stays
 * the one place that hashes and searches.
 */
#include "placer.h"

#include <stdint.h>

/* Keys per chunk: enough to amortise a batch call, 4 KiB of stack. */
#define PACKED_CHUNK 256u

/* 0 when the offsets are usable: non-decreasing (PLACER_EINVAL otherwise)
 * and addressable (PLACER_EINVAL past SIZE_MAX), data not NULL unless every
 * key is empty (PLACER_ENULL). Checked before anything is written. */
static int packed_check(const void *data, const uint64_t *offsets, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (offsets[i + 1] < offsets[i])
            return PLACER_EINVAL;
#if SIZE_MAX < UINT64_MAX
    if (offsets[n] > SIZE_MAX)
        return PLACER_EINVAL;
#endif
    if (!data && offsets[n] != offsets[0])
        return PLACER_ENULL;
    return 0;
}

/* Pointers and lengths of keys at .. at + m - 1 (offsets already checked). */
static void packed_chunk(const void *data, const uint64_t *offsets, size_t at, size_t m,
                         const void **keys, size_t *lens)
{
    const unsigned char *base = data;
    for (size_t j = 0; j < m; j++) {
        uint64_t lo = offsets[at + j], hi = offsets[at + j + 1];
        keys[j] = base ? base + lo : NULL;
        lens[j] = (size_t)(hi - lo);
    }
}

int placer_lookup_batch_packed(const placer_snapshot *s, const void *data, const uint64_t *offsets,
                               size_t n, uint32_t *owners)
{
    if (!s || (n && (!offsets || !owners)))
        return PLACER_ENULL;
    if (!n)
        return 0;
    int err = packed_check(data, offsets, n);
    if (err)
        return err;
    const void *keys[PACKED_CHUNK];
    size_t lens[PACKED_CHUNK];
    for (size_t at = 0; at < n; at += PACKED_CHUNK) {
        size_t m = n - at < PACKED_CHUNK ? n - at : PACKED_CHUNK;
        packed_chunk(data, offsets, at, m, keys, lens);
        err = placer_lookup_batch(s, keys, lens, m, owners + at);
        if (err) /* not reached: every key was checked above */
            return err;
    }
    return 0;
}

int placer_router_lookup_batch_packed(placer_router *r, const void *data, const uint64_t *offsets,
                                      size_t n, uint32_t *owners, uint64_t *epoch)
{
    if (!r)
        return PLACER_ENULL;
    const placer_snapshot *s = placer_router_acquire(r);
    int err = placer_lookup_batch_packed(s, data, offsets, n, owners);
    if (epoch)
        *epoch = placer_snapshot_epoch(s);
    placer_router_release(r, s);
    return err;
}

int placer_replicas_batch_packed(const placer_snapshot *s, const void *data,
                                 const uint64_t *offsets, size_t n, uint32_t want, uint32_t *out,
                                 uint32_t *counts)
{
    if (!s || (n && (!offsets || !counts || (!out && want))))
        return PLACER_ENULL;
    if (!n)
        return 0;
    int err = packed_check(data, offsets, n);
    if (err)
        return err;
    const void *keys[PACKED_CHUNK];
    size_t lens[PACKED_CHUNK];
    for (size_t at = 0; at < n; at += PACKED_CHUNK) {
        size_t m = n - at < PACKED_CHUNK ? n - at : PACKED_CHUNK;
        packed_chunk(data, offsets, at, m, keys, lens);
        err = placer_replicas_batch(s, keys, lens, m, want, out ? out + at * (size_t)want : NULL,
                                    counts + at);
        if (err)
            return err;
    }
    return 0;
}
