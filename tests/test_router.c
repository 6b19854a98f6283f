/*
 * test_router.c -- the router's contract, one property at a time: epochs
 * only move forward (PLACER_ESTALE, with the rejected snapshot freed),
 * lookups answer from the current snapshot with its epoch (every strategy's
 * as placer_lookup on the same snapshot), NOT_MY_VBUCKET
 * checks, a held snapshot survives a publish until released, batches come
 * from one epoch, NULL arguments, allocation failure, and fork().
 */
#define PLACER_STATIC_LINKING_ONLY
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc.h"
#include "check.h"
#include "placer.h"
#include "ring_membership.h"

static void epochs_move_forward(void)
{
    long base = placer_snapshots_alive();
    CHECK(placer_router_new(NULL) == NULL);
    placer_router *r = placer_router_new(membership_snapshot(10));
    CHECK(r != NULL);
    CHECK_EQ(placer_router_epoch(r), 10);
    CHECK_EQ(placer_router_publish(r, membership_snapshot(10)), PLACER_ESTALE);
    CHECK_EQ(placer_router_publish(r, membership_snapshot(9)), PLACER_ESTALE);
    CHECK_EQ(placer_snapshots_alive(), base + 1); /* rejected ones were freed */
    CHECK_EQ(placer_router_epoch(r), 10);
    CHECK_EQ(placer_router_publish(r, membership_snapshot(11)), 0);
    CHECK_EQ(placer_router_epoch(r), 11);
    CHECK_EQ(placer_router_publish(r, NULL), PLACER_ENULL);
    CHECK_EQ(placer_router_publish(NULL, membership_snapshot(12)), PLACER_ENULL);
    CHECK_EQ(placer_snapshots_alive() <= base + 2, 1);
    placer_router_barrier();
    CHECK_EQ(placer_router_reclaimed(r), 1);
    CHECK_EQ(placer_snapshots_alive(), base + 1);
    placer_router_free(r);
    CHECK_EQ(placer_snapshots_alive(), base);
    placer_router_free(NULL);
}

static void lookups_and_checks(void)
{
    placer_router *r = placer_router_new(membership_snapshot(100));
    membership m;
    membership_for(&m, 100);
    long bad = 0;
    char key[32];
    for (int i = 0; i < 2000; i++) {
        int len = snprintf(key, sizeof key, "user:%d", i);
        uint64_t epoch = 0, cur = 0;
        int owner = placer_router_lookup(r, key, (size_t)len, &epoch);
        bad += owner < 0 || (uint32_t)owner != membership_owner(&m, key, (size_t)len) || epoch != 100;
        bad += placer_router_check(r, (uint32_t)owner, key, (size_t)len, &cur) != 0 || cur != 100;
        bad += placer_router_check(r, (uint32_t)owner + 1, key, (size_t)len, &cur) != PLACER_ENOTMINE;
        bad += placer_router_lookup(r, key, (size_t)len, NULL) != owner;
    }
    CHECK_ALL(bad == 0, "router lookup == reference owner; check says mine / not mine");
    /* After a publish the same keys answer from the new membership. */
    CHECK_EQ(placer_router_publish(r, membership_snapshot(101)), 0);
    membership_for(&m, 101);
    bad = 0;
    for (int i = 0; i < 2000; i++) {
        int len = snprintf(key, sizeof key, "user:%d", i);
        uint64_t epoch = 0;
        bad += (uint32_t)placer_router_lookup(r, key, (size_t)len, &epoch) !=
                   membership_owner(&m, key, (size_t)len) ||
               epoch != 101;
    }
    CHECK_ALL(bad == 0, "after publish: answers from the new epoch");
    /* Batches: one epoch, same answers. */
    enum { N = 300 };
    static char buf[N][16];
    const void *keys[N];
    size_t lens[N];
    uint32_t owners[N];
    for (int i = 0; i < N; i++) {
        lens[i] = (size_t)snprintf(buf[i], sizeof buf[i], "k%d", i);
        keys[i] = buf[i];
    }
    uint64_t epoch = 0;
    CHECK_EQ(placer_router_lookup_batch(r, keys, lens, N, owners, &epoch), 0);
    CHECK_EQ(epoch, 101);
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += owners[i] != membership_owner(&m, keys[i], lens[i]);
    CHECK_ALL(bad == 0, "router batch == reference");
    /* NULL arguments */
    CHECK_EQ(placer_router_lookup(NULL, "k", 1, NULL), PLACER_ENULL);
    CHECK_EQ(placer_router_lookup(r, NULL, 1, NULL), PLACER_ENULL);
    CHECK_EQ(placer_router_check(NULL, 0, "k", 1, NULL), PLACER_ENULL);
    CHECK_EQ(placer_router_lookup_batch(NULL, keys, lens, N, owners, NULL), PLACER_ENULL);
    CHECK_EQ(placer_router_lookup_batch(r, NULL, lens, N, owners, NULL), PLACER_ENULL);
    CHECK_EQ(placer_router_epoch(NULL), 0);
    CHECK(placer_router_acquire(NULL) == NULL);
    placer_router_release(NULL, NULL);
    CHECK_EQ(placer_router_reclaimed(NULL), 0);
    placer_router_free(r);
}

/* The router's lookup takes the line table's call inline and every other
 * strategy's lookup out of line: each strategy's answers through it are
 * placer_lookup's on the same snapshot, and so are its epochs. */
static void every_strategy_answers_as_lookup(void)
{
    int strategies = 0;
    for (int id = placer_strategy_next(0); id; id = placer_strategy_next(id)) {
        placer_builder *b = placer_builder_new();
        CHECK(b != NULL);
        char name[16];
        int ok = placer_builder_set_strategy(b, id) == 0;
        for (int i = 0; ok && i < 12; i++) {
            snprintf(name, sizeof name, "node-%d", i);
            ok = placer_builder_add_node(b, name, NULL, 1.0) >= 0;
        }
        placer_snapshot *s = NULL;
        ok = ok && placer_builder_build(b, 7 + (uint64_t)id, &s) == 0;
        placer_builder_free(b);
        if (!ok) /* a strategy this plain membership does not suit */
            continue;
        strategies++;
        placer_router *r = placer_router_new(s);
        CHECK(r != NULL);
        long bad = 0;
        char key[32];
        for (int k = 0; k < 2000; k++) {
            int len = snprintf(key, sizeof key, "strategy-key-%d", k);
            uint64_t epoch = 0;
            bad += placer_router_lookup(r, key, (size_t)len, &epoch) !=
                   placer_lookup(s, key, (size_t)len);
            bad += epoch != 7 + (uint64_t)id;
        }
        CHECK_EQ(bad, 0);
        placer_router_free(r);
    }
    CHECK(strategies >= 6);
}

static void *publisher(void *p)
{
    placer_router *r = p;
    for (uint64_t e = 6; e <= 8; e++)
        placer_router_publish(r, membership_snapshot(e));
    return NULL;
}

/* A snapshot held with acquire stays readable across publishes. */
static void held_snapshot_survives(void)
{
    placer_router *r = placer_router_new(membership_snapshot(5));
    const placer_snapshot *held = placer_router_acquire(r);
    CHECK_EQ(placer_snapshot_epoch(held), 5);
    /* publish from this thread would be outside the contract inside the
     * section: publish from another thread instead */
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, publisher, r), 0);
    pthread_join(t, NULL);
    CHECK_EQ(placer_router_epoch(r), 8); /* nested read section: the newest */
    CHECK_EQ(placer_snapshot_epoch(held), 5);
    CHECK(strcmp(placer_node_id(held, 0), "n15") == 0); /* epoch 5: (5*3 + 0) % 23 */
    /* No grace period can end while this thread is inside its section. */
    CHECK_EQ(placer_router_reclaimed(r), 0);
    placer_router_release(r, held);
    placer_router_barrier();
    CHECK_EQ(placer_router_reclaimed(r), 3);
    placer_router_free(r);
}

static void allocation_failure(void)
{
    long base = placer_snapshots_alive();
    placer_snapshot *s = membership_snapshot(1);
    plc_alloc_fail_at(0);
    placer_router *r = placer_router_new(s);
    plc_alloc_fail_at(-1);
    CHECK(r == NULL);
    CHECK_EQ(placer_snapshots_alive(), base); /* ownership passed: freed */
}

/* fork(): the child keeps a working router (call_rcu's thread is restored). */
#if !defined(__SANITIZE_THREAD__)
static void survives_fork(void)
{
    placer_router *r = placer_router_new(membership_snapshot(20));
    for (uint64_t e = 21; e <= 25; e++)
        placer_router_publish(r, membership_snapshot(e));
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int ok = placer_router_epoch(r) == 25;
        membership m;
        membership_for(&m, 25);
        ok &= (uint32_t)placer_router_lookup(r, "user:7", 6, NULL) == membership_owner(&m, "user:7", 6);
        ok &= placer_router_publish(r, membership_snapshot(26)) == 0;
        placer_router_barrier();
        ok &= placer_router_epoch(r) == 26;
        placer_router_free(r);
        _exit(ok ? 0 : 1);
    }
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ(placer_router_publish(r, membership_snapshot(27)), 0); /* parent goes on too */
    placer_router_free(r);
}
#endif

/* A thread warms each snapshot it meets (router.c) and remembers a few:
 * one going round more routers than that, with snapshots replaced under
 * it, still gets each router's current answers. */
static void many_routers_in_turn(void)
{
    enum { R = 9 };
    placer_router *r[R];
    static membership m[R];
    for (int i = 0; i < R; i++) {
        r[i] = placer_router_new(membership_snapshot(200 + (uint64_t)i));
        CHECK(r[i] != NULL);
        membership_for(&m[i], 200 + (uint64_t)i);
    }
    long bad = 0;
    char key[32];
    for (int k = 0; k < 3000; k++) {
        int i = k % R;
        if (k % 500 == 499) { /* a new snapshot behind one router */
            uint64_t e = placer_router_epoch(r[i]) + R;
            CHECK_EQ(placer_router_publish(r[i], membership_snapshot(e)), 0);
            membership_for(&m[i], e);
        }
        int len = snprintf(key, sizeof key, "turn:%d", k);
        uint64_t epoch = 0;
        bad += (uint32_t)placer_router_lookup(r[i], key, (size_t)len, &epoch) !=
                   membership_owner(&m[i], key, (size_t)len) ||
               epoch != placer_router_epoch(r[i]);
    }
    CHECK_ALL(bad == 0, "routers in turn: each answers from its current snapshot");
    for (int i = 0; i < R; i++)
        placer_router_free(r[i]);
}

int main(void)
{
    epochs_move_forward();
    lookups_and_checks();
    every_strategy_answers_as_lookup();
    many_routers_in_turn();
    held_snapshot_survives();
    allocation_failure();
#if defined(__SANITIZE_THREAD__)
    /* TSan cannot start threads in the child of a multithreaded fork. */
    printf("fork test skipped under ThreadSanitizer\n");
#else
    survives_fork();
#endif
    placer_router_barrier();
    CHECK_EQ(placer_snapshots_alive(), 0);
    return check_done("test_router");
}
