/*
 * twemproxy_values.h -- the values nutcracker 0.5.0 accepts for each
 * directive (nc_conf.c's conf_set_* functions), for twemproxy_import.c.
 */
#ifndef PLC_CONTROL_TWEMPROXY_VALUES_H
#define PLC_CONTROL_TWEMPROXY_VALUES_H

#include <stddef.h>

/* What a pool's directives said that conf_validate_pool checks together. */
typedef struct tw_pool {
    int redis;      /* "redis: true" */
    int redis_auth; /* redis_auth given */
} tw_pool;

/* 1 (and why, NUL-terminated) when nutcracker refuses value v (len bytes,
 * no NUL inside) for directive key, else 0; records into pool what
 * conf_validate_pool reads later. Directives checked elsewhere (hash,
 * distribution, hash_tag, servers) and unknown ones are 0 here. */
int tw_value_refused(const char *key, const char *v, size_t len, tw_pool *pool, char *why,
                     size_t why_len);

#endif
