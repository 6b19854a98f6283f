/* peer_libmemcached_none.c -- stands in when libmemcached is not installed:
 * the libmemcached benchmark then reports that it was skipped. */
#include "peers.h"

void *peer_libmemcached_new(int servers)
{
    (void)servers;
    return NULL;
}

uint32_t peer_libmemcached_hash(void *m, const char *key, size_t len)
{
    (void)m;
    (void)key;
    (void)len;
    return 0;
}

void *peer_libmemcached_weighted_new(int servers)
{
    (void)servers;
    return NULL;
}
