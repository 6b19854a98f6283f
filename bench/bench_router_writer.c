/*
 * bench_router_writer.c -- what a reader of the router pays while a writer
 * publishes rings that differ, against placer_lookup on a fixed snapshot in
 * the same process. The seed ring (120 nodes x 256 tokens, 3 zones) and
 * 262,144 distinct 32-byte keys ("sess::%026zu" of i * 2654435761, 8 MiB:
 * they stream), the writer thread publishing the seed ring less one node
 * (a different one each time, as after a departure) every millisecond:
 *   router/placer_router/writer_1000_differing_vs_lookup/single
 *   router/placer_router/writer_1000_differing_vs_lookup/dependent
 *       passes over the keys through placer_router_lookup (the writer
 *       publishing) and through placer_lookup on a seed ring no one
 *       replaces, alternating (the order swapped each pair), the reader's
 *       CPU time of each pass, so the writer's own work is not counted
 *       when it shares the reader's CPU; the writer runs through both
 *       passes, so what it does to the caches falls on both. The writer
 *       runs on another CPU when the process may use two, and under
 *       SCHED_FIFO when it may: a decode and publish take 0.3-0.6 ms of
 *       the writer's CPU, and a writer of ordinary priority on a busy
 *       machine woke late and made 270-450 publishes a second. One key a
 *       call, none waiting for an answer (single), or each key chosen by
 *       the previous answer (dependent). Counters: router_over_lookup, the
 *       median of the pairs' ratios; publishes_per_s (the writer never
 *       publishes more than once a period, and skips one while more
 *       than MAX_WAITING replaced snapshots wait to be freed:
 *       writer_skipped); writer_cpu_us_per_publish; writer_on_other_cpu
 *       and writer_realtime (1 or 0). A writer on the reader's own CPU
 *       decodes each ring into that CPU's caches, where the fixed
 *       snapshot is evicted: there the router pass came out faster than
 *       placer_lookup's (0.8x), so bench/RESULTS.md's rows run on two
 *       CPUs.
 *   router/placer_router/after_publish_differing
 *       the cold cost of a new snapshot: a builder thread builds the next
 *       differing ring (on another CPU when the process may use one; never
 *       during a timed pass) and a pass later the reader publishes it,
 *       then looks up the stream's keys through the router in chunks of
 *       256, one key a call, timing each chunk. Rounds alternate with
 *       rounds that free the ring built instead (the same builder's work
 *       and the same caches, nothing published). Counters, medians over
 *       the rounds: first_256_ns (_kept: without the publish), the first
 *       chunk of a pass, and steady_256_ns, the median of the pass's other
 *       chunks (ns a key, with the clock's own cost in each chunk);
 *       head_extra_us (_kept), what the pass's first 16 chunks took beyond
 *       16 steady chunks; extra_us_per_publish, head_extra_us less
 *       head_extra_us_kept: what a publish costs the reader.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, pthread_setaffinity_np */
#endif
#define PLACER_STATIC_LINKING_ONLY
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benches.h"
#include "fixtures.h"
#include "shim.h"
#include "snapshot_internal.h" /* the epoch of a decoded snapshot */

#define KEYS 262144u
#define CHUNK 256u
#define HEAD 16u /* chunks counted as the head of a pass after a publish */
#define MAX_PAIRS 4096u
#define MAX_ROUNDS 1024u

static const void **key_ptrs;

static void keys_make(void)
{
    if (key_ptrs)
        return;
    unsigned char *bytes = malloc((size_t)KEYS * 32);
    key_ptrs = malloc((size_t)KEYS * sizeof *key_ptrs);
    char buf[40];
    for (size_t i = 0; i < KEYS; i++) {
        snprintf(buf, sizeof buf, "sess::%026zu", (size_t)(i * 2654435761u));
        memcpy(bytes + 32 * i, buf, 32);
        key_ptrs[i] = bytes + 32 * i;
    }
}

/* The writer: every period_ns the seed ring less one node, published. A
 * build of the ring takes longer than a millisecond on a shared CPU, so
 * the writer decodes instead, as a follower does with the snapshots it is
 * sent: the encodings of the ring less node 0, 1, ... NRING - 1, taken in
 * turn (each differs from the last), each given the next epoch. */
#define NRING 8
/* Replaced snapshots not yet freed beyond which the writer skips a period. */
#define MAX_WAITING 128
typedef struct writer {
    placer_router *r;
    long period_ns;
    atomic_int stop;
    long published;
    long skipped;   /* periods without a publish: too many snapshots waiting */
    double busy_ns; /* the writer's CPU time decoding and publishing */
    int realtime;   /* the writer runs under SCHED_FIFO */
    pthread_t thread;
    void *enc[NRING];
    size_t enc_len[NRING];
} writer;

static void writer_encode(writer *w)
{
    for (unsigned i = 0; i < NRING; i++) {
        placer_snapshot *s = bench_seed_ring_less(1, i);
        if (!s || placer_snapshot_encode(s, &w->enc[i], &w->enc_len[i]) != 0) {
            fprintf(stderr, "bench: cannot encode the seed ring\n");
            exit(1);
        }
        placer_snapshot_free(s);
    }
}

static void timespec_add(struct timespec *t, long ns)
{
    t->tv_nsec += ns;
    while (t->tv_nsec >= 1000000000L) {
        t->tv_nsec -= 1000000000L;
        t->tv_sec++;
    }
}

static void *writer_main(void *p)
{
    writer *w = p;
    /* Under SCHED_FIFO, when the process may use it, the writer wakes on
     * time every millisecond (see the top of this file). */
    struct sched_param fifo = {.sched_priority = 1};
    w->realtime = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo) == 0;
    struct timespec next, now;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (uint64_t epoch = 2; !atomic_load(&w->stop); epoch++) {
        /* A period behind: a whole period's rest from now, not publishes back
         * to back. A writer that kept the reader's CPU would keep the reader
         * preempted inside its read-side section: no grace period would
         * end, no snapshot would be freed, and each decode would fault in
         * fresh memory (measured: 33,000 snapshots waiting, decodes 10x
         * slower). MAX_WAITING is the same guard for the reclaiming
         * thread falling behind. */
        clock_gettime(CLOCK_MONOTONIC, &now);
        timespec_add(&next, w->period_ns);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) {
            next = now;
            timespec_add(&next, w->period_ns);
        }
        placer_snapshot *s = NULL;
        double start = bench_thread_ns();
        if (w->published - (long)placer_router_reclaimed(w->r) > MAX_WAITING) {
            w->skipped++;
        } else if (placer_snapshot_decode(w->enc[epoch % NRING], w->enc_len[epoch % NRING], &s) == 0) {
            s->epoch = epoch; /* not yet shared: the writer still owns it */
            if (placer_router_publish(w->r, s) == 0)
                w->published++;
        }
        w->busy_ns += bench_thread_ns() - start;
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    return NULL;
}

/* One pass over the keys through the router (r) or the fixed snapshot. */
static uint64_t pass(placer_router *r, const placer_snapshot *s, int dependent)
{
    uint64_t acc = 0;
    if (dependent) {
        int o = 0;
        for (uint32_t i = 0; i < KEYS; i++) {
            /* o >> 31 is 0 for every owner, but the next key waits for o */
            const void *k = key_ptrs[(i + ((unsigned)o >> 31)) % KEYS];
            o = r ? placer_router_lookup(r, k, 32, NULL) : placer_lookup(s, k, 32);
            acc += (uint32_t)o;
        }
        return acc;
    }
    if (r)
        for (uint32_t i = 0; i < KEYS; i++)
            acc += (uint32_t)placer_router_lookup(r, key_ptrs[i], 32, NULL);
    else
        for (uint32_t i = 0; i < KEYS; i++)
            acc += (uint32_t)placer_lookup(s, key_ptrs[i], 32);
    return acc;
}

static int place_threads(pthread_t other);

static void bench_paired(plc_bench *b, const void *arg)
{
    int dependent = arg != NULL;
    static double ratio[MAX_PAIRS];
    keys_make();
    cpu_set_t before;
    sched_getaffinity(0, sizeof before, &before);
    placer_snapshot *fixed = bench_seed_ring(1);
    writer w = {placer_router_new(bench_seed_ring(1)), 1000000L, 0, 0, 0, 0, 0, 0, {0}, {0}};
    writer_encode(&w);
    pthread_create(&w.thread, NULL, writer_main, &w);
    int two_cpus = place_threads(w.thread);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint32_t np = 0;
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, 2 * (uint64_t)KEYS)) {
        double t[2];
        for (int k = 0; k < 2; k++) {
            int routed = (k + (int)np) % 2 == 0;
            double start = bench_thread_ns();
            acc += pass(routed ? w.r : NULL, fixed, dependent);
            t[routed] = bench_thread_ns() - start;
        }
        if (np < MAX_PAIRS)
            ratio[np++] = t[1] / t[0];
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    atomic_store(&w.stop, 1);
    pthread_join(w.thread, NULL);
    pthread_setaffinity_np(pthread_self(), sizeof before, &before);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_counter(b, "router_over_lookup", bench_median(ratio, np), 0);
    plc_bench_counter(b, "pairs", np, 0);
    plc_bench_counter(b, "publishes_per_s", (double)w.published / secs, 0);
    plc_bench_counter(b, "writer_on_other_cpu", two_cpus, 0);
    plc_bench_counter(b, "writer_realtime", w.realtime, 0);
    plc_bench_counter(b, "writer_skipped", (double)w.skipped, 0);
    plc_bench_counter(b, "writer_cpu_us_per_publish",
                      w.published ? w.busy_ns / 1e3 / (double)w.published : 0, 0);
    placer_router_free(w.r);
    placer_snapshot_free(fixed);
    for (unsigned i = 0; i < NRING; i++)
        placer_buffer_free(w.enc[i]);
}

/* The next differing ring, built by the builder thread when asked: the
 * reader asks for the ring after next as it takes the next one, and waits
 * for it untimed, so no build runs during a timed pass; the ring it
 * publishes was built a pass earlier, as by a writer elsewhere. */
typedef struct builder_thread {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    placer_snapshot *next;
    int want, stop;
    pthread_t thread;
} builder_thread;

static void *builder_main(void *p)
{
    builder_thread *t = p;
    pthread_mutex_lock(&t->lock);
    for (uint64_t epoch = 2;; epoch++) {
        while (!t->want && !t->stop)
            pthread_cond_wait(&t->cond, &t->lock);
        if (t->stop)
            break;
        pthread_mutex_unlock(&t->lock);
        placer_snapshot *s = bench_seed_ring_less(epoch, (unsigned)(epoch % 120));
        pthread_mutex_lock(&t->lock);
        t->next = s;
        t->want = 0;
        pthread_cond_broadcast(&t->cond);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

/* Take the ring built last, ask for the next and wait until it is built. */
static placer_snapshot *builder_take(builder_thread *t)
{
    pthread_mutex_lock(&t->lock);
    while (t->want)
        pthread_cond_wait(&t->cond, &t->lock);
    placer_snapshot *s = t->next;
    t->next = NULL;
    t->want = 1;
    pthread_cond_broadcast(&t->cond);
    while (t->want)
        pthread_cond_wait(&t->cond, &t->lock);
    pthread_mutex_unlock(&t->lock);
    return s;
}

/* Builder (or writer) and reader on different CPUs when the process may use
 * two, as a writer on another core leaves the new lines outside the
 * reader's caches. */
static int place_threads(pthread_t builder)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2)
        return 0;
    int first = -1, second = -1;
    for (int c = 0; c < CPU_SETSIZE && second < 0; c++)
        if (CPU_ISSET(c, &allowed)) {
            if (first < 0)
                first = c;
            else
                second = c;
        }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    CPU_ZERO(&one);
    CPU_SET(second, &one);
    pthread_setaffinity_np(builder, sizeof one, &one);
    return 1;
}

/* What the first HEAD chunks of a pass took beyond HEAD steady chunks (us),
 * the first chunk and the steady chunk (ns a key). */
static void pass_head(const double *chunk_ns, uint32_t nchunk, double *extra, double *first,
                      double *steady)
{
    static double rest[KEYS / CHUNK];
    double head = 0;
    for (uint32_t c = 0; c < HEAD; c++)
        head += chunk_ns[c];
    memcpy(rest, chunk_ns + 1, (nchunk - 1) * sizeof *rest);
    double med = bench_median(rest, nchunk - 1);
    *extra = (head - HEAD * med) / 1e3;
    *first = chunk_ns[0] / CHUNK;
    *steady = med / CHUNK;
}

static void bench_after_publish(plc_bench *b, const void *arg)
{
    (void)arg;
    enum { NCHUNK = KEYS / CHUNK };
    static double chunk_ns[NCHUNK], first[2][MAX_ROUNDS], steady[2][MAX_ROUNDS],
        extra[2][MAX_ROUNDS];
    keys_make();
    cpu_set_t before;
    sched_getaffinity(0, sizeof before, &before);
    placer_router *r = placer_router_new(bench_seed_ring(1));
    builder_thread bt = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 1, 0, 0};
    pthread_create(&bt.thread, NULL, builder_main, &bt);
    int two_cpus = place_threads(bt.thread);
    placer_snapshot_free(builder_take(&bt)); /* the first ring built, NULL taken */
    uint32_t rounds[2] = {0, 0};
    uint64_t acc = 0;
    for (uint32_t round = 0; plc_bench_keep_running(b, KEYS); round++) {
        /* Odd rounds publish the ring built; even ones free it untimed and
         * keep the current snapshot: the same builder's work, no publish. */
        int publish = round & 1;
        plc_bench_pause(b);
        placer_snapshot *s = builder_take(&bt);
        if (!publish) {
            placer_snapshot_free(s);
            s = NULL;
        }
        plc_bench_resume(b);
        if (s)
            placer_router_publish(r, s);
        for (uint32_t c = 0; c < NCHUNK; c++) {
            double t0 = bench_thread_ns();
            for (uint32_t i = c * CHUNK; i < (c + 1) * CHUNK; i++)
                acc += (uint32_t)placer_router_lookup(r, key_ptrs[i], 32, NULL);
            chunk_ns[c] = bench_thread_ns() - t0;
        }
        uint32_t n = rounds[publish];
        if (n < MAX_ROUNDS) {
            pass_head(chunk_ns, NCHUNK, &extra[publish][n], &first[publish][n],
                      &steady[publish][n]);
            rounds[publish]++;
        }
    }
    pthread_mutex_lock(&bt.lock);
    bt.stop = 1;
    pthread_cond_broadcast(&bt.cond);
    pthread_mutex_unlock(&bt.lock);
    pthread_join(bt.thread, NULL);
    placer_snapshot_free(bt.next);
    pthread_setaffinity_np(pthread_self(), sizeof before, &before);
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    double extra_published = bench_median(extra[1], rounds[1]);
    double extra_kept = bench_median(extra[0], rounds[0]);
    plc_bench_counter(b, "first_256_ns", bench_median(first[1], rounds[1]), 0);
    plc_bench_counter(b, "first_256_ns_kept", bench_median(first[0], rounds[0]), 0);
    plc_bench_counter(b, "steady_256_ns", bench_median(steady[1], rounds[1]), 0);
    plc_bench_counter(b, "head_extra_us", extra_published, 0);
    plc_bench_counter(b, "head_extra_us_kept", extra_kept, 0);
    plc_bench_counter(b, "extra_us_per_publish", extra_published - extra_kept, 0);
    plc_bench_counter(b, "publishes", rounds[1], 0);
    plc_bench_counter(b, "builder_on_other_cpu", two_cpus, 0);
    placer_router_free(r);
}

void register_router_writer_benches(void)
{
    plc_bench_register("router/placer_router/writer_1000_differing_vs_lookup/single",
                       bench_paired, NULL);
    plc_bench_register("router/placer_router/writer_1000_differing_vs_lookup/dependent",
                       bench_paired, "dependent");
    plc_bench_register("router/placer_router/after_publish_differing", bench_after_publish, NULL);
}
