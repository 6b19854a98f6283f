/*
 * test_etcd_auth.c -- etcd's user authentication, against a real member
 * with `auth enable`, simple tokens that expire after 1 s of disuse, and
 * roles limited to a key prefix (made with etcdctl). Exit 77 when etcd is
 * not installed.
 *   1. writer (readwrite on /auth/) publishes; a follower as reader (read
 *      on /auth/) accepts; after its token has expired (3 s idle) the next
 *      publish is still accepted: the follower authenticated again;
 *   2. refused with PLACER_EAUTH and a reason: a wrong password, an unknown
 *      user, no user at all, reader publishing, writer publishing outside
 *      its prefix, reader fetching outside its prefix;
 *   3. placer publish/watch --user with --password-file and with
 *      PLACER_ETCD_PASSWORD: exit 0; a wrong password or a user without
 *      write permission: exit 3 and a reason; --user without any password:
 *      exit 1.
 */
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "etcd_harness.h"
#include "etcd_test_util.h"

#define KEY "/auth/ring"

static placer_etcd_config *config(const char *endpoints, const char *user, const char *password)
{
    placer_etcd_config *c = NULL;
    CHECK_EQ(placer_etcd_config_new(endpoints, 3000, &c), 0);
    if (c && user)
        CHECK_EQ(placer_etcd_config_set_user(c, user, password), 0);
    return c;
}

static int setup_auth(const etcd_cluster *cl)
{
    return tu_sh("set -e; e='etcdctl --endpoints=%s'; exec >%s/etcdctl.log 2>&1\n"
                 "$e user add root --new-user-password=root-pw --interactive=false\n"
                 "$e role add root; $e user grant-role root root\n"
                 "$e user add writer --new-user-password='w pw\"1' --interactive=false\n"
                 "$e role add auth-rw; $e role grant-permission auth-rw --prefix=true readwrite /auth/\n"
                 "$e user grant-role writer auth-rw\n"
                 "$e user add reader --new-user-password=r-pw --interactive=false\n"
                 "$e role add auth-ro; $e role grant-permission auth-ro --prefix=true read /auth/\n"
                 "$e user grant-role reader auth-ro\n"
                 "$e auth enable\n",
                 cl->endpoints, cl->dir);
}

static int publish_as(const etcd_cluster *cl, const char *user, const char *pw, const char *key,
                      uint64_t epoch, char *why, size_t why_len)
{
    placer_etcd_config *c = config(cl->endpoints, user, pw);
    placer_snapshot *s = tu_ring(epoch, 4);
    int err = placer_etcd_publish_ex(c, key, s, NULL, why, why_len);
    placer_snapshot_free(s);
    placer_etcd_config_free(c);
    return err;
}

static void right_credentials(const etcd_cluster *cl)
{
    placer_etcd_config *rc = config(cl->endpoints, "reader", "r-pw");
    placer_follower *f = NULL;
    CHECK_EQ(placer_follower_start_ex(rc, KEY, NULL, NULL, NULL, &f), 0);
    placer_etcd_config_free(rc); /* the follower keeps its own copy */
    char why[300] = "";
    int err = publish_as(cl, "writer", "w pw\"1", KEY, 1, why, sizeof why);
    if (err)
        fprintf(stderr, "writer: %s: %s\n", placer_strerror(err), why);
    CHECK_EQ(err, 0);
    CHECK(tu_wait_epoch(f, 1, 10));
    tu_nap_ms(3000); /* the follower's token expires (TTL 1 s) */
    CHECK_EQ(publish_as(cl, "writer", "w pw\"1", KEY, 2, why, sizeof why), 0);
    CHECK(tu_wait_epoch(f, 2, 10));
    placer_follower_status st = {.size = sizeof st};
    placer_follower_status_get(f, &st);
    CHECK_EQ(st.rejected, 0);
    placer_follower_stop(f);
}

static void refused(const etcd_cluster *cl)
{
    struct {
        const char *what, *user, *pw, *key, *says;
    } cases[] = {
        {"wrong password", "writer", "nope", KEY, "authentication failed"},
        {"unknown user", "mallory", "nope", KEY, "authentication failed"},
        {"no user", NULL, NULL, KEY, "user name is empty"},
        {"reader publishing", "reader", "r-pw", KEY, "permission denied"},
        {"writer outside its prefix", "writer", "w pw\"1", "/other/ring", "permission denied"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[300] = "";
        int err = publish_as(cl, cases[i].user, cases[i].pw, cases[i].key, 50, why, sizeof why);
        fprintf(stderr, "%s: %s: %s\n", cases[i].what, placer_strerror(err), why);
        CHECK_EQ(err, PLACER_EAUTH);
        CHECK(strstr(why, cases[i].says) != NULL);
    }
    placer_etcd_config *c = config(cl->endpoints, "reader", "r-pw");
    placer_snapshot *got = NULL;
    char why[300] = "";
    CHECK_EQ(placer_etcd_fetch_ex(c, "/other/ring", &got, why, sizeof why), PLACER_EAUTH);
    CHECK_EQ(placer_etcd_fetch_ex(c, KEY, &got, why, sizeof why), 0);
    CHECK(got && placer_snapshot_epoch(got) == 2); /* nothing refused was written */
    placer_snapshot_free(got);
    placer_etcd_config_free(c);
    CHECK_EQ(placer_etcd_config_set_user(NULL, "u", "p"), PLACER_ENULL);
    c = config(cl->endpoints, NULL, NULL);
    CHECK_EQ(placer_etcd_config_set_user(c, "", "p"), PLACER_EINVAL);
    CHECK_EQ(placer_etcd_config_set_user(c, "u", ""), PLACER_EINVAL);
    placer_etcd_config_free(c);
}

static void write_snap(const char *path, uint64_t epoch)
{
    placer_snapshot *s = tu_ring(epoch, 4);
    void *buf;
    size_t len;
    CHECK_EQ(placer_snapshot_encode(s, &buf, &len), 0);
    placer_snapshot_free(s);
    FILE *fp = fopen(path, "wb");
    CHECK(fp && fwrite(buf, 1, len, fp) == len);
    if (fp)
        fclose(fp);
    placer_buffer_free(buf);
}

static void cli(const char *placer, const etcd_cluster *cl)
{
    if (!placer)
        return;
    char snap[300], wpw[300], bad[300];
    snprintf(snap, sizeof snap, "%s/e3.snap", cl->dir);
    snprintf(wpw, sizeof wpw, "%s/writer.pw", cl->dir);
    snprintf(bad, sizeof bad, "%s/bad.pw", cl->dir);
    char snap4[300];
    snprintf(snap4, sizeof snap4, "%s/e4.snap", cl->dir);
    write_snap(snap, 3);
    write_snap(snap4, 4);
    FILE *fp = fopen(wpw, "w");
    CHECK(fp && fputs("w pw\"1\n", fp) >= 0);
    if (fp)
        fclose(fp);
    chmod(wpw, 0600);
    fp = fopen(bad, "w");
    CHECK(fp && fputs("wrong\n", fp) >= 0);
    if (fp)
        fclose(fp);
    const char *e = cl->endpoints;
    CHECK_EQ(tu_sh("%s publish --etcd %s --key %s --user writer --password-file %s %s >/dev/null",
                   placer, e, KEY, wpw, snap), 0);
    CHECK_EQ(tu_sh("PLACER_ETCD_PASSWORD=r-pw %s watch --etcd %s --key %s --user reader --count 1 --seconds 20 2>/dev/null | grep -qx 'accepted epoch 3'",
                   placer, e, KEY), 0);
    CHECK_EQ(tu_sh("%s publish --etcd %s --key %s --user writer --password-file %s %s 2>/dev/null",
                   placer, e, KEY, bad, snap), 3);
    CHECK_EQ(tu_sh("%s publish --etcd %s --key %s --user writer --password-file %s %s 2>&1 | grep -q 'authentication failed'",
                   placer, e, KEY, bad, snap), 0);
    CHECK_EQ(tu_sh("PLACER_ETCD_PASSWORD=r-pw %s publish --etcd %s --key %s --user reader %s 2>&1 | grep -q 'permission denied'",
                   placer, e, KEY, snap4), 0);
    CHECK_EQ(tu_sh("PLACER_ETCD_PASSWORD=r-pw %s publish --etcd %s --key %s --user reader %s 2>/dev/null",
                   placer, e, KEY, snap4), 3);
    CHECK_EQ(tu_sh("%s publish --etcd %s --key %s %s 2>/dev/null", placer, e, KEY, snap4), 3);
    CHECK_EQ(tu_sh("PLACER_ETCD_PASSWORD=wrong %s watch --etcd %s --key %s --user reader --seconds 5 2>/dev/null",
                   placer, e, KEY), 3);
    CHECK_EQ(tu_sh("env -u PLACER_ETCD_PASSWORD %s publish --etcd %s --key %s --user writer %s 2>/dev/null",
                   placer, e, KEY, snap), 1);
}

int main(int argc, char **argv)
{
    if (!etcd_available()) {
        printf("etcd_auth: etcd or etcdctl not installed, skipped\n");
        return 77;
    }
    etcd_options o = {.extra = {"--auth-token", "simple", "--auth-token-ttl", "1"}};
    etcd_cluster c;
    int up = etcd_start_with(&c, 1, &o) == 0 && setup_auth(&c) == 0;
    CHECK(up);
    if (up) {
        right_credentials(&c);
        refused(&c);
        cli(argc > 1 ? argv[1] : NULL, &c);
    }
    etcd_destroy(&c);
    return check_done("etcd_auth");
}
