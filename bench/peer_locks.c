/*
 * peer_locks.c -- the snapshot pointer behind locks, as the router's peers
 * (see peer_sync.h), and placer's own router behind the same interface.
 */
#include <pthread.h>
#include <stdlib.h>

#include "peer_sync.h"

static void nothing(void)
{
}

/* placer_router */
static void *router_create(placer_snapshot *s)
{
    return placer_router_new(s);
}
static int router_publish(void *h, placer_snapshot *next)
{
    return placer_router_publish(h, next);
}
static int router_lookup(void *h, const void *key, size_t len)
{
    return placer_router_lookup(h, key, len, NULL);
}
static void router_destroy(void *h)
{
    placer_router_free(h);
}
const sync_ops sync_placer_router = {"placer_router", router_create, router_publish, router_lookup,
                                     router_destroy, nothing, nothing, nothing};

/* rwlock: readers share the lock for the lookup; the writer swaps under the
 * write lock and frees the old snapshot, which no reader can hold then. */
typedef struct rw {
    pthread_rwlock_t lock;
    placer_snapshot *s;
} rw;
static void *rw_create(placer_snapshot *s)
{
    rw *r = malloc(sizeof *r);
    pthread_rwlock_init(&r->lock, NULL);
    r->s = s;
    return r;
}
static int rw_publish(void *h, placer_snapshot *next)
{
    rw *r = h;
    pthread_rwlock_wrlock(&r->lock);
    placer_snapshot *old = r->s;
    r->s = next;
    pthread_rwlock_unlock(&r->lock);
    placer_snapshot_free(old);
    return 0;
}
static int rw_lookup(void *h, const void *key, size_t len)
{
    rw *r = h;
    pthread_rwlock_rdlock(&r->lock);
    int owner = placer_lookup(r->s, key, len);
    pthread_rwlock_unlock(&r->lock);
    return owner;
}
static void rw_destroy(void *h)
{
    rw *r = h;
    placer_snapshot_free(r->s);
    pthread_rwlock_destroy(&r->lock);
    free(r);
}
const sync_ops sync_rwlock = {"rwlock", rw_create, rw_publish, rw_lookup, rw_destroy,
                              nothing, nothing, nothing};

/* mutex_refcount: a reader takes a reference under the mutex, looks up
 * without it, drops the reference under it; the last one out of a replaced
 * snapshot frees it. */
typedef struct counted {
    placer_snapshot *s;
    long refs;
    int retired;
} counted;
typedef struct rc {
    pthread_mutex_t lock;
    counted *cur;
} rc;
static counted *counted_new(placer_snapshot *s)
{
    counted *c = malloc(sizeof *c);
    *c = (counted){s, 0, 0};
    return c;
}
static void *rc_create(placer_snapshot *s)
{
    rc *r = malloc(sizeof *r);
    pthread_mutex_init(&r->lock, NULL);
    r->cur = counted_new(s);
    return r;
}
static int rc_publish(void *h, placer_snapshot *next)
{
    rc *r = h;
    counted *c = counted_new(next), *dead = NULL;
    pthread_mutex_lock(&r->lock);
    counted *old = r->cur;
    r->cur = c;
    old->retired = 1;
    if (old->refs == 0)
        dead = old;
    pthread_mutex_unlock(&r->lock);
    if (dead) {
        placer_snapshot_free(dead->s);
        free(dead);
    }
    return 0;
}
static int rc_lookup(void *h, const void *key, size_t len)
{
    rc *r = h;
    pthread_mutex_lock(&r->lock);
    counted *c = r->cur;
    c->refs++;
    pthread_mutex_unlock(&r->lock);
    int owner = placer_lookup(c->s, key, len);
    pthread_mutex_lock(&r->lock);
    int last = --c->refs == 0 && c->retired;
    pthread_mutex_unlock(&r->lock);
    if (last) {
        placer_snapshot_free(c->s);
        free(c);
    }
    return owner;
}
static void rc_destroy(void *h)
{
    rc *r = h;
    placer_snapshot_free(r->cur->s);
    free(r->cur);
    pthread_mutex_destroy(&r->lock);
    free(r);
}
const sync_ops sync_mutex_refcount = {"mutex_refcount", rc_create, rc_publish, rc_lookup,
                                      rc_destroy, nothing, nothing, nothing};
