/*
 * import_set.h -- the hash set the configuration importers check
 * duplicates and find free ids with, so that an import is linear in the
 * number of servers: byte strings (any bytes, NULs included) each with a
 * value, open addressing, keyed SipHash (a key drawn per set, so a file
 * cannot be written to collide), the table doubled at half full. Every
 * probe (a slot looked at) is counted in *work when work is not NULL: the
 * importers' step-count tests read it, not a timer.
 */
#ifndef PLC_CONTROL_IMPORT_SET_H
#define PLC_CONTROL_IMPORT_SET_H

#include <stddef.h>
#include <stdint.h>

typedef struct plc_set_slot {
    char *key;  /* NULL: empty */
    size_t len;
    uint64_t hash;
    size_t value;
} plc_set_slot;

typedef struct plc_set {
    plc_set_slot *slots;
    size_t cap, n;
    unsigned char secret[16];
    uint64_t *work;
} plc_set;

/* An empty set counting its probes in *work (may be NULL). Returns 0 or
 * PLACER_ENOMEM. */
int plc_set_init(plc_set *s, uint64_t *work);
void plc_set_free(plc_set *s);

/* The value of key, or NULL when it is not in the set. */
size_t *plc_set_find(plc_set *s, const void *key, size_t len);

/* Add key with value: 0, 1 when it was there already (its value kept), or
 * PLACER_ENOMEM. */
int plc_set_add(plc_set *s, const void *key, size_t len, size_t value);

#endif
