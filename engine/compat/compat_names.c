/*
 * compat_names.c -- the names membership files and the command use for
 * compatibility programs, distributions and key hashes. A distribution has
 * one name whichever program takes it; the programs' names and their key
 * hashes' (each program's own spelling) are their ops' (compat_program.h,
 * compat_registry.c).
 */
#include <string.h>

#include "compat_program.h"

typedef struct name_id {
    const char *name;
    int id;
} name_id;

static int find(const name_id *t, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return t[i].id;
    return 0;
}

static const char *name_of(const name_id *t, size_t n, int id)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].id == id)
            return t[i].name;
    return NULL;
}

#define COUNT(t) (sizeof(t) / sizeof((t)[0]))

static const name_id distributions[] = {
    {"ketama_weighted", PLC_CD_KETAMA_WEIGHTED}, {"ketama", PLC_CD_KETAMA},
    {"modula", PLC_CD_MODULA},                   {"consistent", PLC_CD_CONSISTENT},
    {"hash", PLC_CD_HASH},                       {"map-based", PLC_CD_MAP_BASED},
    {"rendezvous", PLC_CD_RENDEZVOUS},
};

int plc_compat_program_id(const char *name)
{
    const plc_compat_program *p = plc_compat_program_find(name);
    return p ? p->id : 0;
}

const char *plc_compat_program_name(int id)
{
    const plc_compat_program *p = plc_compat_program_get(id);
    return p ? p->name : NULL;
}

int plc_compat_distribution_id(const char *name)
{
    return find(distributions, COUNT(distributions), name);
}

const char *plc_compat_distribution_name(int id)
{
    return name_of(distributions, COUNT(distributions), id);
}

/* Each program's own spelling, from its ops (compat_program.h). */
int plc_compat_hash_id(int program, const char *name)
{
    return plc_compat_program_hash_id(plc_compat_program_get(program), name);
}

const char *plc_compat_hash_name(int program, int id)
{
    return plc_compat_program_hash_name(plc_compat_program_get(program), id);
}
