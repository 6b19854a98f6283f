/*
 * peer_urcu_body.h -- the router's pattern on one of liburcu's flavours,
 * to measure what urcu-bp's self-registration costs (see peer_sync.h).
 * Include after the flavour's header with URCU(x) naming its functions
 * (urcu_memb_##x, urcu_qsbr_##x) and PEER_NAME the sync_ops to define. The
 * writer swaps the pointer and waits for a grace period before freeing.
 */
#include <stdatomic.h>
#include <stdlib.h>

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
    URCU(synchronize_rcu)();
    placer_snapshot_free(old);
    return 0;
}

static int lookup(void *hp, const void *key, size_t len)
{
    holder *h = hp;
    URCU(read_lock)();
    int owner = placer_lookup(atomic_load_explicit(&h->s, memory_order_acquire), key, len);
    URCU(read_unlock)();
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
    URCU(register_thread)();
}

static void quiescent(void)
{
    URCU(quiescent_state)();
}

static void end(void)
{
    URCU(unregister_thread)();
}

const sync_ops PEER_NAME = {PEER_LABEL, create, publish, lookup, destroy, start, quiescent, end};
