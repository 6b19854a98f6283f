/*
 * test_compat_sizes.c -- a compat layout's size known from the weights
 * alone (plc_compat_layout_size), and what it bounds:
 *   - it is the built layout's size, exactly (nginx's ring: at least), on
 *     random pools of every program and distribution;
 *   - nginx's ring, made without the points a later copy of a server (same
 *     CRC start) would repeat, is the ring of the former code (every
 *     server's 160 x weight points, sorted, repeats dropped), kept here;
 *   - twemproxy pools of 25,576 .. 26,214 servers build (164 points a
 *     server were reserved, 160 used), and past the cap the build
 *     says why;
 *   - a forged snapshot whose weights ask for more than it lists is refused
 *     before anything is rebuilt: the decoder's work is the size it
 *     checked, counted here, not timed (docs/FORMAT.md).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codec_format.h"
#include "encoded_section.h"
#include "compat.h"
#include "placer.h"

typedef struct pt {
    uint32_t v, owner, seq;
} pt;

static int by_value(const void *x, const void *y)
{
    const pt *a = x, *b = y;
    if (a->v != b->v)
        return a->v < b->v ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* The former build_nginx_consistent() and its sort and drop, verbatim in
 * effect: every server's whole chain. */
static uint32_t old_nginx(const plc_compat_config *c, uint32_t **points, uint32_t **owners)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < c->nnodes; i++)
        total += 160u * (uint64_t)c->nodes[i].weight;
    pt *v = malloc(sizeof *v * total);
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        const char *s = c->nodes[i].address;
        size_t len = c->nodes[i].address_len, host = len, port = len;
        for (size_t j = 0; j < len; j++) {
            char ch = s[len - j - 1];
            if (ch == ':') {
                host = len - j - 1;
                port = len - j;
                break;
            }
            if (ch < '0' || ch > '9')
                break;
        }
        uint32_t base = placer_crc32(0, s, host);
        base = placer_crc32(base, "", 1);
        base = placer_crc32(base, s + port, len - port);
        uint32_t prev = 0;
        for (uint64_t j = 0; j < 160u * (uint64_t)c->nodes[i].weight; j++) {
            unsigned char le[4] = {(unsigned char)prev, (unsigned char)(prev >> 8),
                                   (unsigned char)(prev >> 16), (unsigned char)(prev >> 24)};
            uint32_t h = placer_crc32(base, le, 4);
            v[n] = (pt){h, i, n};
            n++;
            prev = h;
        }
    }
    qsort(v, n, sizeof *v, by_value);
    uint32_t k = 0;
    for (uint32_t j = 1; j < n; j++)
        if (v[k].v != v[j].v)
            v[++k] = v[j];
    n = k + 1;
    *points = malloc(sizeof **points * n);
    *owners = malloc(sizeof **owners * n);
    for (uint32_t j = 0; j < n; j++) {
        (*points)[j] = v[j].v;
        (*owners)[j] = v[j].owner;
    }
    free(v);
    return n;
}

static char addr[400][32], names[400][32];

static void nginx_copies(void)
{
    uint64_t st = 7;
    for (int round = 0; round < 60; round++) {
        uint32_t count = 1 + (uint32_t)(check_rand(&st) % 40);
        uint32_t distinct = 1 + (uint32_t)(check_rand(&st) % count); /* copies of a few */
        plc_compat_node n[40];
        for (uint32_t i = 0; i < count; i++) {
            snprintf(addr[i], sizeof addr[i], "10.0.0.%u:%u", (uint32_t)(check_rand(&st) % distinct),
                     8080u);
            n[i] = (plc_compat_node){"x", 1, addr[i], strlen(addr[i]),
                                     1 + (uint32_t)(check_rand(&st) % 6), 0, 0};
        }
        plc_compat_config c = {PLACER_COMPAT_NGINX, PLC_CD_CONSISTENT, 0, 0, {0, 0}, count, n, NULL, 0, {0}};
        plc_compat_layout l;
        CHECK_EQ(plc_compat_layout_build(&c, &l), 0);
        uint32_t *p, *o;
        uint32_t k = old_nginx(&c, &p, &o);
        CHECK_EQ(l.n, k);
        CHECK_ALL(l.n == k && memcmp(l.points, p, 4 * (size_t)k) == 0 &&
                      memcmp(l.owners, o, 4 * (size_t)k) == 0,
                  "nginx ring with copies == the former code's");
        uint64_t size = 0;
        CHECK_EQ(plc_compat_layout_size(&c, &size), 0);
        CHECK(size >= l.n && size - l.n <= 2); /* only chains meeting: rare */
        free(p);
        free(o);
        plc_compat_layout_free(&l);
    }
}

/* Every program and distribution: the size from the weights is the size built. */
static void sizes_exact(void)
{
    static const int modes[][2] = {
        {PLACER_COMPAT_LIBMEMCACHED, PLC_CD_KETAMA_WEIGHTED}, {PLACER_COMPAT_LIBMEMCACHED, PLC_CD_KETAMA},
        {PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA},             {PLACER_COMPAT_TWEMPROXY, PLC_CD_MODULA},
        {PLACER_COMPAT_NGINX, PLC_CD_CONSISTENT},             {PLACER_COMPAT_NGINX, PLC_CD_HASH},
        {PLACER_COMPAT_HAPROXY, PLC_CD_CONSISTENT},           {PLACER_COMPAT_HAPROXY, PLC_CD_MAP_BASED},
        {PLACER_COMPAT_REDIS, 0},
    };
    uint64_t st = 11;
    long checked = 0;
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        for (int round = 0; round < 40; round++) {
            uint32_t count = 1 + (uint32_t)(check_rand(&st) % 300);
            uint32_t wmax = 1 + (uint32_t)(check_rand(&st) % (round % 2 ? 3 : 200));
            plc_compat_node n[300];
            for (uint32_t i = 0; i < count; i++) {
                snprintf(addr[i], sizeof addr[i], "10.1.%u.%u:%u", i / 200, i % 200, 11211 + i % 2);
                snprintf(names[i], sizeof names[i], "cache-%u", i);
                n[i] = (plc_compat_node){names[i], strlen(names[i]), addr[i], strlen(addr[i]),
                                         1 + (uint32_t)(check_rand(&st) % wmax), 0, 0};
            }
            plc_compat_config c = {modes[m][0], modes[m][1], 0, 0, {0, 0}, count, n, NULL, 0, {0}};
            plc_compat_layout l;
            uint64_t size = 0;
            int rs = plc_compat_layout_size(&c, &size), rb = plc_compat_layout_build(&c, &l);
            if (rb == PLACER_ETOOMANY) {
                CHECK(rs == 0 && size > PLACER_MAX_COMPAT_POINTS);
                continue;
            }
            CHECK_EQ(rs, rb);
            if (!rb) {
                if (modes[m][0] == PLACER_COMPAT_NGINX && modes[m][1] == PLC_CD_CONSISTENT) {
                    /* chains meet: about size^2 / 2^33 equal points */
                    double meet = (double)size * (double)size / 8589934592.0;
                    CHECK(size >= l.n && (double)(size - l.n) <= 2 * meet + 8);
                    if (size - l.n > 2 * meet + 8)
                        fprintf(stderr, "nginx: size %llu, built %u\n", (unsigned long long)size, l.n);
                }
                else
                    CHECK_EQ(size, l.n);
                checked++;
            }
            plc_compat_layout_free(&l);
        }
    }
    printf("compat_sizes: %ld layouts, their size known from the weights\n", checked);
    CHECK(checked > 300);
}

static placer_builder *twemproxy_pool(uint32_t servers)
{
    placer_builder *b = placer_builder_new();
    for (uint32_t i = 0; i < servers; i++) {
        char id[32];
        snprintf(id, sizeof id, "s%u", i);
        if (placer_builder_add_node(b, id, NULL, 1) < 0)
            break;
    }
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_TWEMPROXY, NULL), 0);
    return b;
}

/* The cap: 26,214 servers x 160 points fit in 2^22; 26,215 do not. */
static void twemproxy_cap(void)
{
    placer_builder *b = twemproxy_pool(26214);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK_EQ(placer_token_count(s), 26214u * 160u);
    placer_snapshot_free(s);
    placer_builder_free(b);
    b = twemproxy_pool(26215);
    s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_ETOOMANY);
    CHECK(s == NULL);
    const char *why = placer_builder_error(b);
    CHECK(strstr(why, "4194400 points") && strstr(why, "PLACER_MAX_COMPAT_POINTS"));
    if (!strstr(why, "4194400"))
        fprintf(stderr, "compat_sizes: said \"%s\"\n", why);
    placer_builder_free(b);
}

/* An honest snapshot of `nodes` servers of weight 1, then every weight set
 * to w[i % 2] and the checksum made right, as a forger would. */
static void forge(int program, const char *dist, uint32_t nodes, const double w[2],
                  const char *want_why, const char *what)
{
    placer_builder *b = placer_builder_new();
    for (uint32_t i = 0; i < nodes; i++) {
        char id[32], a[32];
        snprintf(id, sizeof id, "s%u", i);
        snprintf(a, sizeof a, "10.2.%u.%u:80", i / 250, i % 250);
        placer_builder_add_node(b, id, NULL, 1);
        placer_builder_set_address(b, i, a);
    }
    placer_compat_options o = {.size = sizeof o, .distribution = dist};
    CHECK_EQ(placer_builder_set_compat(b, program, &o), 0);
    placer_snapshot *s = NULL, *d = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    unsigned char *buf = NULL;
    size_t len = 0;
    CHECK_EQ(placer_snapshot_encode(s, (void **)&buf, &len), 0);
    uint64_t n = 0;
    unsigned char *rec = encoded_section(buf, PLC_SEC_NODES, &n);
    CHECK(rec != NULL);
    for (uint64_t i = 0; rec && i < n; i++) /* the file's byte order, not the host's */
        plc_wr_double(rec + i * PLC_FMT_NODE, w[i % 2]);
    plc_wr32(buf + PLC_H_CRC, plc_fmt_crc(buf, len));
    char why[256] = "";
    CHECK_EQ(placer_snapshot_decode_ex(buf, len, &d, why, sizeof why), PLACER_ECORRUPT);
    CHECK(d == NULL);
    CHECK_ALL(strstr(why, want_why) != NULL, what);
    printf("compat_sizes: %s, %zu bytes: \"%s\"\n", what, len, why);
    placer_buffer_free(buf);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

static void forged(void)
{
    /* the forged file: 10,000 haproxy servers of weights 255 and 256 in a
     * map-based snapshot of 10,000 slots (129 s before: now refused by
     * the size, 2,555,000 slots, before the map is filled) */
    forge(PLACER_COMPAT_HAPROXY, "map-based", 10000, (const double[2]){256, 255},
          "make 2555000 points or slots; the file lists 10000", "haproxy map-based 10,000 x 255/256");
    forge(PLACER_COMPAT_HAPROXY, "consistent", 2000, (const double[2]){256, 256},
          "make 16384000 points", "haproxy consistent 2,000 x 256");
    forge(PLACER_COMPAT_NGINX, "consistent", 1, (const double[2]){26214, 26214},
          "make up to 4194240 points or slots; the file lists 160", "nginx 1 server of weight 26,214");
    forge(PLACER_COMPAT_NGINX, "hash", 3, (const double[2]){1000000, 1},
          "make 2000001 points or slots; the file lists 3", "nginx hash 3 servers");
    forge(PLACER_COMPAT_TWEMPROXY, "modula", 3, (const double[2]){4000000, 1},
          "make 8000001 points", "twemproxy modula 3 servers");
    /* ketama: weights do not change the count by much (160 a server) */
    forge(PLACER_COMPAT_LIBMEMCACHED, "ketama_weighted", 100, (const double[2]){1000, 1},
          "make 15800 points or slots; the file lists 15600", "libmemcached ketama 100 servers reweighted");
}

/* Honest snapshots of every program and distribution, weights sharing a
 * common divisor (haproxy's map is total weight / gcd slots) or not,
 * decode: the decoder's one bound (what the file lists; nginx's ring
 * twice that + 4,096) is what the layout builder reserves and makes. */
static void honest_decode(void)
{
    static const struct {
        int program;
        const char *dist;
    } modes[] = {
        {PLACER_COMPAT_LIBMEMCACHED, "ketama_weighted"}, {PLACER_COMPAT_LIBMEMCACHED, "ketama"},
        {PLACER_COMPAT_TWEMPROXY, "ketama"},             {PLACER_COMPAT_TWEMPROXY, "modula"},
        {PLACER_COMPAT_NGINX, "consistent"},             {PLACER_COMPAT_NGINX, "hash"},
        {PLACER_COMPAT_HAPROXY, "consistent"},           {PLACER_COMPAT_HAPROXY, "map-based"},
    };
    static const double weights[][3] = {{2, 4, 6}, {3, 3, 3}, {1, 2, 3}, {10, 20, 30}, {7, 7, 14}};
    int decoded = 0;
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
        for (size_t w = 0; w < sizeof weights / sizeof weights[0]; w++) {
            placer_builder *b = placer_builder_new();
            for (uint32_t i = 0; i < 7; i++) {
                char id[32], a[32];
                snprintf(id, sizeof id, "s%u", i);
                snprintf(a, sizeof a, "10.3.0.%u:80", i);
                placer_builder_add_node(b, id, NULL, weights[w][i % 3]);
                placer_builder_set_address(b, i, a);
            }
            placer_compat_options o = {.size = sizeof o, .distribution = modes[m].dist};
            CHECK_EQ(placer_builder_set_compat(b, modes[m].program, &o), 0);
            placer_snapshot *s = NULL, *d = NULL;
            CHECK_EQ(placer_builder_build(b, 1, &s), 0);
            void *buf = NULL;
            size_t len = 0;
            CHECK_EQ(placer_snapshot_encode(s, &buf, &len), 0);
            char why[256] = "";
            int rc = placer_snapshot_decode_ex(buf, len, &d, why, sizeof why);
            CHECK_ALL(rc == 0, "an honest compat snapshot decodes");
            if (rc)
                fprintf(stderr, "compat_sizes: %s weights %g/%g/%g: %s (%s)\n", modes[m].dist,
                        weights[w][0], weights[w][1], weights[w][2], placer_strerror(rc), why);
            decoded += rc == 0;
            placer_snapshot_free(d);
            placer_buffer_free(buf);
            placer_snapshot_free(s);
            placer_builder_free(b);
        }
    printf("compat_sizes: %d honest snapshots decoded under the one bound\n", decoded);
}

int main(void)
{
    honest_decode();
    nginx_copies();
    sizes_exact();
    twemproxy_cap();
    forged();
    return check_done("compat_sizes");
}
