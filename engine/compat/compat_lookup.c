/*
 * compat_lookup.c -- a key's hash as each compatible program computes it
 * (its ops' key_hash: hash tags, single-server and empty-key rules,
 * avalanche), through the registry. The plain search of a layout,
 * plc_compat_slot, is compat_layout_kit.c's (the programs' own files call
 * it, and must not reach the registry that lists them).
 */
#include <string.h>

#include "compat_program.h"

uint32_t plc_compat_key_hash(const plc_compat_layout *l, const void *key, size_t len)
{
    const plc_compat_program *p = plc_compat_program_get(l->program);
    return p ? p->key_hash(l, key, len) : 0;
}
