/*
 * peer_sync.h -- ways to share "the current snapshot" between readers and
 * a writer, behind one interface, so the router's benchmark can run the
 * same lookups and the same writer through each of them:
 *   placer_router   placer's RCU router (liburcu-bp)
 *   urcu_memb       the same pattern on liburcu's memb flavour (readers
 *                   must register; writer waits with synchronize_rcu)
 *   urcu_qsbr       on the qsbr flavour (readers register and announce
 *                   quiescent states)
 *   rwlock          a pthread_rwlock_t around the pointer
 *   mutex_refcount  a mutex-guarded reference count per snapshot
 */
#ifndef PLACER_BENCH_PEER_SYNC_H
#define PLACER_BENCH_PEER_SYNC_H

#include <stddef.h>

#include "placer.h"

typedef struct sync_ops {
    const char *name;
    void *(*create)(placer_snapshot *initial);
    int (*publish)(void *h, placer_snapshot *next); /* takes ownership */
    int (*lookup)(void *h, const void *key, size_t len);
    void (*destroy)(void *h);
    void (*reader_start)(void);     /* per reader thread, before its first lookup */
    void (*reader_quiescent)(void); /* per reader thread, now and then (qsbr) */
    void (*reader_end)(void);
} sync_ops;

extern const sync_ops sync_placer_router, sync_urcu_memb, sync_urcu_qsbr, sync_rwlock,
    sync_mutex_refcount;

#endif
