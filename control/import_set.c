/* import_set.c -- see import_set.h. */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "control_alloc.h"
#include "import_set.h"
#include "placer_control.h"

#define FIRST_CAP 64

int plc_set_init(plc_set *s, uint64_t *work)
{
    memset(s, 0, sizeof *s);
    s->work = work;
    /* a fresh key makes collisions unguessable; without getrandom the
     * clock and the set's address still vary it */
    if (getrandom(s->secret, sizeof s->secret, GRND_NONBLOCK) != (ssize_t)sizeof s->secret) {
        uint64_t t = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)s;
        memcpy(s->secret, &t, sizeof t);
    }
    s->slots = placer_mem_calloc(FIRST_CAP, sizeof *s->slots);
    s->cap = FIRST_CAP;
    return s->slots ? 0 : PLACER_ENOMEM;
}

void plc_set_free(plc_set *s)
{
    for (size_t i = 0; s->slots && i < s->cap; i++)
        placer_mem_free(s->slots[i].key);
    placer_mem_free(s->slots);
    s->slots = NULL;
}

/* The slot holding key, or the empty one where it would go. */
static plc_set_slot *slot_of(plc_set *s, const void *key, size_t len, uint64_t h)
{
    size_t mask = s->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        if (s->work)
            (*s->work)++;
        plc_set_slot *e = &s->slots[i];
        if (!e->key || (e->hash == h && e->len == len && !memcmp(e->key, key, len)))
            return e;
    }
}

size_t *plc_set_find(plc_set *s, const void *key, size_t len)
{
    plc_set_slot *e = slot_of(s, key, len, placer_siphash13(s->secret, key, len));
    return e->key ? &e->value : NULL;
}

static int grow(plc_set *s)
{
    plc_set_slot *old = s->slots;
    size_t old_cap = s->cap;
    plc_set_slot *slots = placer_mem_calloc(old_cap * 2, sizeof *slots);
    if (!slots)
        return PLACER_ENOMEM;
    s->slots = slots;
    s->cap = old_cap * 2;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key)
            *slot_of(s, old[i].key, old[i].len, old[i].hash) = old[i];
    placer_mem_free(old);
    return 0;
}

int plc_set_add(plc_set *s, const void *key, size_t len, size_t value)
{
    uint64_t h = placer_siphash13(s->secret, key, len);
    plc_set_slot *e = slot_of(s, key, len, h);
    if (e->key)
        return 1;
    char *copy = placer_mem_alloc(len + 1);
    if (!copy)
        return PLACER_ENOMEM;
    memcpy(copy, key, len);
    copy[len] = '\0';
    *e = (plc_set_slot){copy, len, h, value};
    s->n++;
    return s->n * 2 > s->cap ? grow(s) : 0;
}
