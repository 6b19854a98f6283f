/*
 * etcd_follow.c -- a follower thread: read the snapshot under a key, watch
 * the key from the next revision, and publish every good new snapshot into
 * a router.
 *
 * Every candidate is loaded at its own revision, checked (manifest, chunk
 * lengths, CRC-32C, the full decode, the epoch), and offered to the router,
 * which refuses epochs that are not newer: a bad, partial or older
 * snapshot is counted and reported, and the router keeps serving its last
 * good one. A compacted watch restarts from a fresh read; a broken stream
 * reconnects to the next member from the last revision seen, backing off
 * while none answers.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "control_alloc.h"
#include "etcd_snapshots.h"

struct placer_follower {
    plc_etcd *e;
    char *key;
    _Atomic(placer_router *) router;
    int own_router;
    placer_follower_event_fn on_event;
    void *ctx;
    atomic_int stop;
    pthread_t thread;
    int64_t revision; /* last revision seen */
    int fresh;        /* start over with a read */
    pthread_mutex_t lock; /* guards status */
    placer_follower_status status;
    double since; /* monotonic seconds of the last accept (or start) */
    uint64_t messages; /* watch messages received (the follower thread's own) */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void note_error(placer_follower *f, const char *what, int rejected)
{
    pthread_mutex_lock(&f->lock);
    size_t n = strlen(what) < sizeof f->status.last_error - 1 ? strlen(what) : sizeof f->status.last_error - 1;
    memcpy(f->status.last_error, what, n); /* cut to fit */
    f->status.last_error[n] = '\0';
    f->status.rejected += (uint64_t)rejected;
    pthread_mutex_unlock(&f->lock);
}

/* Offer a loaded snapshot (or a load error) to the router. */
static void offer(placer_follower *f, int err, placer_snapshot *s, const char *why)
{
    char reason[300];
    uint64_t epoch = s ? placer_snapshot_epoch(s) : 0;
    if (err) {
        snprintf(reason, sizeof reason, "%s%s%s", placer_strerror(err), *why ? ": " : "", why);
        note_error(f, reason, 1);
        if (f->on_event)
            f->on_event(f->ctx, 0, 0, reason);
        return;
    }
    placer_router *r = atomic_load(&f->router);
    if (!r) {
        r = placer_router_new(s);
        err = r ? 0 : PLACER_ENOMEM;
        if (r)
            atomic_store(&f->router, r);
    } else {
        uint64_t current = placer_router_epoch(r);
        err = placer_router_publish(r, s); /* takes s either way */
        if (err == PLACER_ESTALE)
            snprintf(reason, sizeof reason, "epoch %llu is not newer than the %llu served",
                     (unsigned long long)epoch, (unsigned long long)current);
    }
    if (err) {
        if (err != PLACER_ESTALE)
            snprintf(reason, sizeof reason, "%s", placer_strerror(err));
        note_error(f, reason, 1);
    } else {
        pthread_mutex_lock(&f->lock);
        f->status.epoch = epoch;
        f->status.accepted++;
        f->since = now_s();
        pthread_mutex_unlock(&f->lock);
    }
    if (f->on_event)
        f->on_event(f->ctx, epoch, !err, err ? reason : "");
}

static void load_value(placer_follower *f, const json_t *kv, int64_t revision)
{
    unsigned char *v = NULL;
    size_t len;
    placer_snapshot *s = NULL;
    char why[256] = "";
    int err = plc_etcd_unb64(json_object_get(kv, "value"), &v, &len) ? PLACER_EFORMAT
                                                                     : plc_etcd_load(f->e, f->key, v, len, revision, &s, why, sizeof why);
    placer_mem_free(v);
    if (atomic_load(&f->stop)) { /* cut short by placer_follower_stop: nothing to report */
        if (!err)
            placer_snapshot_free(s);
        return;
    }
    if (err == PLACER_EUNAVAIL || err == PLACER_ECOMPACTED || err == PLACER_EAUTH) {
        note_error(f, why, 0); /* not the snapshot's fault: read again later */
        f->fresh = 1;
        return;
    }
    offer(f, err, err ? NULL : s, why);
}

/* A fresh read: the current value and the revision to watch from. */
static int read_current(placer_follower *f)
{
    json_t *resp = NULL;
    const json_t *kv = NULL;
    char why[256] = "";
    int err = plc_etcd_get(f->e, f->key, 0, &resp, &kv, why, sizeof why);
    if (err) {
        note_error(f, why, 0);
        return err;
    }
    int64_t rev = plc_etcd_int(json_object_get(json_object_get(resp, "header"), "revision"));
    if (kv)
        load_value(f, kv, rev);
    else
        note_error(f, "nothing published under the key yet", 0);
    f->revision = rev;
    json_decref(resp);
    return 0;
}

static int on_message(void *ctx, json_t *msg)
{
    placer_follower *f = ctx;
    f->messages++;
    const json_t *result = json_object_get(msg, "result");
    if (!result) {
        note_error(f, "watch: a message without a result", 0);
        return 1;
    }
    if (plc_etcd_int(json_object_get(result, "compact_revision")) > 0 ||
        json_is_true(json_object_get(result, "canceled"))) {
        note_error(f, "watch: compacted or canceled; reading again", 0);
        pthread_mutex_lock(&f->lock);
        f->status.resyncs++;
        pthread_mutex_unlock(&f->lock);
        f->fresh = 1;
        return 1;
    }
    size_t i;
    const json_t *ev;
    json_array_foreach(json_object_get(result, "events"), i, ev) {
        const json_t *kv = json_object_get(ev, "kv");
        int64_t rev = plc_etcd_int(json_object_get(kv, "mod_revision"));
        if (rev > f->revision)
            f->revision = rev;
        if (json_is_string(json_object_get(ev, "type"))) /* DELETE (PUT is 0: left out) */
            note_error(f, "the key was deleted; serving the last snapshot", 0);
        else
            load_value(f, kv, rev);
        if (f->fresh)
            return 1;
    }
    int64_t head = plc_etcd_int(json_object_get(json_object_get(result, "header"), "revision"));
    if (head > f->revision && !json_array_size(json_object_get(result, "events")))
        f->revision = head;
    return atomic_load(&f->stop);
}

static void nap(placer_follower *f, long ms)
{
    for (long t = 0; t < ms && !atomic_load(&f->stop); t += 10) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

static void *run(void *arg)
{
    placer_follower *f = arg;
    long backoff = 50;
    f->fresh = 1;
    while (!atomic_load(&f->stop)) {
        if (f->fresh) {
            if (read_current(f)) {
                nap(f, backoff);
                backoff = backoff * 2 > 2000 ? 2000 : backoff * 2;
                continue;
            }
            f->fresh = 0;
        }
        pthread_mutex_lock(&f->lock);
        f->status.watching = 1;
        pthread_mutex_unlock(&f->lock);
        char why[256] = "";
        uint64_t before = f->messages;
        int err = plc_etcd_watch(f->e, f->key, f->revision + 1, on_message, f, &f->stop, why,
                                 sizeof why);
        pthread_mutex_lock(&f->lock);
        f->status.watching = 0;
        pthread_mutex_unlock(&f->lock);
        if (err == PLACER_EUNAVAIL && f->messages > before && !atomic_load(&f->stop)) {
            /* The stream answered, then went quiet long enough for the
             * client's silence limit (an idle key) or was closed: reopen it
             * at once (on the next member) without calling that an error. */
            backoff = 50;
        } else if (err && !atomic_load(&f->stop)) {
            note_error(f, why, 0);
            nap(f, backoff);
            backoff = backoff * 2 > 2000 ? 2000 : backoff * 2;
        } else {
            backoff = 50;
        }
    }
    return NULL;
}

/* Start a follower on client e (taken, freed on failure). */
static int start(plc_etcd *e, const char *key, placer_router *r, placer_follower_event_fn on_event,
                 void *ctx, placer_follower **out)
{
    placer_follower *f = placer_mem_calloc(1, sizeof *f);
    char *k = plc_ctl_strdup(key);
    if (!f || !k) {
        plc_etcd_free(e);
        placer_mem_free(f);
        placer_mem_free(k);
        return PLACER_ENOMEM;
    }
    f->e = e;
    f->key = k;
    atomic_init(&f->router, r);
    f->own_router = r == NULL;
    f->on_event = on_event;
    f->ctx = ctx;
    atomic_init(&f->stop, 0);
    /* every call of the thread's looks at the flag at least every 50 ms,
     * inside transfers and between chunks: stop waits that long, not for a
     * slow member */
    plc_etcd_set_stop(e, &f->stop);
    pthread_mutex_init(&f->lock, NULL);
    f->since = now_s();
    if (pthread_create(&f->thread, NULL, run, f)) {
        pthread_mutex_destroy(&f->lock);
        plc_etcd_free(f->e);
        placer_mem_free(f->key);
        placer_mem_free(f);
        return PLACER_ENOMEM;
    }
    *out = f;
    return 0;
}

int placer_follower_start(const char *endpoints, const char *key, placer_router *r,
                          placer_follower_event_fn on_event, void *ctx, placer_follower **out)
{
    if (!endpoints || !key || !*key || !out)
        return PLACER_ENULL;
    plc_etcd *e;
    int err = plc_etcd_new(endpoints, 1000, &e); /* the thread retries; stop waits at most this */
    return err ? err : start(e, key, r, on_event, ctx, out);
}

int placer_follower_start_ex(const placer_etcd_config *c, const char *key, placer_router *r,
                             placer_follower_event_fn on_event, void *ctx, placer_follower **out)
{
    if (!c || !key || !*key || !out)
        return PLACER_ENULL;
    plc_etcd *e;
    int err = plc_etcd_new_config(c, 1000, &e); /* the thread retries; stop waits at most this */
    return err ? err : start(e, key, r, on_event, ctx, out);
}

void placer_follower_stop(placer_follower *f)
{
    if (!f)
        return;
    atomic_store(&f->stop, 1);
    pthread_join(f->thread, NULL);
    if (f->own_router)
        placer_router_free(atomic_load(&f->router));
    pthread_mutex_destroy(&f->lock);
    plc_etcd_free(f->e);
    placer_mem_free(f->key);
    placer_mem_free(f);
}

placer_router *placer_follower_router(placer_follower *f)
{
    return f ? atomic_load(&f->router) : NULL;
}

int placer_follower_status_get(placer_follower *f, placer_follower_status *st)
{
    if (!f || !st)
        return PLACER_ENULL;
    if (st->size < sizeof *st) /* the first version's size: see placer_control.h */
        return PLACER_EINVAL;
    size_t size = st->size;
    pthread_mutex_lock(&f->lock);
    *st = f->status;
    st->size = size;
    st->age_seconds = now_s() - f->since;
    pthread_mutex_unlock(&f->lock);
    return 0;
}
