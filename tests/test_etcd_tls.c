/*
 * test_etcd_tls.c -- etcd over TLS with client certificates, against a real
 * member started with --client-cert-auth, and certificates made here with
 * openssl (a CA, the member's certificate for 127.0.0.1, a client
 * certificate; and a second CA with its own client certificate, which the
 * member must refuse). Exit 77 when etcd or openssl is missing.
 *   1. the right CA and client certificate: publish, fetch and a follower
 *      work (C API);
 *   2. no client certificate, a client certificate from the other CA, no
 *      CA (the member's certificate unverifiable), a CA file that is not
 *      one: each fails with PLACER_EAUTH and a reason, without waiting for
 *      the timeout; a missing file is refused when the config is made;
 *   3. placer publish and watch with --cacert --cert --cert-key: exit 0;
 *      without --cert: exit 3 and a reason.
 */
#include <string.h>

#include "check.h"
#include "etcd_harness.h"
#include "etcd_test_util.h"

#define KEY "/tls/ring"

static char dir[64], ca[128], server[128], server_key[128], client[128], client_key[128],
    rogue[128], rogue_key[128];

/* CA NAME, then a leaf signed by it: openssl, EC P-256 (fast to make). */
static int make_certs(void)
{
    snprintf(ca, sizeof ca, "%s/ca.pem", dir);
    snprintf(server, sizeof server, "%s/server.pem", dir);
    snprintf(server_key, sizeof server_key, "%s/server.key", dir);
    snprintf(client, sizeof client, "%s/client.pem", dir);
    snprintf(client_key, sizeof client_key, "%s/client.key", dir);
    snprintf(rogue, sizeof rogue, "%s/rogue.pem", dir);
    snprintf(rogue_key, sizeof rogue_key, "%s/rogue.key", dir);
    return tu_sh(
        "set -e; cd %s; exec >openssl.log 2>&1; ec='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'\n"
        "for c in ca rogue-ca; do openssl req -x509 $ec -keyout $c.key -out $c.pem -days 2 -subj /CN=placer-test-$c; done\n"
        "printf 'subjectAltName=IP:127.0.0.1\\nextendedKeyUsage=serverAuth,clientAuth\\n' > server.ext\n"
        "printf 'extendedKeyUsage=clientAuth\\n' > client.ext\n"
        "openssl req $ec -keyout server.key -out server.csr -subj /CN=127.0.0.1\n"
        "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile server.ext\n"
        "openssl req $ec -keyout client.key -out client.csr -subj /CN=placer-client\n"
        "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 2 -extfile client.ext\n"
        "openssl req $ec -keyout rogue.key -out rogue.csr -subj /CN=placer-client\n"
        "openssl x509 -req -in rogue.csr -CA rogue-ca.pem -CAkey rogue-ca.key -CAcreateserial -out rogue.pem -days 2 -extfile client.ext\n",
        dir) == 0 ? 0 : -1;
}

static placer_etcd_config *config(const char *endpoints, const char *cacert, const char *cert,
                                  const char *key, long timeout_ms)
{
    placer_etcd_config *c = NULL;
    char why[300] = "";
    CHECK_EQ(placer_etcd_config_new(endpoints, timeout_ms, &c), 0);
    if (c && (cacert || cert) && placer_etcd_config_set_tls(c, cacert, cert, key, why, sizeof why))
        fprintf(stderr, "set_tls: %s\n", why);
    return c;
}

static void right_credentials(const etcd_cluster *cl)
{
    placer_etcd_config *c = config(cl->endpoints, ca, client, client_key, 5000);
    placer_follower *f = NULL;
    CHECK_EQ(placer_follower_start_ex(c, KEY, NULL, NULL, NULL, &f), 0);
    char why[300] = "";
    for (uint64_t epoch = 1; epoch <= 3; epoch++) {
        placer_snapshot *s = tu_ring(epoch, 4);
        int err = placer_etcd_publish_ex(c, KEY, s, NULL, why, sizeof why);
        if (err)
            fprintf(stderr, "publish over TLS: %s: %s\n", placer_strerror(err), why);
        CHECK_EQ(err, 0);
        placer_snapshot_free(s);
        CHECK(tu_wait_epoch(f, epoch, 10));
    }
    placer_follower_stop(f);
    placer_snapshot *got = NULL;
    CHECK_EQ(placer_etcd_fetch_ex(c, KEY, &got, why, sizeof why), 0);
    CHECK(got && placer_snapshot_epoch(got) == 3);
    placer_snapshot_free(got);
    placer_etcd_config_free(c);
}

static void refused(const etcd_cluster *cl)
{
    char bogus[160];
    snprintf(bogus, sizeof bogus, "%s/server.ext", dir); /* readable, not a CA */
    struct {
        const char *what, *cacert, *cert, *key;
    } cases[] = {
        {"no client certificate", ca, NULL, NULL},
        {"a client certificate from another CA", ca, rogue, rogue_key},
        {"no CA for the member's certificate", NULL, client, client_key},
        {"a CA file that holds no certificate", bogus, client, client_key},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        placer_etcd_config *c = config(cl->endpoints, cases[i].cacert, cases[i].cert, cases[i].key, 8000);
        char why[300] = "";
        placer_snapshot *s = tu_ring(100, 4), *got = NULL;
        double t0 = tu_now();
        int err = placer_etcd_publish_ex(c, KEY, s, NULL, why, sizeof why);
        double took = tu_now() - t0;
        fprintf(stderr, "%s: %s: %s (%.2f s)\n", cases[i].what, placer_strerror(err), why, took);
        CHECK_EQ(err, PLACER_EAUTH);
        CHECK(strstr(why, "TLS") != NULL);
        CHECK(took < 4); /* refused at once, not retried until the timeout */
        CHECK_EQ(placer_etcd_fetch_ex(c, KEY, &got, why, sizeof why), PLACER_EAUTH);
        placer_snapshot_free(s);
        placer_etcd_config_free(c);
    }
    /* files that cannot be read are refused when the config is made */
    placer_etcd_config *c = config(cl->endpoints, NULL, NULL, NULL, 1000);
    char why[300] = "";
    CHECK_EQ(placer_etcd_config_set_tls(c, "/nonexistent/ca.pem", NULL, NULL, why, sizeof why), PLACER_EINVAL);
    CHECK(strstr(why, "/nonexistent/ca.pem") != NULL);
    CHECK_EQ(placer_etcd_config_set_tls(c, ca, client, NULL, why, sizeof why), PLACER_EINVAL);
    placer_etcd_config_free(c);
}

static void cli(const char *placer, const etcd_cluster *cl)
{
    if (!placer)
        return;
    placer_snapshot *s = tu_ring(20, 4);
    void *buf;
    size_t len;
    CHECK_EQ(placer_snapshot_encode(s, &buf, &len), 0);
    placer_snapshot_free(s);
    char path[160];
    snprintf(path, sizeof path, "%s/e20.snap", dir);
    FILE *fp = fopen(path, "wb");
    CHECK(fp && fwrite(buf, 1, len, fp) == len);
    if (fp)
        fclose(fp);
    placer_buffer_free(buf);
    CHECK_EQ(tu_sh("%s publish --etcd %s --key %s --cacert %s --cert %s --cert-key %s %s >/dev/null",
                   placer, cl->endpoints, KEY, ca, client, client_key, path), 0);
    CHECK_EQ(tu_sh("%s watch --etcd %s --key %s --cacert %s --cert %s --cert-key %s --count 1 --seconds 20 2>/dev/null | grep -qx 'accepted epoch 20'",
                   placer, cl->endpoints, KEY, ca, client, client_key), 0);
    CHECK_EQ(tu_sh("%s publish --etcd %s --key %s --cacert %s %s 2>/dev/null", placer,
                   cl->endpoints, KEY, ca, path), 3);
    CHECK_EQ(tu_sh("%s publish --etcd %s --key %s --cacert %s %s 2>&1 | grep -q 'PLACER_EAUTH.*TLS'",
                   placer, cl->endpoints, KEY, ca, path), 0);
    CHECK_EQ(tu_sh("%s watch --etcd %s --key %s --cacert %s --seconds 5 2>/dev/null", placer,
                   cl->endpoints, KEY, ca), 3);
    CHECK_EQ(tu_sh("%s publish --etcd %s --key %s --cacert %s --cert %s %s 2>/dev/null", placer,
                   cl->endpoints, KEY, ca, client, path), 1); /* --cert without --cert-key */
}

int main(int argc, char **argv)
{
    if (!etcd_available() || tu_sh("command -v openssl >/dev/null") != 0) {
        printf("etcd_tls: etcd, etcdctl or openssl not installed, skipped\n");
        return 77;
    }
    snprintf(dir, sizeof dir, "/tmp/placer-tls-XXXXXX");
    if (!mkdtemp(dir) || make_certs()) {
        fprintf(stderr, "etcd_tls: could not make the certificates in %s\n", dir);
        return 1;
    }
    etcd_options o = {.server_cert = server, .server_key = server_key, .trusted_ca = ca,
                      .client_ca = ca, .client_cert = client, .client_key = client_key};
    etcd_cluster c;
    int up = etcd_start_with(&c, 1, &o) == 0;
    CHECK(up);
    if (up) {
        right_credentials(&c);
        refused(&c);
        cli(argc > 1 ? argv[1] : NULL, &c);
    }
    etcd_destroy(&c);
    tu_sh("rm -rf '%s'", dir);
    return check_done("etcd_tls");
}
