/*
 * compat_layouts.h -- each program's part of a layout, for compat_build.c,
 * which resolves the settings, counts the size and calls these (one file
 * per program; what they share: compat_layout_kit.h). Each returns 0 or
 * a PLACER_* error; points go into room sized by the layout's size
 * (PLACER_ETOOMANY past it).
 */
#ifndef PLC_ENGINE_COMPAT_LAYOUTS_H
#define PLC_ENGINE_COMPAT_LAYOUTS_H

#include <stdint.h>

#include "compat.h"
#include "compat_layout_kit.h"

/* compat_ketama.c: libmemcached's ketama (weighted or plain) and its
 * number of points; twemproxy's server order (by name, equal names
 * refused), its ketama over that order and its number of points. */
int plc_compat_libmemcached_ring(const plc_compat_config *c, const plc_compat_layout *l,
                                 plc_compat_points *a);
uint64_t plc_compat_libmemcached_size(const plc_compat_config *c, const plc_compat_layout *l,
                                      uint64_t total);
int plc_compat_twemproxy_order(const plc_compat_config *c, uint32_t *order);
int plc_compat_twemproxy_ring(const plc_compat_config *c, const uint32_t *order,
                              plc_compat_points *a);
uint64_t plc_compat_twemproxy_size(const plc_compat_config *c, uint64_t total);

/* compat_nginx.c: nginx's servers grouped by CRC start: servers with the
 * same start (the same address, listed twice) make the same chain, so a
 * later one's first points repeat an earlier one's and nginx drops them.
 * base[i] each server's start, leader[i] the first server with that
 * start. The ring's bound on its points, its points, and the repeats
 * dropped once they are sorted. */
typedef struct plc_compat_nginx_pool {
    uint32_t *base, *leader;
} plc_compat_nginx_pool;

int plc_compat_nginx_pool_make(const plc_compat_config *c, plc_compat_nginx_pool *p);
void plc_compat_nginx_pool_free(plc_compat_nginx_pool *p);
int plc_compat_nginx_size(const plc_compat_config *c, const plc_compat_nginx_pool *p,
                          uint64_t *out);
int plc_compat_nginx_ring(const plc_compat_config *c, const plc_compat_nginx_pool *p,
                          plc_compat_points *a);
void plc_compat_nginx_drop_repeats(plc_compat_points *a);

/* compat_haproxy.c: the server ids haproxy gives (ids[i] of node i), the
 * consistent ring's points with every gap's midpoint. */
int plc_compat_haproxy_ids(const plc_compat_config *c, uint32_t *ids);
int plc_compat_haproxy_ring(const plc_compat_config *c, const plc_compat_layout *l,
                            plc_compat_points *a);

/* compat_haproxy_map.c: the weights' greatest common divisor (the map's)
 * and the map's tot slots, the weights over div. */
uint32_t plc_compat_haproxy_gcd(const plc_compat_config *c);
int plc_compat_haproxy_map_fill(const plc_compat_config *c, uint32_t div, uint32_t tot,
                                uint32_t *owners);

/* compat_tables.c: a table of each node `weight` times, in order (order:
 * twemproxy's server order, or NULL for the configuration's), into l:
 * twemproxy's modula and nginx's plain hash. PLACER_ETOOMANY over
 * total_cap slots. */
int plc_compat_table_build(const plc_compat_config *c, plc_compat_layout *l, const uint32_t *order,
                           uint64_t total_cap);

/* compat_haproxy_map.c: haproxy's map-based table into l (PLACER_ETOOMANY
 * over total_cap slots). */
int plc_compat_haproxy_map_table(const plc_compat_config *c, plc_compat_layout *l,
                                 uint64_t total_cap);

/* compat_redis.c: Redis' slot table into l (plc_compat_redis_even_split,
 * compat.h, when c has no slot owners). */
int plc_compat_redis_table(const plc_compat_config *c, plc_compat_layout *l);

#endif
