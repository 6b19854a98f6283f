/*
 * test_key_rule.c -- the programs' key rules (engine/compat/key_rule.c,
 * compat_key_rule.c): haproxy 2.6's request -> key for source, uri (every
 * option, origin- and absolute-form), url_param and hdr() against vectors
 * worked out by hand from backend.c; the rule's words parsed and written
 * back; the builder's checks; the codec's round trip, a snapshot without a
 * rule, and forged rule fields refused. tests/compat_programs.py proves the
 * same rules against the real haproxy.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codec_format.h"
#include "encoded_section.h"
#include "key_rule.h"
#include "placer.h"

/* The key a rule makes of `in`, as a C string ("<none>" when none). */
static const char *apply(const char *rule, const char *in)
{
    static char out[512];
    plc_key_rule r;
    char why[200];
    if (plc_key_rule_parse(rule, &r, why, sizeof why)) {
        fprintf(stderr, "key_rule: \"%s\": %s\n", rule, why);
        return "<bad rule>";
    }
    unsigned char addr[16];
    const unsigned char *k;
    size_t n;
    if (plc_key_rule_apply(&r, (const unsigned char *)in, strlen(in), addr, &k, &n))
        return "<none>";
    if (r.kind == PLC_KR_SOURCE) { /* the address bytes as hex */
        for (size_t i = 0; i < n; i++)
            snprintf(out + 2 * i, 3, "%02x", k[i]);
        return out;
    }
    memcpy(out, k, n);
    out[n] = '\0';
    return out;
}

#define KEY(rule, in, want) CHECK(!strcmp(apply(rule, in), want))

static void vectors(void)
{
    /* source: the address's bytes in network order (get_server_sh) */
    KEY("source", "10.1.2.3", "0a010203");
    KEY("source", "127.0.0.1", "7f000001");
    KEY("source", "2001:db8::7", "20010db8000000000000000000000007");
    KEY("source", "::ffff:10.1.2.3", "00000000000000000000ffff0a010203");
    KEY("source", "10.1.2", "<none>");
    KEY("source", "10.1.2.3 ", "<none>");
    KEY("source", "host.example", "<none>");
    KEY("source", "", "<none>");
    /* uri (get_server_uh): up to '?' unless whole */
    KEY("uri", "/a/b?x=1", "/a/b");
    KEY("uri", "/a/b?y=2", "/a/b");
    KEY("uri whole", "/a/b?x=1", "/a/b?x=1");
    KEY("uri", "/", "/");
    KEY("uri", "?q", "");
    /* depth N: before the (N+1)-th '/' */
    KEY("uri depth 2", "/a/b/c?x", "/a/b");
    KEY("uri depth 1", "/a/b/c", "/a");
    KEY("uri depth 2", "/a?b/c/d", "/a");
    KEY("uri depth 2 whole", "/a?b/c/d", "/a?b/c");
    KEY("uri depth 3", "/a/b", "/a/b");
    /* len N: the first N bytes, before depth and '?' are looked for */
    KEY("uri len 3", "/abcdef", "/ab");
    KEY("uri len 6 whole", "/ab?cdef", "/ab?cd");
    KEY("uri len 4 depth 1", "/a/bc", "/a");
    /* absolute-form: hashed whole unless path-only */
    KEY("uri", "http://h.example:8080/a/b?x", "http://h.example:8080/a/b");
    KEY("uri depth 2", "http://h/a/b", "http://h");
    KEY("uri path-only", "http://h.example:8080/a/b?x", "/a/b");
    KEY("uri path-only", "/a/b?x", "/a/b");
    KEY("uri path-only whole", "https://u:p@h/a?x=1", "/a?x=1");
    KEY("uri path-only depth 1", "http://h/a/b", "/a");
    KEY("uri path-only len 3", "http://h/abc", "/ab");
    /* http_get_path finds no path: haproxy hashes "" */
    KEY("uri path-only", "http://h", "");
    KEY("uri path-only", "*", "");
    KEY("uri path-only", "http:/x", "");
    /* a target starting with a letter but no "://": no path either */
    KEY("uri path-only", "h/a", "");
    KEY("uri path-only", "1h/a", "/a");
    /* url_param (get_server_ph): the value of the first NAME= after '?' */
    KEY("url_param k", "/p?k=abc", "abc");
    KEY("url_param k", "/p?x=1&k=abc&k=2", "abc");
    KEY("url_param k", "/p?kk=1&k=v%20w", "v%20w");
    KEY("url_param k", "/p?k=", "");
    KEY("url_param k", "/p?k", "<none>");
    KEY("url_param k", "/p?x=1", "<none>");
    KEY("url_param k", "/p/k=1", "<none>");
    KEY("url_param k", "abc", "<none>");
    KEY("url_param k", "http://h/p?a=&k=z&", "z");
    KEY("url_param user_id", "/?user_id=42#frag", "42#frag");
    /* hdr() (get_server_hh): the first element, trimmed */
    KEY("hdr(X-Key)", "abc", "abc");
    KEY("hdr(X-Key)", "  a b , c", "a b");
    KEY("hdr(X-Key)", "\"a,b\",c", "\"a,b\"");
    KEY("hdr(X-Key)", "\"a\\\",b\",c", "\"a\\\",b\"");
    KEY("hdr(X-Key)", ",c", "<none>");
    KEY("hdr(X-Key)", " ", "<none>");
    KEY("hdr(X-Key)", "", "<none>");
    /* use_domain_only: between the last dot and the dot before it */
    KEY("hdr(Host) use_domain_only", "www.example.com", "example");
    KEY("hdr(Host) use_domain_only", "example.com", "example");
    KEY("hdr(Host) use_domain_only", "a.b.c.d", "c");
    KEY("hdr(Host) use_domain_only", "localhost", "localhost");
    KEY("hdr(Host) use_domain_only", "www.example.com:8080", "example");
    KEY("hdr(Host) use_domain_only", "example.com.", "com");
    KEY("hdr(Host) use_domain_only", ".com", ".com"); /* byte 0 is never read as a dot */
    KEY("hdr(Host) use_domain_only", "a..b", "a.");
    KEY("hdr(Host)", "www.example.com", "www.example.com");
    /* none: the bytes as given */
    KEY("", "/a/b?x", "/a/b?x");
    KEY("none", "x", "x");
}

static void words(void)
{
    static const char *const ok[][2] = {
        {"source", "source"},
        {"uri", "uri"},
        {"uri  depth 2\twhole", "uri whole depth 2"},
        {"uri len 10 path-only depth 3 whole", "uri whole path-only len 10 depth 3"},
        {"uri len 2147483647", "uri len 2147483647"},
        {"url_param user_id", "url_param user_id"},
        {"hdr(Host)", "hdr(Host)"},
        {"hdr(host) use_domain_only", "hdr(host) use_domain_only"},
        {"none", ""},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        plc_key_rule r;
        char why[200] = "", text[PLC_KEY_RULE_TEXT_MAX];
        CHECK_EQ(plc_key_rule_parse(ok[i][0], &r, why, sizeof why), 0);
        CHECK_EQ(plc_key_rule_check(&r, why, sizeof why), 0);
        plc_key_rule_format(&r, text, sizeof text);
        CHECK(!strcmp(text, ok[i][1]));
        plc_key_rule again; /* the canonical words parse to the same rule */
        CHECK_EQ(plc_key_rule_parse(text, &again, why, sizeof why), 0);
        CHECK(again.kind == r.kind && again.flags == r.flags && again.len == r.len &&
              again.depth == r.depth && !strcmp(again.name, r.name));
    }
    static const char *const bad[] = {
        "roundrobin", "source x", "uri depth", "uri depth 0", "uri depth -1", "uri len 2147483648",
        "uri len 1x", "uri depth 2 extra", "url_param", "url_param a b", "url_param a=b",
        "url_param a&b", "hdr()", "hdr(X Y)", "hdr(X-Key) use_domain", "hdr(X-Key) x", "HDR(x)",
        "none x", "url_param "
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        plc_key_rule r;
        char why[200] = "";
        CHECK_EQ(plc_key_rule_parse(bad[i], &r, why, sizeof why), PLACER_EINVAL);
        CHECK(why[0] != '\0');
    }
}

static placer_builder *haproxy(const char *key_hash)
{
    placer_builder *b = placer_builder_new();
    for (int i = 0; i < 5; i++) {
        char id[8];
        snprintf(id, sizeof id, "w%d", i + 1);
        placer_builder_add_node(b, id, NULL, 1 + i % 2);
    }
    placer_compat_options o = {.size = sizeof o, .distribution = "consistent",
                               .key_hash = key_hash, .avalanche = 1};
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_HAPROXY, &o), 0);
    return b;
}

static void builder(void)
{
    placer_builder *b = placer_builder_new();
    placer_builder_add_node(b, "a", NULL, 1);
    CHECK_EQ(placer_builder_set_key_rule(b, "uri"), PLACER_EINVAL); /* not haproxy */
    CHECK(strstr(placer_builder_error(b), "haproxy") != NULL);
    CHECK_EQ(placer_builder_set_key_rule(b, NULL), 0);
    CHECK_EQ(placer_builder_set_key_rule(NULL, "uri"), PLACER_ENULL);
    placer_builder_free(b);

    placer_snapshot *s = NULL;
    b = haproxy("sdbm");
    CHECK_EQ(placer_builder_set_key_rule(b, "uri depth x"), PLACER_EINVAL);
    CHECK(strstr(placer_builder_error(b), "depth") != NULL);
    CHECK_EQ(placer_builder_set_key_rule(b, "source"), 0);
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_EINVAL); /* source needs key hash source */
    CHECK(strstr(placer_builder_error(b), "source") != NULL);
    CHECK_EQ(placer_builder_set_key_rule(b, "uri depth 2"), 0);
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK(!strcmp(placer_snapshot_key_rule(s), "uri depth 2"));
    placer_snapshot_free(s);
    /* another mode clears the rule */
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_NGINX, NULL), 0);
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_HAPROXY, NULL), 0);
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK(!strcmp(placer_snapshot_key_rule(s), ""));
    placer_snapshot_free(s);
    placer_builder_free(b);

    b = haproxy("source");
    CHECK_EQ(placer_builder_set_key_rule(b, "url_param k"), 0);
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_EINVAL); /* the source hash reads addresses */
    CHECK(strstr(placer_builder_error(b), "source") != NULL);
    placer_builder_free(b);
    CHECK(placer_snapshot_key_rule(NULL) == NULL);
}

/* placer_key_from_request on a built snapshot: the same bytes as the rule,
 * owners equal to looking those bytes up, and its argument checks. */
static void public_call(void)
{
    placer_builder *b = haproxy("source");
    CHECK_EQ(placer_builder_set_key_rule(b, "source"), 0);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    unsigned char out[32];
    size_t n = 0;
    CHECK_EQ(placer_key_from_request(s, "10.1.2.3", 8, out, sizeof out, &n), 0);
    CHECK_EQ(n, 4);
    CHECK(!memcmp(out, "\x0a\x01\x02\x03", 4));
    CHECK_EQ(placer_key_from_request(s, "2001:db8::1", 11, out, 8, &n), PLACER_ERANGE);
    CHECK_EQ(n, 16);
    CHECK_EQ(placer_key_from_request(s, "nope", 4, out, sizeof out, &n), PLACER_EINVAL);
    CHECK_EQ(placer_key_from_request(s, NULL, 3, out, sizeof out, &n), PLACER_ENULL);
    CHECK_EQ(placer_key_from_request(s, "1", 1, NULL, 4, &n), PLACER_ENULL);
    CHECK_EQ(placer_key_from_request(s, "1", 1, out, sizeof out, NULL), PLACER_ENULL);
    CHECK_EQ(placer_key_from_request(NULL, "1", 1, out, sizeof out, &n), PLACER_ENULL);
    CHECK_EQ(placer_lookup(s, "\x0a\x01\x02\x03", 4), placer_lookup(s, out, 4) );
    placer_snapshot_free(s);
    placer_builder_free(b);

    b = haproxy("sdbm");
    CHECK_EQ(placer_builder_set_key_rule(b, "uri"), 0);
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    char buf[32] = "/a/b?x=1";
    CHECK_EQ(placer_key_from_request(s, buf, 8, buf, sizeof buf, &n), 0); /* in place */
    CHECK_EQ(n, 4);
    CHECK(!memcmp(buf, "/a/b", 4));
    CHECK_EQ(placer_key_from_request(s, NULL, 0, NULL, 0, &n), 0);
    CHECK_EQ(n, 0);
    placer_snapshot_free(s);
    placer_builder_free(b);

    /* no rule: the bytes unchanged */
    b = placer_builder_new();
    placer_builder_add_node(b, "a", NULL, 1);
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK(!strcmp(placer_snapshot_key_rule(s), ""));
    CHECK_EQ(placer_key_from_request(s, "/a?b", 4, out, sizeof out, &n), 0);
    CHECK(n == 4 && !memcmp(out, "/a?b", 4));
    placer_snapshot_free(s);
    placer_builder_free(b);
}

static void encoded(const char *key_hash, const char *rule, unsigned char **buf, size_t *len)
{
    placer_builder *b = haproxy(key_hash);
    CHECK_EQ(placer_builder_set_key_rule(b, rule), 0);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK_EQ(placer_snapshot_encode(s, (void **)buf, len), 0);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

/* Decode buf with field i of section 11 set to v (the checksum made right,
 * as a forger would): the error, the reason in why. */
static int forged(const unsigned char *buf, size_t len, uint32_t i, uint32_t v, char *why,
                  size_t cap)
{
    unsigned char *c = malloc(len);
    memcpy(c, buf, len);
    uint64_t n = 0;
    unsigned char *f = encoded_section(c, PLC_SEC_COMPAT, &n);
    plc_wr32(f + 4 * i, v);
    plc_wr32(c + PLC_H_CRC, plc_fmt_crc(c, len));
    placer_snapshot *d = NULL;
    why[0] = '\0';
    int rc = placer_snapshot_decode_ex(c, len, &d, why, cap);
    placer_snapshot_free(d);
    free(c);
    return rc;
}

static void codec(void)
{
    static const char *const rules[][2] = {
        {"sdbm", "uri whole path-only len 7 depth 3"}, {"source", "source"},
        {"djb2", "url_param user_id"}, {"crc32", "hdr(Host) use_domain_only"}, {"sdbm", ""},
    };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        unsigned char *buf = NULL;
        size_t len = 0;
        encoded(rules[i][0], rules[i][1], &buf, &len);
        placer_snapshot *d = NULL;
        CHECK_EQ(placer_snapshot_decode(buf, len, &d), 0);
        CHECK(d && !strcmp(placer_snapshot_key_rule(d), rules[i][1]));
        uint64_t n = 0;
        CHECK(encoded_section(buf, PLC_SEC_COMPAT, &n) != NULL);
        /* no rule: the 6 fields a snapshot had before rules existed */
        CHECK_EQ(n, *rules[i][1] ? 11 + (i == 2 ? 2 : i == 3 ? 1 : 0) : 6);
        unsigned char *again = NULL; /* bit-exact round trip */
        size_t again_len = 0;
        CHECK_EQ(placer_snapshot_encode(d, (void **)&again, &again_len), 0);
        CHECK(again_len == len && !memcmp(again, buf, len));
        placer_buffer_free(again);
        placer_snapshot_free(d);
        placer_buffer_free(buf);
    }

    /* forged fields: each refused with its reason, never a crash */
    unsigned char *buf = NULL;
    size_t len = 0;
    encoded("djb2", "url_param user_id", &buf, &len);
    static const uint32_t forgeries[][2] = {
        {6, 0},       /* no rule, yet its fields */
        {6, 9},       /* an unknown rule */
        {6, 1},       /* source, with a name */
        {6, 2},       /* uri with a name */
        {7, 1},       /* url_param with whole */
        {8, 5},       /* a len outside uri */
        {10, 0},      /* a name of 0 bytes in 2 words */
        {10, 9},      /* 9 bytes in 2 words */
        {10, 4000000000u},
        {11, 0x3d726573}, /* "ser=": '=' in the name */
        {11, 0x7265ff75}, /* a byte not in a name */
        {12, 0x7764695f}, /* a byte in the padding */
    };
    for (size_t i = 0; i < sizeof forgeries / sizeof forgeries[0]; i++) {
        char why[256];
        CHECK_EQ(forged(buf, len, forgeries[i][0], forgeries[i][1], why, sizeof why),
                 PLACER_ECORRUPT);
        CHECK(strstr(why, "compat") != NULL);
    }
    placer_buffer_free(buf);
    encoded("sdbm", "uri depth 2", &buf, &len);
    char why[256];
    CHECK_EQ(forged(buf, len, 9, 2147483648u, why, sizeof why), PLACER_ECORRUPT);
    CHECK_EQ(forged(buf, len, 9, 3, why, sizeof why), 0); /* a forged depth that is a depth */
    placer_buffer_free(buf);
}

int main(void)
{
    vectors();
    words();
    builder();
    public_call();
    codec();
    return check_done("key_rule");
}
