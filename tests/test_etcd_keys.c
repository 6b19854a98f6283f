/*
 * test_etcd_keys.c -- keys and manifests against a real etcd (one member on
 * 127.0.0.1; exit 77 when etcd is not installed):
 *   1. snapshots published under keys with quotes, backslashes, spaces,
 *      non-ASCII and 512 bytes (the manifest, JSON, carries the key's chunk
 *      prefix): a follower accepts each and fetch reads each;
 *   2. keys refused at publish time with a reason: 513 bytes, control
 *      characters, broken UTF-8 -- nothing is written;
 *   3. hostile manifests written with etcdctl are refused before anything
 *      large is allocated: 100,000 chunks of 100 GB, counts that do not
 *      fit, signed or spaced epochs, a prefix outside the key, duplicate
 *      fields; a manifest naming 4,096 chunks with one present fails on
 *      the missing chunk (the ASan build would die on a 4 GiB allocation);
 *   4. placer publish under the poisoned key, then placer watch;
 *   5. epoch 0 published to an empty key (nothing stored: it is newer),
 *      then refused as stale; a keyed snapshot refused over http:// unless
 *      the config allows it (then fetched back keyed, hashing alike); TLS
 *      files on an http:// config refused;
 *   6. placer_etcd_fetch_changed: the first read and each publish give a
 *      snapshot and move the revision; an unchanged key gives none; a
 *      value refused moves the revision (not read again); a deleted key
 *      and an unreachable member leave it.
 */
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "etcd_harness.h"
#include "etcd_test_util.h"

static const etcd_cluster *cluster;

/* etcdctl put key < a file holding value. */
static int put_raw(const char *key, const char *value)
{
    char path[] = "/tmp/placer-etcd-value-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    ssize_t w = write(fd, value, strlen(value));
    close(fd);
    int rc = w == (ssize_t)strlen(value)
                 ? tu_sh("ETCDCTL_API=3 etcdctl --endpoints=%s put '%s' < %s >/dev/null",
                         cluster->endpoints, key, path)
                 : -1;
    unlink(path);
    return rc;
}

static void good_keys(void)
{
    char long_key[513];
    memset(long_key, 'k', 512);
    long_key[0] = '/';
    long_key[512] = '\0';
    const char *keys[] = {"/q/we\"ird\\key", "/space d/key with spaces", "/uni/\xc3\xa9t\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x94\x91",
                          "/json/{\"prefix\":\"/x/\"}", long_key};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        placer_follower *f = NULL;
        CHECK_EQ(placer_follower_start(cluster->endpoints, keys[i], NULL, NULL, NULL, &f), 0);
        char why[300] = "";
        placer_snapshot *s = tu_ring(7, 5);
        int err = placer_etcd_publish(cluster->endpoints, keys[i], s, 5000, NULL, why, sizeof why);
        if (err)
            fprintf(stderr, "key %zu: %s: %s\n", i, placer_strerror(err), why);
        CHECK_EQ(err, 0);
        CHECK(tu_wait_epoch(f, 7, 10));
        placer_follower_status st = {.size = sizeof st};
        placer_follower_status_get(f, &st);
        CHECK_EQ(st.rejected, 0);
        placer_follower_stop(f);
        placer_snapshot *got = NULL;
        CHECK_EQ(placer_etcd_fetch(cluster->endpoints, keys[i], 5000, &got, why, sizeof why), 0);
        CHECK(got && placer_snapshot_hash(got, "k", 1) == placer_snapshot_hash(s, "k", 1));
        CHECK(got && placer_snapshot_epoch(got) == 7);
        placer_snapshot_free(got);
        placer_snapshot_free(s);
    }
}

static void bad_keys(void)
{
    char too_long[514];
    memset(too_long, 'k', 513);
    too_long[513] = '\0';
    const char *keys[] = {too_long, "/tab\tkey", "/nl\nkey", "/esc\x1b[2Jkey", "/del\x7fkey",
                          "/bad-utf8/\xc3(", "/overlong/\xc0\xaf", "/surrogate/\xed\xa0\x80",
                          "/c1/\xc2\x9b", "/cut/\xe6\x97", ""};
    placer_snapshot *s = tu_ring(3, 3);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char why[300] = "";
        int err = placer_etcd_publish(cluster->endpoints, keys[i], s, 2000, NULL, why, sizeof why);
        CHECK_EQ(err, PLACER_EINVAL);
        CHECK(strstr(why, "key") != NULL);
    }
    placer_snapshot_free(s);
    /* nothing was written under any of them */
    CHECK_EQ(tu_sh("test -z \"$(ETCDCTL_API=3 etcdctl --endpoints=%s get --prefix --keys-only /tab /nl /esc 2>/dev/null)\"",
                   cluster->endpoints), 0);
}

static void hostile_manifests(void)
{
    const char *key = "/hostile/m";
    placer_snapshot *s = tu_ring(5, 3);
    char why[300] = "";
    CHECK_EQ(placer_etcd_publish(cluster->endpoints, key, s, 5000, NULL, why, sizeof why), 0);
    placer_snapshot_free(s);
    struct {
        const char *value;
        int want;
    } cases[] = {
        {"{\"epoch\":\"9\",\"prefix\":\"/hostile/m/chunks/x/\",\"chunks\":100000,\"bytes\":104857600000,\"crc32c\":0}", PLACER_EFORMAT},
        {"{\"epoch\":\"9\",\"prefix\":\"/hostile/m/chunks/x/\",\"chunks\":1,\"bytes\":2097152,\"crc32c\":0}", PLACER_EFORMAT},
        {"{\"epoch\":\"9\",\"prefix\":\"/hostile/m/chunks/x/\",\"chunks\":2,\"bytes\":10,\"crc32c\":0}", PLACER_EFORMAT},
        {"{\"epoch\":\" -1\",\"prefix\":\"/hostile/m/chunks/x/\",\"chunks\":1,\"bytes\":10,\"crc32c\":0}", PLACER_EFORMAT},
        {"{\"epoch\":\"-1\",\"prefix\":\"/hostile/m/chunks/x/\",\"chunks\":1,\"bytes\":10,\"crc32c\":0}", PLACER_EFORMAT},
        {"{\"epoch\":\"0x10\",\"prefix\":\"/hostile/m/chunks/x/\",\"chunks\":1,\"bytes\":10,\"crc32c\":0}", PLACER_EFORMAT},
        {"{\"epoch\":\"18446744073709551616\",\"prefix\":\"/hostile/m/chunks/x/\",\"chunks\":1,\"bytes\":10,\"crc32c\":0}", PLACER_EFORMAT},
        {"{\"epoch\":\"9\",\"prefix\":\"/elsewhere/chunks/x/\",\"chunks\":1,\"bytes\":10,\"crc32c\":0}", PLACER_EFORMAT},
        {"{\"epoch\":\"9\",\"prefix\":\"/hostile/m/chunks/x/\",\"chunks\":\"1\",\"bytes\":10,\"crc32c\":0}", PLACER_EFORMAT},
        {"{\"epoch\":\"9\",\"prefix\":\"/hostile/m/chunks/x/\",\"chunks\":1,\"bytes\":10,\"crc32c\":-1}", PLACER_EFORMAT},
        {"{\"epoch\":\"9\",\"epoch\":\"10\",\"prefix\":\"/hostile/m/chunks/x/\",\"chunks\":1,\"bytes\":10,\"crc32c\":0}", PLACER_EFORMAT},
        {"[1,2,3]", PLACER_EFORMAT},
        /* well-formed, 4 GiB claimed, chunk 0 absent: refused on reading it */
        {"{\"epoch\":\"9\",\"prefix\":\"/hostile/m/chunks/x/\",\"chunks\":4096,\"bytes\":4294967296,\"crc32c\":0}", PLACER_ETRUNC},
    };
    placer_follower *f = NULL;
    CHECK_EQ(placer_follower_start(cluster->endpoints, key, NULL, NULL, NULL, &f), 0);
    CHECK(tu_wait_epoch(f, 5, 10));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_EQ(put_raw(key, cases[i].value), 0);
        placer_snapshot *got = NULL;
        int err = placer_etcd_fetch(cluster->endpoints, key, 5000, &got, why, sizeof why);
        if (err != cases[i].want)
            fprintf(stderr, "manifest %zu: %s: %s\n", i, placer_strerror(err), why);
        CHECK_EQ(err, cases[i].want);
        CHECK(got == NULL);
    }
    /* the follower saw each, rejected each and still serves epoch 5 */
    double until = tu_now() + 10;
    placer_follower_status st = {.size = sizeof st};
    do {
        placer_follower_status_get(f, &st);
        tu_nap_ms(20);
    } while (st.rejected < sizeof cases / sizeof cases[0] && tu_now() < until);
    CHECK_EQ(st.rejected, sizeof cases / sizeof cases[0]);
    CHECK_EQ(st.epoch, 5);
    placer_follower_stop(f);
}

static placer_snapshot *keyed_ring(uint64_t epoch)
{
    static const unsigned char secret[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, 16);
    placer_builder_add_node(b, "a", "z", 1);
    placer_builder_add_node(b, "b", "z", 1);
    placer_builder_add_node(b, "c", "z", 1);
    placer_builder_set_secret(b, secret);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, epoch, &s), 0);
    placer_builder_free(b);
    return s;
}

static void epoch_zero_and_secrets(void)
{
    char why[400] = "";
    uint64_t stored = 99;
    /* epoch 0 to a key that holds nothing: published, then stale */
    placer_snapshot *zero = tu_ring(0, 3);
    CHECK_EQ(placer_etcd_publish(cluster->endpoints, "/zero/k", zero, 5000, &stored, why, sizeof why), 0);
    placer_snapshot *got = NULL;
    CHECK_EQ(placer_etcd_fetch(cluster->endpoints, "/zero/k", 5000, &got, why, sizeof why), 0);
    CHECK(got && placer_snapshot_epoch(got) == 0);
    placer_snapshot_free(got);
    CHECK_EQ(placer_etcd_publish(cluster->endpoints, "/zero/k", zero, 5000, &stored, why, sizeof why),
             PLACER_ECONFLICT);
    CHECK_EQ(stored, 0);
    placer_snapshot *one = tu_ring(1, 3);
    CHECK_EQ(placer_etcd_publish(cluster->endpoints, "/zero/k", one, 5000, NULL, why, sizeof why), 0);
    placer_snapshot_free(one);
    placer_snapshot_free(zero);

    /* keyed over http://: refused (nothing written), unless allowed */
    placer_snapshot *k = keyed_ring(4);
    CHECK_EQ(placer_snapshot_key_hash(k), PLACER_HASH_SIPHASH13);
    why[0] = '\0';
    CHECK_EQ(placer_etcd_publish(cluster->endpoints, "/keyed/k", k, 5000, NULL, why, sizeof why), PLACER_EINVAL);
    CHECK(strstr(why, "keyed") && strstr(why, "http://") && strstr(why, "allow"));
    CHECK_EQ(placer_etcd_fetch(cluster->endpoints, "/keyed/k", 5000, &got, why, sizeof why), PLACER_EMISSING);
    placer_etcd_config *c = NULL;
    CHECK_EQ(placer_etcd_config_new(cluster->endpoints, 5000, &c), 0);
    CHECK_EQ(placer_etcd_publish_ex(c, "/keyed/k", k, NULL, why, sizeof why), PLACER_EINVAL);
    CHECK_EQ(placer_etcd_config_allow_cleartext_secret(NULL, 1), PLACER_ENULL);
    CHECK_EQ(placer_etcd_config_allow_cleartext_secret(c, 1), 0);
    CHECK_EQ(placer_etcd_publish_ex(c, "/keyed/k", k, NULL, why, sizeof why), 0);
    got = NULL;
    CHECK_EQ(placer_etcd_fetch_ex(c, "/keyed/k", &got, why, sizeof why), 0);
    CHECK(got && placer_snapshot_key_hash(got) == PLACER_HASH_SIPHASH13);
    CHECK(got && placer_snapshot_hash(got, "user:1", 6) == placer_snapshot_hash(k, "user:1", 6));
    placer_snapshot_free(got);
    /* TLS files on an http:// endpoint would be ignored: refused */
    why[0] = '\0';
    CHECK_EQ(placer_etcd_config_set_tls(c, "/dev/null", NULL, NULL, why, sizeof why), PLACER_EINVAL);
    CHECK(strstr(why, "https://") != NULL);
    placer_etcd_config_free(c);
    placer_snapshot_free(k);
}

static void cli(const char *placer, const char *dir)
{
    if (!placer)
        return;
    placer_snapshot *s = tu_ring(11, 4);
    void *buf;
    size_t len;
    CHECK_EQ(placer_snapshot_encode(s, &buf, &len), 0);
    placer_snapshot_free(s);
    char path[300];
    snprintf(path, sizeof path, "%s/k.snap", dir);
    FILE *fp = fopen(path, "wb");
    CHECK(fp && fwrite(buf, 1, len, fp) == len);
    if (fp)
        fclose(fp);
    placer_buffer_free(buf);
    /* the key: exit 0, and a watcher accepts it */
    CHECK_EQ(tu_sh("%s publish --etcd %s --key '/bars/we\"ird\\key' %s >/dev/null", placer,
                   cluster->endpoints, path), 0);
    CHECK_EQ(tu_sh("%s watch --etcd %s --key '/bars/we\"ird\\key' --count 1 --seconds 20 2>/dev/null | grep -qx 'accepted epoch 11'",
                   placer, cluster->endpoints), 0);
    /* a refused key: exit 2 and the reason */
    CHECK_EQ(tu_sh("%s publish --etcd %s --key \"$(printf '/a\\tb')\" %s 2>&1 | grep -q 'control character'",
                   placer, cluster->endpoints, path), 0);
    CHECK_EQ(tu_sh("%s publish --etcd %s --key \"$(printf '/a\\tb')\" %s 2>/dev/null", placer,
                   cluster->endpoints, path), 2);
}

static void fetch_changed(void)
{
    const char *key = "/changed";
    placer_etcd_config *cfg = NULL, *nowhere = NULL;
    CHECK_EQ(placer_etcd_config_new(cluster->endpoints, 5000, &cfg), 0);
    CHECK_EQ(placer_etcd_config_new("http://127.0.0.1:1", 300, &nowhere), 0);
    placer_snapshot *s = tu_ring(10, 4), *got = NULL;
    CHECK_EQ(placer_etcd_publish(cluster->endpoints, key, s, 5000, NULL, NULL, 0), 0);
    placer_snapshot_free(s);
    char why[300] = "";
    int64_t rev = 0;
    CHECK_EQ(placer_etcd_fetch_changed(cfg, key, NULL, &got, why, sizeof why), PLACER_ENULL);
    CHECK_EQ(placer_etcd_fetch_changed(cfg, key, &rev, &got, why, sizeof why), 0);
    CHECK(got != NULL && placer_snapshot_epoch(got) == 10);
    placer_snapshot_free(got);
    int64_t first = rev;
    CHECK(first > 0);
    got = (placer_snapshot *)1; /* must become NULL */
    CHECK_EQ(placer_etcd_fetch_changed(cfg, key, &rev, &got, why, sizeof why), 0);
    CHECK(got == NULL && rev == first);

    s = tu_ring(11, 5);
    CHECK_EQ(placer_etcd_publish(cluster->endpoints, key, s, 5000, NULL, NULL, 0), 0);
    placer_snapshot_free(s);
    CHECK_EQ(placer_etcd_fetch_changed(cfg, key, &rev, &got, why, sizeof why), 0);
    CHECK(got != NULL && placer_snapshot_epoch(got) == 11 && rev > first);
    placer_snapshot_free(got);

    int64_t good = rev;
    CHECK_EQ(put_raw(key, "not a snapshot"), 0);
    int err = placer_etcd_fetch_changed(cfg, key, &rev, &got, why, sizeof why);
    CHECK(err != 0 && got == NULL && rev > good);
    printf("6: a value refused (%s: %s), its revision remembered\n", placer_strerror(err), why);
    int64_t bad = rev;
    CHECK_EQ(placer_etcd_fetch_changed(cfg, key, &rev, &got, why, sizeof why), 0);
    CHECK(got == NULL && rev == bad);

    CHECK_EQ(tu_sh("ETCDCTL_API=3 etcdctl --endpoints=%s del %s >/dev/null", cluster->endpoints,
                   key), 0);
    CHECK_EQ(placer_etcd_fetch_changed(cfg, key, &rev, &got, why, sizeof why), PLACER_EMISSING);
    CHECK(got == NULL && rev == bad);
    CHECK_EQ(placer_etcd_fetch_changed(nowhere, key, &rev, &got, why, sizeof why), PLACER_EUNAVAIL);
    CHECK(got == NULL && rev == bad);
    s = tu_ring(12, 3);
    CHECK_EQ(placer_etcd_publish(cluster->endpoints, key, s, 5000, NULL, NULL, 0), 0);
    placer_snapshot_free(s);
    CHECK_EQ(placer_etcd_fetch_changed(cfg, key, &rev, &got, why, sizeof why), 0);
    CHECK(got != NULL && placer_snapshot_epoch(got) == 12 && rev > bad);
    placer_snapshot_free(got);
    placer_etcd_config_free(cfg);
    placer_etcd_config_free(nowhere);
}

int main(int argc, char **argv)
{
    if (!etcd_available()) {
        printf("etcd_keys: etcd or etcdctl not installed, skipped\n");
        return 77;
    }
    etcd_cluster c;
    if (etcd_start(&c, 1)) {
        fprintf(stderr, "etcd_keys: could not start etcd\n");
        etcd_destroy(&c);
        return 1;
    }
    cluster = &c;
    good_keys();
    bad_keys();
    hostile_manifests();
    epoch_zero_and_secrets();
    fetch_changed();
    cli(argc > 1 ? argv[1] : NULL, c.dir);
    etcd_destroy(&c);
    return check_done("etcd_keys");
}
