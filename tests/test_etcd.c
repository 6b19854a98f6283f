/*
 * test_etcd.c -- snapshots through a real etcd (3-member cluster on
 * 127.0.0.1, free ports; skipped with exit 77 when etcd is not installed):
 *   1. 100 epochs published while a follower answers lookups; the leader is
 *      killed half-way; the follower ends on the last epoch, never goes
 *      backwards, and no lookup fails;
 *   2. a truncated and a corrupted snapshot written with etcdctl are
 *      rejected and the last good epoch keeps serving;
 *   3. two publishers racing: exactly one wins each epoch;
 *   4. every member stopped: lookups go on from the last snapshot and its
 *      age grows; members restarted: the follower catches up;
 *   5. placer publish and placer watch;
 *   6. a watch from a compacted revision reads afresh;
 *   7. a snapshot larger than etcd's request limit travels in chunks.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "etcd_harness.h"
#include "placer_control.h"

#define KEY "/placer/test/ring"

static placer_snapshot *ring(uint64_t epoch, uint32_t nodes, uint64_t seed)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_seed(b, seed);
    placer_builder_set_vnodes(b, 64);
    for (uint32_t i = 0; i < nodes; i++) {
        char id[16];
        snprintf(id, sizeof id, "node-%u", i);
        placer_builder_add_node(b, id, i % 2 ? "a" : "b", 1);
    }
    placer_snapshot *s = NULL;
    placer_builder_build(b, epoch, &s);
    placer_builder_free(b);
    return s;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Publish, retrying while no member answers (an election in progress).
 * An attempt whose outcome was unknown (PLACER_EUNAVAIL) may have
 * committed after all: the retry then finds its own epoch stored
 * (PLACER_ECONFLICT with that epoch), which is this publish landing, as
 * placer_etcd_publish's contract says to check. */
static int publish(const char *endpoints, placer_snapshot *s)
{
    char why[300];
    double until = now() + 30;
    uint64_t epoch = placer_snapshot_epoch(s), current = 0;
    int err, unknown = 0;
    for (;;) {
        err = placer_etcd_publish(endpoints, KEY, s, 3000, &current, why, sizeof why);
        if (err == PLACER_ECONFLICT && unknown && current == epoch)
            err = 0;
        if (err != PLACER_EUNAVAIL || now() >= until)
            break;
        unknown = 1;
    }
    if (err)
        fprintf(stderr, "publish epoch %llu: %s: %s\n",
                (unsigned long long)placer_snapshot_epoch(s), placer_strerror(err), why);
    placer_snapshot_free(s);
    return err;
}

static int wait_epoch(placer_follower *f, uint64_t epoch, double seconds)
{
    double until = now() + seconds;
    placer_follower_status st = {.size = sizeof st};
    do {
        placer_follower_status_get(f, &st);
        if (st.epoch >= epoch)
            return 1;
        nap_ms(10);
    } while (now() < until);
    fprintf(stderr, "follower at epoch %llu, waited for %llu; last error: %s\n",
            (unsigned long long)st.epoch, (unsigned long long)epoch, st.last_error);
    return 0;
}

typedef struct reader {
    placer_follower *f;
    atomic_int stop;
    atomic_long lookups, failures, backwards; /* read by main while the reader runs */
} reader;

static void *read_loop(void *arg)
{
    reader *r = arg;
    uint64_t last = 0;
    char key[32];
    for (long i = 0; !atomic_load(&r->stop); i++) {
        placer_router *router = placer_follower_router(r->f);
        uint64_t epoch = 0;
        int len = snprintf(key, sizeof key, "user:%ld", i % 100000);
        int owner = placer_router_lookup(router, key, (size_t)len, &epoch);
        atomic_fetch_add(&r->lookups, 1);
        atomic_fetch_add(&r->failures, owner < 0);
        atomic_fetch_add(&r->backwards, epoch < last);
        last = epoch > last ? epoch : last;
    }
    return NULL;
}

typedef struct racer {
    const char *endpoints;
    uint64_t seed;
    pthread_barrier_t *barrier;
    int wins[200], conflicts[200];
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    for (uint64_t e = 102; e < 132; e++) {
        placer_snapshot *s = ring(e, 4, r->seed);
        pthread_barrier_wait(r->barrier);
        uint64_t current = 0;
        int err = placer_etcd_publish(r->endpoints, KEY, s, 10000, &current, NULL, 0);
        r->wins[e - 100] = err == 0;
        r->conflicts[e - 100] = err == PLACER_ECONFLICT && current >= e;
        placer_snapshot_free(s);
    }
    return NULL;
}

static int etcdctl_put(const etcd_cluster *c, const char *path)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "ETCDCTL_API=3 etcdctl --endpoints=%s put %s < %s >/dev/null",
             c->endpoints, KEY, path);
    return system(cmd);
}

static void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(p, 1, n, f);
    fclose(f);
}

int main(int argc, char **argv)
{
    const char *placer_cli = argc > 1 ? argv[1] : NULL; /* the placer command, for step 5 */
    if (!etcd_available()) {
        printf("etcd: etcd or etcdctl not installed, skipped\n");
        return 77;
    }
    etcd_cluster c;
    if (etcd_start(&c, 3)) {
        fprintf(stderr, "etcd: the cluster did not start (logs in %s)\n", c.dir);
        etcd_destroy(&c);
        return 1;
    }
    /* 1. 100 epochs, the leader killed half-way */
    CHECK_EQ(publish(c.endpoints, ring(1, 8, 0)), 0);
    placer_follower *f = NULL;
    CHECK_EQ(placer_follower_start(c.endpoints, KEY, NULL, NULL, NULL, &f), 0);
    CHECK(wait_epoch(f, 1, 10));
    reader rd = {.f = f};
    pthread_t rt;
    pthread_create(&rt, NULL, read_loop, &rd);
    int killed = -1;
    for (uint64_t e = 2; e <= 100; e++) {
        if (e == 50) {
            killed = etcd_leader(&c);
            CHECK(killed >= 0);
            if (killed >= 0)
                etcd_kill(&c, killed);
        }
        CHECK_EQ(publish(c.endpoints, ring(e, 8 + e % 5, 0)), 0);
    }
    CHECK(wait_epoch(f, 100, 30));
    printf("1: 100 epochs, leader (member %d) killed at epoch 50: follower at 100, %ld lookups, "
           "%ld failed, %ld went backwards\n", killed, atomic_load(&rd.lookups),
           atomic_load(&rd.failures), atomic_load(&rd.backwards));

    /* 2. a truncated and a corrupted snapshot, written with etcdctl */
    placer_follower_status before = {.size = sizeof before}, after = {.size = sizeof after};
    placer_follower_status_get(f, &before);
    placer_snapshot *good = ring(150, 8, 0);
    void *buf;
    size_t len;
    placer_snapshot_encode(good, &buf, &len);
    char path[400];
    snprintf(path, sizeof path, "%s/truncated.snap", c.dir);
    write_file(path, buf, len / 2);
    CHECK_EQ(etcdctl_put(&c, path), 0);
    ((unsigned char *)buf)[len / 2] ^= 0x40;
    snprintf(path, sizeof path, "%s/corrupted.snap", c.dir);
    write_file(path, buf, len);
    CHECK_EQ(etcdctl_put(&c, path), 0);
    placer_buffer_free(buf);
    placer_snapshot_free(good);
    double until = now() + 10;
    do {
        nap_ms(20);
        placer_follower_status_get(f, &after);
    } while (after.rejected < before.rejected + 2 && now() < until);
    printf("2: rejected %llu more (last: %s); serving epoch %llu\n",
           (unsigned long long)(after.rejected - before.rejected), after.last_error,
           (unsigned long long)after.epoch);
    CHECK_EQ(after.rejected, before.rejected + 2);
    CHECK(strstr(after.last_error, "PLACER_ECHECKSUM") != NULL);
    CHECK_EQ(after.epoch, 100);
    CHECK_EQ(placer_router_epoch(placer_follower_router(f)), 100);
    CHECK_EQ(publish(c.endpoints, ring(101, 8, 0)), 0);
    CHECK(wait_epoch(f, 101, 10));

    /* 3. two publishers racing for each epoch */
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, 2);
    racer a = {c.endpoints, 1, &barrier, {0}, {0}}, b = {c.endpoints, 2, &barrier, {0}, {0}};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, race, &a);
    pthread_create(&tb, NULL, race, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    pthread_barrier_destroy(&barrier);
    int one_winner = 1, a_wins = 0;
    for (int e = 2; e < 32; e++) {
        one_winner &= a.wins[e] + b.wins[e] == 1 && a.conflicts[e] + b.conflicts[e] == 1;
        a_wins += a.wins[e];
    }
    printf("3: 30 epochs raced by 2 publishers: one winner each (publisher A won %d)\n", a_wins);
    CHECK_ALL(one_winner, "one winner per epoch, the other told PLACER_ECONFLICT");
    CHECK(wait_epoch(f, 131, 10));
    placer_snapshot *fetched = NULL;
    CHECK_EQ(placer_etcd_fetch(c.endpoints, KEY, 5000, &fetched, NULL, 0), 0);
    CHECK_EQ(placer_snapshot_epoch(fetched), 131);
    CHECK_EQ(placer_snapshot_seed(fetched), a.wins[31] ? 1 : 2);
    placer_snapshot_free(fetched);

    /* 4. every member stopped, then restarted */
    for (int i = 0; i < c.n; i++)
        etcd_kill(&c, i);
    long lookups = atomic_load(&rd.lookups);
    nap_ms(1500);
    placer_follower_status st = {.size = sizeof st};
    placer_follower_status_get(f, &st);
    printf("4: all members stopped: serving epoch %llu, age %.2f s, %ld lookups meanwhile\n",
           (unsigned long long)st.epoch, st.age_seconds, atomic_load(&rd.lookups) - lookups);
    CHECK(st.age_seconds > 1.4);
    CHECK(atomic_load(&rd.lookups) > lookups);
    CHECK_EQ(st.epoch, 131);
    for (int i = 0; i < c.n; i++)
        etcd_restart(&c, i);
    CHECK_EQ(publish(c.endpoints, ring(200, 8, 0)), 0);
    CHECK(wait_epoch(f, 200, 30));
    placer_follower_status_get(f, &st);
    printf("4: members restarted: follower at epoch %llu, age %.2f s\n",
           (unsigned long long)st.epoch, st.age_seconds);
    CHECK(st.age_seconds < 5);

    /* 7. a snapshot past etcd's 1.5 MiB request limit goes in chunks */
    {
        placer_builder *big = placer_builder_new();
        placer_builder_set_vnodes(big, 2048);
        for (int i = 0; i < 100; i++) {
            char id[16];
            snprintf(id, sizeof id, "big-%d", i);
            placer_builder_add_node(big, id, NULL, 1);
        }
        placer_snapshot *s = NULL;
        placer_builder_build(big, 300, &s);
        placer_builder_free(big);
        void *bytes;
        size_t blen;
        placer_snapshot_encode(s, &bytes, &blen);
        placer_buffer_free(bytes);
        uint32_t tokens = placer_token_count(s);
        CHECK_EQ(publish(c.endpoints, s), 0);
        CHECK(wait_epoch(f, 300, 30));
        const placer_snapshot *got = placer_router_acquire(placer_follower_router(f));
        printf("7: a %zu-byte snapshot (%u tokens) in %zu chunks: served at epoch %llu\n", blen,
               tokens, (blen + (1u << 20) - 1) >> 20, (unsigned long long)placer_snapshot_epoch(got));
        CHECK(blen > 1536 * 1024);
        CHECK_EQ(placer_token_count(got), tokens);
        placer_router_release(placer_follower_router(f), got);
    }

    /* 6. a watch from a compacted revision: a follower that only knows
     * member 0 loses it, three epochs are published and the history is
     * compacted behind it; when member 0 comes back, its watch from the old
     * revision is refused as compacted and it reads afresh. */
    {
        char m0[64], others[256];
        int down = 0;
        etcd_url(&c, down, m0, sizeof m0);
        etcd_url(&c, 1, others, sizeof others);
        strcat(others, ",");
        etcd_url(&c, 2, others + strlen(others), sizeof others - strlen(others));
        placer_follower *f2 = NULL;
        CHECK_EQ(placer_follower_start(m0, KEY, NULL, NULL, NULL, &f2), 0);
        CHECK(wait_epoch(f2, 300, 15));
        etcd_kill(&c, down);
        for (uint64_t e = 301; e <= 303; e++)
            CHECK_EQ(publish(others, ring(e, 8, 0)), 0);
        long long rev = etcd_revision(&c, 1);
        char cmd[600];
        snprintf(cmd, sizeof cmd, "ETCDCTL_API=3 etcdctl --endpoints=%s compact %lld >/dev/null", others, rev);
        CHECK(rev > 0 && system(cmd) == 0);
        etcd_restart(&c, down);
        CHECK(wait_epoch(f2, 303, 30));
        placer_follower_status_get(f2, &st);
        printf("6: after compaction behind its watch: follower at epoch %llu, %llu resync(s)\n",
               (unsigned long long)st.epoch, (unsigned long long)st.resyncs);
        CHECK(st.resyncs >= 1);
        placer_follower_stop(f2);
        CHECK(wait_epoch(f, 303, 15));
    }

    /* 5. the command line: publish and watch */    /* 5. the command line: publish and watch */
    if (placer_cli) {
        char cmd[3000], snap[400], out[400];
        snprintf(snap, sizeof snap, "%s/cli.snap", c.dir);
        snprintf(out, sizeof out, "%s/watch.out", c.dir);
        placer_snapshot *s = ring(7, 4, 3);
        placer_snapshot_encode(s, &buf, &len);
        write_file(snap, buf, len);
        placer_buffer_free(buf);
        placer_snapshot_free(s);
        snprintf(cmd, sizeof cmd, "%s watch --etcd %s --key /placer/cli --count 2 --seconds 30 > %s 2>&1 &",
                 placer_cli, c.endpoints, out);
        CHECK_EQ(system(cmd), 0);
        nap_ms(300);
        snprintf(cmd, sizeof cmd, "%s publish --etcd %s --key /placer/cli %s > /dev/null", placer_cli,
                 c.endpoints, snap);
        CHECK_EQ(system(cmd), 0);
        CHECK_EQ(WEXITSTATUS(system(cmd)), 4); /* the same epoch again: refused as stale */
        {
            char json_out[400], line[400] = "";
            snprintf(json_out, sizeof json_out, "%s/publish.json", c.dir);
            snprintf(cmd, sizeof cmd, "%s publish --json --etcd=%s --key /placer/cli %s > %s 2>/dev/null",
                     placer_cli, c.endpoints, snap, json_out);
            CHECK_EQ(WEXITSTATUS(system(cmd)), 4);
            FILE *j = fopen(json_out, "r");
            CHECK(j && fgets(line, sizeof line, j));
            if (j)
                fclose(j);
            CHECK(strstr(line, "{\"format\":1,\"published\":false,\"key\":\"/placer/cli\",\"epoch\":7,"
                               "\"stored_epoch\":7}") == line);
        }
        snprintf(cmd, sizeof cmd, "ETCDCTL_API=3 etcdctl --endpoints=%s put /placer/cli garbage > /dev/null",
                 c.endpoints);
        CHECK_EQ(system(cmd), 0);
        until = now() + 20;
        char text[2000] = "";
        do {
            nap_ms(50);
            FILE *o = fopen(out, "r");
            size_t n = o ? fread(text, 1, sizeof text - 1, o) : 0;
            text[n] = '\0';
            if (o)
                fclose(o);
        } while (!strstr(text, "rejected") && now() < until);
        printf("5: placer watch printed:\n%s", text);
        CHECK(strstr(text, "accepted epoch 7\n") != NULL);
        CHECK(strstr(text, "rejected: PLACER_EFORMAT") != NULL);

        /* A watch whose only snapshot was rejected: exit status 2. */
        snprintf(cmd, sizeof cmd, "%s watch --etcd %s --key /placer/cli --count 1 --seconds 20 > /dev/null 2>&1",
                 placer_cli, c.endpoints);
        CHECK_EQ(WEXITSTATUS(system(cmd)), 2);
        /* An idle watch, past the client's 10 s silence limit: its JSON line,
         * and no error in the summary ("Timeout was reached" was one). */
        snprintf(cmd, sizeof cmd, "%s publish --etcd %s --key /placer/idle %s > /dev/null", placer_cli,
                 c.endpoints, snap);
        CHECK_EQ(system(cmd), 0);
        char err_path[400];
        snprintf(err_path, sizeof err_path, "%s/idle.err", c.dir);
        snprintf(cmd, sizeof cmd, "%s watch --json --etcd %s --key=/placer/idle --seconds 13 > %s 2> %s",
                 placer_cli, c.endpoints, out, err_path);
        CHECK_EQ(system(cmd), 0);
        char idle[2000] = "", summary[2000] = "";
        FILE *o = fopen(out, "r"), *e = fopen(err_path, "r");
        size_t n = o ? fread(idle, 1, sizeof idle - 1, o) : 0;
        idle[n] = '\0';
        n = e ? fread(summary, 1, sizeof summary - 1, e) : 0;
        summary[n] = '\0';
        if (o)
            fclose(o);
        if (e)
            fclose(e);
        printf("5: an idle watch printed:\n%s%s", idle, summary);
        CHECK(strcmp(idle, "{\"format\":1,\"event\":\"accepted\",\"epoch\":7}\n") == 0);
        CHECK(strstr(summary, "1 accepted, 0 rejected, serving epoch 7\n") != NULL);
        CHECK(strstr(summary, "error") == NULL);
    }

    atomic_store(&rd.stop, 1);
    pthread_join(rt, NULL);
    CHECK_EQ(atomic_load(&rd.failures), 0);
    CHECK_EQ(atomic_load(&rd.backwards), 0);
    CHECK(atomic_load(&rd.lookups) > 1000);
    placer_follower_stop(f);
    etcd_destroy(&c);
    /* a follower of nothing: still stops cleanly */
    CHECK_EQ(placer_follower_start("http://127.0.0.1:1", KEY, NULL, NULL, NULL, &f), 0);
    double give_up = now() + 5;
    do {
        nap_ms(20);
        placer_follower_status_get(f, &st);
    } while (!*st.last_error && now() < give_up);
    printf("a follower of no etcd: epoch %llu, says: %s\n", (unsigned long long)st.epoch,
           st.last_error);
    CHECK(st.epoch == 0 && *st.last_error);
    CHECK(placer_follower_router(f) == NULL);
    placer_follower_stop(f);
    CHECK_EQ(placer_snapshots_alive(), 0);
    return check_done("etcd");
}
