/*
 * bench_router.c -- the router beside its peers, on the seed ring (120
 * nodes x 256 tokens) and the same 32-byte keys:
 *   router/bare_snapshot                 placer_lookup, no sharing at all
 *   router/<sync>/writer_<0|1000>        lookups through each way of
 *                                        sharing the snapshot (peer_sync.h)
 *                                        while a writer thread publishes a
 *                                        freshly built snapshot 0 or 1,000
 *                                        times a second
 *   router/placer_router/writer_1000_differing  the same, each snapshot
 *                                        the seed ring less one node (a
 *                                        different one each time): its
 *                                        lines differ from the last one's,
 *                                        so readers pay for cold lines
 *   router/placer_router/build_only_1000 the same writer thread building and
 *                                        freeing snapshots at 1,000/s without
 *                                        publishing: what the writer's work
 *                                        costs the readers by itself, so that
 *                                        writer_1000 against it isolates the
 *                                        cost of publication
 *   .../threads:2                        two reader threads (items add up)
 *   router/publish_to_reclaim            time from placer_router_publish
 *                                        until the replaced snapshot is freed
 *   router/batch_256/{router,bare}       placer_router_lookup_batch against
 *                                        placer_lookup_batch on the same
 *                                        snapshot, 256 keys a call, no writer:
 *                                        the read-side section's cost per batch
 */
#define PLACER_STATIC_LINKING_ONLY
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "benches.h"
#include "fixtures.h"
#include "peer_sync.h"
#include "shim.h"

#define BATCH 8192u

/* A writer thread publishing a new epoch every `period_ns`. */
typedef struct writer {
    const sync_ops *ops;
    void *h;
    int publish; /* 0: build and free only */
    int differ;  /* each snapshot the seed ring less one node, in turn */
    long period_ns;
    atomic_int stop;
    long published;
    pthread_t thread;
} writer;

static void *writer_main(void *p)
{
    writer *w = p;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    uint64_t epoch = 2;
    while (!atomic_load(&w->stop)) {
        next.tv_nsec += w->period_ns;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        placer_snapshot *snap =
            bench_seed_ring_less(epoch, w->differ ? (unsigned)(epoch % 120) : 120);
        epoch++;
        if (!w->publish)
            placer_snapshot_free(snap);
        else if (w->ops->publish(w->h, snap) == 0)
            w->published++;
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    return NULL;
}

typedef struct router_case {
    const sync_ops *ops; /* NULL: bare snapshot */
    int rate;            /* snapshots built (and published) per second */
    int publish;         /* 0: the writer builds and frees only */
    int differ;          /* the writer's snapshots differ from each other */
} router_case;

/* Shared between the reader threads of one run; set up by thread 0 before
 * Google Benchmark's start barrier, torn down by it after the end barrier. */
static void *shared_handle;
static placer_snapshot *bare;
static writer shared_writer;

static void bench_router(plc_bench *b, const void *arg)
{
    const router_case *c = arg;
    const ring_fixture *f = bench_fixture(1);
    if (plc_bench_thread_index(b) == 0) {
        if (c->ops) {
            shared_handle = c->ops->create(bench_seed_ring(1));
            if (c->rate) {
                shared_writer =
                    (writer){c->ops, shared_handle, c->publish, c->differ,
                             1000000000L / c->rate, 0, 0, 0};
                pthread_create(&shared_writer.thread, NULL, writer_main, &shared_writer);
            }
        } else {
            bare = bench_seed_ring(1);
        }
    }
    if (c->ops)
        c->ops->reader_start();
    uint64_t acc = 0;
    uint32_t at = (uint32_t)plc_bench_thread_index(b) * 4096u;
    while (plc_bench_keep_running(b, BATCH)) {
        for (uint32_t i = 0; i < BATCH; i++, at = (at + 1) & (BENCH_KEYS - 1))
            acc += (uint64_t)(c->ops ? c->ops->lookup(shared_handle, f->key_ptrs[at], BENCH_KEY_LEN)
                                     : placer_lookup(bare, f->key_ptrs[at], BENCH_KEY_LEN));
        if (c->ops)
            c->ops->reader_quiescent();
    }
    if (c->ops)
        c->ops->reader_end();
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    if (plc_bench_thread_index(b) == 0) {
        if (c->ops && c->rate) {
            atomic_store(&shared_writer.stop, 1);
            pthread_join(shared_writer.thread, NULL);
            plc_bench_counter(b, "publishes_per_s", (double)shared_writer.published, 1);
        }
        if (c->ops)
            c->ops->destroy(shared_handle);
        else
            placer_snapshot_free(bare);
    }
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Publish, then wait for the replaced snapshot's grace period and free. */
static void bench_reclaim(plc_bench *b, const void *arg)
{
    (void)arg;
    placer_router *r = placer_router_new(bench_seed_ring(1));
    uint64_t epoch = 2, done = 0;
    double total = 0;
    while (plc_bench_keep_running(b, 1)) {
        plc_bench_pause(b);
        placer_snapshot *next = bench_seed_ring(epoch++);
        plc_bench_resume(b);
        double t0 = now_ns();
        placer_router_publish(r, next);
        while (placer_router_reclaimed(r) <= done)
            sched_yield();
        total += now_ns() - t0;
        done++;
    }
    plc_bench_counter(b, "reclaim_us", total / (double)(done ? done : 1) / 1e3, 0);
    placer_router_free(r);
}

/* 256 keys a call through the router (arg non-NULL) or on the bare snapshot. */
static void bench_batch(plc_bench *b, const void *arg)
{
    enum { N = 256 };
    const ring_fixture *f = bench_fixture(1);
    placer_snapshot *s = bench_seed_ring(1);
    placer_router *r = arg ? placer_router_new(s) : NULL;
    uint32_t out[N];
    uint64_t acc = 0, epoch = 0;
    while (plc_bench_keep_running(b, BENCH_KEYS)) {
        for (uint32_t at = 0; at < BENCH_KEYS; at += N) {
            if (r)
                placer_router_lookup_batch(r, f->key_ptrs + at, f->key_lens + at, N, out, &epoch);
            else
                placer_lookup_batch(s, f->key_ptrs + at, f->key_lens + at, N, out);
            acc += out[at & (N - 1)] + epoch;
        }
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    if (r)
        placer_router_free(r); /* frees s */
    else
        placer_snapshot_free(s);
}

void register_router_benches(void)
{
    static const sync_ops *const all[] = {&sync_placer_router, &sync_urcu_memb, &sync_urcu_qsbr,
                                          &sync_rwlock, &sync_mutex_refcount};
    static router_case cases[16];
    static char names[16][64];
    int n = 0;
    cases[n] = (router_case){NULL, 0, 0, 0};
    plc_bench_register("router/bare_snapshot", bench_router, &cases[n++]);
    cases[n] = (router_case){&sync_placer_router, 1000, 0, 0};
    plc_bench_register_threads("router/placer_router/build_only_1000", bench_router, &cases[n++], 1);
    cases[n] = (router_case){&sync_placer_router, 1000, 1, 1};
    plc_bench_register_threads("router/placer_router/writer_1000_differing", bench_router,
                               &cases[n++], 1);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        for (int rate = 0; rate <= 1000; rate += 1000) {
            cases[n] = (router_case){all[i], rate, 1, 0};
            snprintf(names[n], sizeof names[n], "router/%s/writer_%d", all[i]->name, rate);
            plc_bench_register_threads(names[n], bench_router, &cases[n], 1);
            if (rate == 0 && (all[i] == &sync_placer_router || all[i] == &sync_rwlock ||
                              all[i] == &sync_mutex_refcount))
                plc_bench_register_threads(names[n], bench_router, &cases[n], 2);
            n++;
        }
    plc_bench_register("router/publish_to_reclaim", bench_reclaim, NULL);
    plc_bench_register("router/batch_256/router", bench_batch, "router");
    plc_bench_register("router/batch_256/bare", bench_batch, NULL);
}
