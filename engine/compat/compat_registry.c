/*
 * compat_registry.c -- the one list of compatibility programs
 * (compat_program.h): one line per program, naming the ops its own
 * compat_<name>.c defines, in id order (its PLACER_COMPAT_* id,
 * include/placer_compat.h; tests/test_compat_api.c checks the order).
 * Lookup by id or name.
 */
#include <string.h>

#include "compat_program.h"
#include "placer.h"

_Static_assert(PLC_CF_NODE_VNODES == PLACER_COMPAT_FIELD_NODE_VNODES, "a node's vnodes");
_Static_assert(PLC_CF_ADDRESS == PLACER_COMPAT_FIELD_ADDRESS &&
                   PLC_CF_HOST_PORT == PLACER_COMPAT_FIELD_HOST_PORT &&
                   PLC_CF_HASH_ID == PLACER_COMPAT_FIELD_HASH_ID &&
                   PLC_CF_AVALANCHE == PLACER_COMPAT_FIELD_AVALANCHE &&
                   PLC_CF_HASH_TAG == PLACER_COMPAT_FIELD_HASH_TAG &&
                   PLC_CF_SLOTS == PLACER_COMPAT_FIELD_SLOTS &&
                   PLC_CF_KEY_RULE == PLACER_COMPAT_FIELD_KEY_RULE &&
                   PLC_CF_BALANCE_FACTOR == PLACER_COMPAT_FIELD_BALANCE_FACTOR &&
                   PLC_CF_MOVES == PLACER_COMPAT_FIELD_MOVES &&
                   PLC_CF_ADDRESS_ONCE == PLACER_COMPAT_FIELD_ADDRESS_ONCE,
               "the membership fields' bits are the public ones");

/* The programs, one line each, in id order. */
#define PLC_COMPAT_PROGRAMS(X)                                                                   \
    X(libmemcached)                                                                              \
    X(twemproxy)                                                                                 \
    X(nginx)                                                                                     \
    X(haproxy)                                                                                   \
    X(redis)                                                                                     \
    X(kafka)                                                                                     \
    X(groupcache)                                                                                \
    X(uhashring)                                                                                  \
    X(pymemcache)

#define DECLARE(name) extern const plc_compat_program plc_compat_##name;
#define ENTRY(name) &plc_compat_##name,
PLC_COMPAT_PROGRAMS(DECLARE)
static const plc_compat_program *const programs[] = {PLC_COMPAT_PROGRAMS(ENTRY)};
#define NPROGRAMS (sizeof programs / sizeof programs[0])

const plc_compat_program *plc_compat_program_get(int id)
{
    /* the lines are in id order: the id's own line first */
    if (id >= 1 && (size_t)id <= NPROGRAMS && programs[id - 1]->id == id)
        return programs[id - 1];
    for (size_t i = 0; i < NPROGRAMS; i++)
        if (programs[i]->id == id)
            return programs[i];
    return NULL;
}

const plc_compat_program *plc_compat_program_find(const char *name)
{
    for (size_t i = 0; name && i < NPROGRAMS; i++)
        if (!strcmp(programs[i]->name, name))
            return programs[i];
    return NULL;
}

const plc_compat_program *plc_compat_program_next(const plc_compat_program *prev)
{
    if (!prev)
        return programs[0];
    for (size_t i = 0; i + 1 < NPROGRAMS; i++)
        if (programs[i] == prev)
            return programs[i + 1];
    return NULL;
}

const plc_compat_program *plc_compat_program_with(unsigned field)
{
    for (size_t i = 0; i < NPROGRAMS; i++)
        if (programs[i]->fields & field)
            return programs[i];
    return NULL;
}

const plc_compat_program *plc_compat_program_of_key_hash(int key_hash,
                                                         const plc_compat_hash_entry **entry)
{
    for (size_t i = 0; i < NPROGRAMS; i++) {
        const plc_compat_program *p = programs[i];
        for (size_t h = 0; p->key_hash_base && h < p->nhashes; h++)
            if (p->key_hash_base + p->hashes[h].id == key_hash) {
                if (entry)
                    *entry = &p->hashes[h];
                return p;
            }
    }
    return NULL;
}

const plc_compat_distribution *plc_compat_program_distribution(const plc_compat_program *p,
                                                               int id)
{
    if (!p)
        return NULL;
    if (id == PLC_CD_DEFAULT)
        return &p->distributions[0];
    for (size_t i = 0; i < p->ndistributions; i++)
        if (p->distributions[i].name && p->distributions[i].id == id)
            return &p->distributions[i];
    return NULL;
}

int plc_compat_program_hash_id(const plc_compat_program *p, const char *name)
{
    for (size_t i = 0; p && name && i < p->nhashes; i++)
        if (!strcmp(p->hashes[i].name, name))
            return p->hashes[i].id;
    return 0;
}

const char *plc_compat_program_hash_name(const plc_compat_program *p, int id)
{
    for (size_t i = 0; p && i < p->nhashes; i++)
        if (p->hashes[i].id == id)
            return p->hashes[i].name;
    return NULL;
}

int plc_compat_program_param(const plc_compat_program *p, const char *name)
{
    for (size_t i = 0; p && name && i < p->nparams; i++)
        if (!strcmp(p->params[i].name, name))
            return (int)i;
    return -1;
}
