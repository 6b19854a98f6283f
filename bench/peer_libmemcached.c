/* peer_libmemcached.c -- libmemcached's ketama as a peer (see peers.h).
 * Servers are listed on 127.0.0.1; generating a hash never connects. */
#include <libmemcached/memcached.h>

#include "peers.h"

void *peer_libmemcached_new(int servers)
{
    memcached_st *m = memcached_create(NULL);
    if (!m)
        return NULL;
    /* MEMCACHED_BEHAVIOR_KETAMA: consistent ketama distribution with MD5. */
    memcached_behavior_set(m, MEMCACHED_BEHAVIOR_KETAMA, 1);
    for (int i = 0; i < servers; i++)
        if (memcached_server_add(m, "127.0.0.1", (in_port_t)(20000 + i)) != MEMCACHED_SUCCESS) {
            memcached_free(m);
            return NULL;
        }
    return m;
}

void *peer_libmemcached_weighted_new(int servers)
{
    memcached_st *m = memcached_create(NULL);
    if (!m)
        return NULL;
    memcached_behavior_set(m, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1);
    for (int i = 0; i < servers; i++)
        if (memcached_server_add_with_weight(m, "127.0.0.1", (in_port_t)(20000 + i),
                                             (uint32_t)(1 + i % 2)) != MEMCACHED_SUCCESS) {
            memcached_free(m);
            return NULL;
        }
    return m;
}

uint32_t peer_libmemcached_hash(void *m, const char *key, size_t len)
{
    return memcached_generate_hash((memcached_st *)m, key, len);
}
