/*
 * peer_urcu_memb.c -- the router's pattern on liburcu's memb flavour,
 * to measure what urcu-bp's self-registration costs (see peer_sync.h).
 * The writer swaps the pointer and waits for a grace period before freeing.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <urcu/urcu-memb.h>

#include "peer_sync.h"

typedef struct holder {
    _Atomic(placer_snapshot *) s;
} holder;

static void *create(placer_snapshot *s)
{
    holder *h = malloc(sizeof *h);
    atomic_init(&h->s, s);
    return h;
}

static int publish(void *hp, placer_snapshot *next)
{
    holder *h = hp;
    placer_snapshot *old = atomic_exchange_explicit(&h->s, next, memory_order_acq_rel);
    urcu_memb_synchronize_rcu();
    placer_snapshot_free(old);
    return 0;
}

static int lookup(void *hp, const void *key, size_t len)
{
    holder *h = hp;
    urcu_memb_read_lock();
    int owner = placer_lookup(atomic_load_explicit(&h->s, memory_order_acquire), key, len);
    urcu_memb_read_unlock();
    return owner;
}

static void destroy(void *hp)
{
    holder *h = hp;
    placer_snapshot_free(atomic_load(&h->s));
    free(h);
}

static void start(void)
{
    urcu_memb_register_thread();
}

static void quiescent(void)
{
    urcu_memb_quiescent_state();
}

static void end(void)
{
    urcu_memb_unregister_thread();
}

const sync_ops sync_urcu_memb = {"urcu_memb", create, publish, lookup, destroy,
                                   start, quiescent, end};
