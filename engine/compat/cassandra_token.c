/* cassandra_token.c -- Apache Cassandra's Murmur3Partitioner token of a
 * partition key, and the bytes of a composite partition key (placer.h). */
#include <limits.h>
#include <string.h>

#include "murmur3_cassandra.h"
#include "placer.h"

int64_t placer_cassandra_partitioner_token(const void *key, size_t len)
{
    if (!len) /* getToken: an empty buffer is the partitioner's MINIMUM */
        return INT64_MIN;
    uint64_t h = plc_murmur3_cassandra(key, len);
    /* normalize(): Long.MIN_VALUE is reserved for MINIMUM */
    return h == (uint64_t)INT64_MIN ? INT64_MAX : (int64_t)h;
}

int placer_cassandra_token(const void *key, size_t len, int64_t *token)
{
    if (!token || (!key && len))
        return PLACER_ENULL;
    if (!len) /* CQL refuses an empty partition key ("Key may not be empty") */
        return PLACER_EINVAL;
    *token = placer_cassandra_partitioner_token(key, len);
    return 0;
}

int placer_cassandra_key_compose(const void *const *parts, const size_t *lens, size_t n, void *out,
                                 size_t cap, size_t *out_len)
{
    if (!out_len || (n && (!parts || !lens)) || (!out && cap))
        return PLACER_ENULL;
    if (!n)
        return PLACER_EINVAL;
    size_t need = 0;
    for (size_t i = 0; i < n; i++) {
        if (!parts[i] && lens[i])
            return PLACER_ENULL;
        if (n > 1 && lens[i] > 0xffff) /* CompositeType's 2-byte length */
            return PLACER_EINVAL;
        need += n > 1 ? lens[i] + 3 : lens[i];
    }
    *out_len = need;
    if (cap < need)
        return PLACER_EINVAL;
    unsigned char *o = out;
    if (n == 1) { /* one column: its bytes as they are, no composite */
        if (need)
            memcpy(o, parts[0], need);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        *o++ = (unsigned char)(lens[i] >> 8);
        *o++ = (unsigned char)lens[i];
        if (lens[i])
            memcpy(o, parts[i], lens[i]);
        o += lens[i];
        *o++ = 0; /* the end-of-component byte */
    }
    return 0;
}
