/*
 * compat.h -- compatibility layouts: the ring (or table) and the key hash
 * of libmemcached, twemproxy, nginx, haproxy and Redis Cluster, built from
 * the same inputs the program is given, so that every key goes where the
 * program sends it. docs/COMPAT.md gives each program's rules and quirks.
 *
 * A layout is one of two shapes:
 *   PLC_CL_RING   sorted 32-bit points with an owner each: a key's owner is
 *                 the owner of the first point >= its hash, wrapping to the
 *                 first point (ties: the program's own order, kept stable).
 *                 haproxy picks the nearer of the two neighbouring points;
 *                 its layout adds the midpoint of every gap, owned by the
 *                 point before it, which turns that rule into this one.
 *   PLC_CL_TABLE  owners[hash % n] (twemproxy modula, nginx plain hash,
 *                 haproxy map-based, Redis slots).
 *   PLC_CL_SCORES no points: each lookup scores every node and the highest
 *                 score wins (pymemcache's rendezvous). owners[i] = i for
 *                 the n = nnodes nodes, and a key's "hash" is the index of
 *                 its winner, so the table's rule (owners[hash % n])
 *                 answers the calls that take a position.
 */
#ifndef PLC_ENGINE_COMPAT_H
#define PLC_ENGINE_COMPAT_H

#include <stddef.h>
#include <stdint.h>

#include "compat_hash.h"
#include "placer.h"

/* Program ids are the public PLACER_COMPAT_* (include/placer_compat.h);
 * each program's ops are compat_program.h's, listed in compat_registry.c
 * in id order. */

/* Distributions; 0 is the program's default. */
enum {
    PLC_CD_DEFAULT = 0,
    PLC_CD_KETAMA_WEIGHTED, /* libmemcached MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED */
    PLC_CD_KETAMA,          /* libmemcached CONSISTENT_KETAMA, twemproxy ketama */
    PLC_CD_MODULA,          /* twemproxy */
    PLC_CD_CONSISTENT,      /* nginx `hash $key consistent`, haproxy consistent */
    PLC_CD_HASH,            /* nginx plain `hash $key` */
    PLC_CD_MAP_BASED,       /* haproxy */
    PLC_CD_RENDEZVOUS,      /* pymemcache's RendezvousHash */
};

enum { PLC_CL_RING = 1, PLC_CL_TABLE = 2, PLC_CL_SCORES = 3 };

/* The most numeric settings a program takes (its ops' params). */
#define PLC_COMPAT_MAX_PARAMS 4u

/* The programs' limits (placer.h states them; the programs' ops carry
 * them, compat_program.h). */
#define PLC_REDIS_SLOTS PLACER_REDIS_SLOTS
#define PLC_HAPROXY_MAX_ID PLACER_HAPROXY_MAX_ID
#define PLC_HAPROXY_MAX_WEIGHT PLACER_HAPROXY_MAX_WEIGHT
#define PLC_TWEMPROXY_MAX_HOSTLEN PLACER_TWEMPROXY_MAX_HOSTLEN

typedef struct plc_compat_node {
    const char *id;      /* twemproxy: the name it hashes */
    size_t id_len;
    const char *address; /* "host:port" (libmemcached, nginx) */
    size_t address_len;
    uint32_t weight;     /* >= 1 (ignored by Redis) */
    uint32_t hash_id;    /* haproxy server id; 0: the one haproxy would give */
    uint32_t vnodes;     /* uhashring: the node's own vnodes; 0: the ring's */
} plc_compat_node;

typedef struct plc_compat_config {
    int program;        /* PLACER_COMPAT_* */
    int distribution;   /* PLC_CD_*; 0: the program's default */
    int key_hash;       /* PLC_CH_*; 0: the program's default */
    int avalanche;      /* haproxy: full_hash() over the key hash */
    char hash_tag[2];   /* twemproxy: both NUL for none; Redis always "{}" */
    uint32_t nnodes;
    const plc_compat_node *nodes;
    const uint32_t *slot_owner; /* Redis: PLC_REDIS_SLOTS node indexes, or NULL
                                 * for redis-cli --cluster create's even split */
    uint64_t max_points; /* the most points or slots the layout may ask room for
                          * (PLACER_ETOOMANY past it); 0: PLACER_MAX_COMPAT_POINTS */
    /* The program's own numeric settings, in the order its ops list them
     * (compat_program.h, plc_compat_param: groupcache's "replicas"); 0: the
     * setting's default. */
    uint32_t params[PLC_COMPAT_MAX_PARAMS];
} plc_compat_config;

typedef struct plc_compat_layout {
    int program, distribution, key_hash, avalanche, kind;
    char hash_tag[2];
    uint32_t nnodes;
    uint32_t n;        /* points (RING) or table slots (TABLE) */
    uint32_t *points;  /* RING: ascending; NULL for TABLE */
    uint32_t *owners;  /* node index of each point / slot */
    uint32_t *hash_ids; /* haproxy: the server id of each node; else NULL */
    uint32_t *node_vnodes; /* uhashring: each node's own vnodes (0: the ring's), when
                            * any node has its own; else NULL */
    uint32_t params[PLC_COMPAT_MAX_PARAMS]; /* the config's, defaults resolved */
    void *extra; /* the program's own data beside its points (uhashring's default
                  * ring: each point's other 96 bits), freed with the layout */
} plc_compat_layout;

/* Resolve defaults, check the config against the program's rules and build
 * its layout into *out (owned by the caller: plc_compat_layout_free).
 * Returns 0, PLACER_ENONODES, PLACER_EINVAL (a rule the program would not
 * accept or that placer cannot follow: see docs/COMPAT.md), PLACER_ETOOMANY
 * or PLACER_ENOMEM. On failure *out is left empty. */
int plc_compat_layout_build(const plc_compat_config *cfg, plc_compat_layout *out);

/* The number of points or slots plc_compat_layout_build would make for
 * cfg, from the weights alone (O(nodes); nginx's ring O(nodes log nodes)),
 * into *n: exact, except nginx's ring, for which it is an upper bound
 * (equal points of different servers' chains are dropped: about n^2 / 2^33
 * of them). Returns 0 or the error the build would return for the weights
 * and the mode (PLACER_EINVAL, PLACER_ENONODES, PLACER_ENULL,
 * PLACER_ENOMEM). The decoder holds a file's listed points to it before
 * rebuilding anything. */
int plc_compat_layout_size(const plc_compat_config *cfg, uint64_t *n);

void plc_compat_layout_free(plc_compat_layout *l);

/* Only the program, distribution, key hash and tag of cfg's layout, its
 * defaults resolved and checked as plc_compat_layout_build does, into *out
 * (no points, table or ids: kind and n are 0; nothing to free). The nodes
 * are not read (cfg->nodes may be NULL), only their number. Returns 0,
 * PLACER_ENONODES or PLACER_EINVAL. */
int plc_compat_layout_resolve(const plc_compat_config *cfg, plc_compat_layout *out);

/* The decoder's checks of a file's points (compat_layout_check.c):
 * plc_compat_points_unsorted gives the first i in 1 .. n - 1 where the
 * little-endian 32-bit points[i] is below points[i - 1], n when none;
 * plc_compat_layout_mismatch the first i < l->n where the little-endian
 * points[i] (not read for a table) or owners[i] differ from l's, l->n when
 * none does. */
uint64_t plc_compat_points_unsorted(const unsigned char *points, uint64_t n);
uint32_t plc_compat_layout_mismatch(const plc_compat_layout *l, const unsigned char *points,
                                    const unsigned char *owners);

/* The program's 32-bit hash of a key (after hash tags, avalanche, its
 * special cases): what its ring or table is searched with. */
uint32_t plc_compat_key_hash(const plc_compat_layout *l, const void *key, size_t len);

/* Narrow *key to the bytes between the first `open` and the first `close`
 * after it, when there is at least one (twemproxy hash_tag, Redis {tag}):
 * compat_layout_kit.c. */
void plc_compat_tag(char open, char close, const unsigned char **key, size_t *len);

/* The index into l->points / l->owners that a hash selects: lower_bound
 * with wrap (RING) or hash % n (TABLE). A plain reference search. */
uint32_t plc_compat_slot(const plc_compat_layout *l, uint32_t hash);

/* Owner node index of a key. */
static inline uint32_t plc_compat_lookup(const plc_compat_layout *l, const void *key, size_t len)
{
    return l->owners[plc_compat_slot(l, plc_compat_key_hash(l, key, len))];
}

/* redis-cli --cluster create's slot ranges for `masters` masters:
 * owner[slot] = master index. masters >= 1. */
void plc_compat_redis_even_split(uint32_t masters, uint32_t owner[PLC_REDIS_SLOTS]);

/* Names (compat_names.c): 0 or NULL when unknown or not the program's. */
int plc_compat_program_id(const char *name);
const char *plc_compat_program_name(int id);
int plc_compat_distribution_id(const char *name);
const char *plc_compat_distribution_name(int id);
int plc_compat_hash_id(int program, const char *name);
const char *plc_compat_hash_name(int program, int id);

#endif
