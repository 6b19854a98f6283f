/*
 * test_router_torture.c -- readers against a writer that changes the
 * membership with every epoch.
 *
 * 1. R reader threads (plain pthreads that never heard of liburcu) loop
 *    lookups while one writer publishes 10,000 snapshots. Every answer is
 *    checked against the reference owner in the membership of the epoch the
 *    lookup reports (ring_membership.c recomputes it without the snapshot),
 *    and the epochs a reader sees never decrease. Afterwards, once pending
 *    reclamations are done, exactly one snapshot is alive (counted), and
 *    none after the router is freed; ASan's LeakSanitizer checks the rest.
 * 2. Two writers publish interleaved epochs at once: every publish either
 *    wins or gets PLACER_ESTALE, and the newest epoch attempted is the one
 *    left standing.
 * Built and run with ASan and with TSan in CI (scripts/test.sh).
 */
#define PLACER_STATIC_LINKING_ONLY
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "check.h"
#include "placer.h"
#include "ring_membership.h"

#define READERS 3
#define EPOCHS 10000u

typedef struct shared {
    placer_router *r;
    atomic_int stop;
} shared;

typedef struct reader_result {
    long lookups, wrong, backwards, epochs_seen;
} reader_result;

typedef struct reader_arg {
    shared *sh;
    int id;
    reader_result res;
} reader_arg;

static void *reader(void *p)
{
    reader_arg *a = p;
    membership *m = malloc(sizeof *m);
    uint64_t last = 0, rng = 1000 + (uint64_t)a->id;
    char key[32];
    m->epoch = 0;
    enum { HELD = 64 };
    char held_keys[HELD][32];
    size_t held_lens[HELD];
    int held_owner[HELD];
    while (!atomic_load_explicit(&a->sh->stop, memory_order_relaxed)) {
        /* Plain lookups, each its own read-side section. */
        int len = snprintf(key, sizeof key, "key:%llu", (unsigned long long)(check_rand(&rng) % 100000));
        uint64_t epoch = 0;
        int owner = placer_router_lookup(a->sh->r, key, (size_t)len, &epoch);
        if (epoch < last)
            a->res.backwards++;
        if (epoch != m->epoch) { /* recompute the reference only when the epoch moves */
            membership_for(m, epoch);
            a->res.epochs_seen++;
        }
        if (owner < 0 || (uint32_t)owner != membership_owner(m, key, (size_t)len))
            a->res.wrong++;
        last = epoch;
        a->res.lookups++;

        /* One snapshot held across many lookups (acquire/release): the long
         * section gives a snapshot freed too early every chance to be read
         * after its free, which ASan and TSan then report. */
        for (int i = 0; i < HELD; i++)
            held_lens[i] = (size_t)snprintf(held_keys[i], sizeof held_keys[i], "held:%llu",
                                            (unsigned long long)(check_rand(&rng) % 100000));
        const placer_snapshot *s = placer_router_acquire(a->sh->r);
        uint64_t held_epoch = placer_snapshot_epoch(s);
        for (int i = 0; i < HELD; i++)
            held_owner[i] = placer_lookup(s, held_keys[i], held_lens[i]);
        placer_router_release(a->sh->r, s);
        if (held_epoch < last)
            a->res.backwards++;
        if (held_epoch != m->epoch) {
            membership_for(m, held_epoch);
            a->res.epochs_seen++;
        }
        for (int i = 0; i < HELD; i++)
            if (held_owner[i] < 0 ||
                (uint32_t)held_owner[i] != membership_owner(m, held_keys[i], held_lens[i]))
                a->res.wrong++;
        last = held_epoch;
        a->res.lookups += HELD;
    }
    free(m);
    return NULL;
}

static void start_readers(shared *sh, pthread_t *t, reader_arg *a)
{
    for (int i = 0; i < READERS; i++) {
        a[i] = (reader_arg){sh, i, {0, 0, 0, 0}};
        pthread_create(&t[i], NULL, reader, &a[i]);
    }
}

static void stop_readers(shared *sh, pthread_t *t, reader_arg *a, const char *what)
{
    atomic_store(&sh->stop, 1);
    long lookups = 0, wrong = 0, backwards = 0, seen = 0;
    for (int i = 0; i < READERS; i++) {
        pthread_join(t[i], NULL);
        lookups += a[i].res.lookups;
        wrong += a[i].res.wrong;
        backwards += a[i].res.backwards;
        seen += a[i].res.epochs_seen;
    }
    printf("%s: %d readers, %ld lookups, %ld wrong, %ld backwards, %ld epoch changes seen\n", what,
           READERS, lookups, wrong, backwards, seen);
    CHECK(lookups > 0);
    CHECK_EQ(wrong, 0);
    CHECK_EQ(backwards, 0);
}

static void one_writer(void)
{
    long base = placer_snapshots_alive();
    shared sh = {placer_router_new(membership_snapshot(1)), 0};
    pthread_t t[READERS];
    reader_arg a[READERS];
    start_readers(&sh, t, a);
    long failed = 0;
    for (uint64_t e = 2; e <= EPOCHS + 1; e++)
        failed += placer_router_publish(sh.r, membership_snapshot(e)) != 0;
    stop_readers(&sh, t, a, "one writer");
    CHECK_EQ(failed, 0);
    CHECK_EQ(placer_router_epoch(sh.r), EPOCHS + 1);
    placer_router_barrier();
    CHECK_EQ(placer_router_reclaimed(sh.r), EPOCHS);
    CHECK_EQ(placer_snapshots_alive(), base + 1); /* only the current one */
    placer_router_free(sh.r);
    CHECK_EQ(placer_snapshots_alive(), base);
}

typedef struct writer_arg {
    placer_router *r;
    uint64_t first;
    long won, stale, other;
} writer_arg;

static void *writer(void *p)
{
    writer_arg *w = p;
    for (uint64_t e = w->first; e <= 2 * 1000 + 1; e += 2) {
        int rc = placer_router_publish(w->r, membership_snapshot(e));
        if (rc == 0)
            w->won++;
        else if (rc == PLACER_ESTALE)
            w->stale++;
        else
            w->other++;
    }
    return NULL;
}

static void two_writers(void)
{
    long base = placer_snapshots_alive();
    shared sh = {placer_router_new(membership_snapshot(1)), 0};
    pthread_t t[READERS], wt[2];
    reader_arg a[READERS];
    start_readers(&sh, t, a);
    writer_arg w[2] = {{sh.r, 2, 0, 0, 0}, {sh.r, 3, 0, 0, 0}}; /* even and odd epochs */
    for (int i = 0; i < 2; i++)
        pthread_create(&wt[i], NULL, writer, &w[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(wt[i], NULL);
    stop_readers(&sh, t, a, "two writers");
    long won = w[0].won + w[1].won, stale = w[0].stale + w[1].stale;
    printf("two writers: %ld published, %ld stale\n", won, stale);
    CHECK_EQ(w[0].other + w[1].other, 0);
    CHECK_EQ(won + stale, 2000);
    CHECK_EQ(placer_router_epoch(sh.r), 2001); /* the newest epoch attempted wins */
    placer_router_barrier();
    CHECK_EQ(placer_router_reclaimed(sh.r), (uint64_t)won);
    CHECK_EQ(placer_snapshots_alive(), base + 1);
    placer_router_free(sh.r);
    CHECK_EQ(placer_snapshots_alive(), base);
}

int main(void)
{
    one_writer();
    two_writers();
    return check_done("test_router_torture");
}
