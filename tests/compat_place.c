/*
 * compat_place.c -- the placer side of tests/compat_programs.py: read a
 * compatibility configuration and keys on stdin, print each key's owner
 * (node index, in declaration order) on stdout. Everything goes through
 * the public API (placer_builder_set_compat, placer_lookup_batch), so the
 * real programs prove the path applications use.
 *
 *   program twemproxy            (libmemcached, twemproxy, nginx, haproxy, redis)
 *   distribution ketama          (optional)
 *   hash md5                     (optional)
 *   avalanche 1                  (optional, haproxy; -1: as haproxy parses hash-type)
 *   hash_tag {}                  (optional, twemproxy)
 *   node ID ADDRESS WEIGHT HASH_ID   (one a line; "-" for an empty id or address;
 *                                    Redis: weight 0 for none)
 *   slots FIRST LAST NODE        (optional, redis)
 *   keys
 *   HEX-ENCODED KEY              (one a line)
 *
 * In place of "keys", "table" prints a table layout's owners, one a line
 * (Redis: the owner of each slot). Each snapshot is also encoded and
 * decoded, and the decoded one answers: the codec is on the proven path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placer.h"

#define MAX_NODES 64
#define SLOTS 16384u
#define MAX_KEYS 200000

static int unhex(const char *s, unsigned char *out, size_t cap, size_t *len)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    if (n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (unsigned char)v;
    }
    *len = n / 2;
    return 0;
}

static int fail(const char *what, int rc, const placer_builder *b)
{
    fprintf(stderr, "compat_place: %s: %s %s\n", what, placer_strerror(rc),
            b ? placer_builder_error(b) : "");
    return 1;
}

/* The snapshot after a trip through the codec. */
static placer_snapshot *round_trip(placer_snapshot *s)
{
    void *buf;
    size_t len;
    placer_snapshot *d = NULL;
    char why[200];
    int rc = placer_snapshot_encode(s, &buf, &len);
    if (!rc && (rc = placer_snapshot_decode_ex(buf, len, &d, why, sizeof why)) != 0)
        fprintf(stderr, "compat_place: decode: %s (%s)\n", placer_strerror(rc), why);
    if (!rc)
        placer_buffer_free(buf);
    placer_snapshot_free(s);
    return d;
}

int main(void)
{
    static char line[8192];
    static char dist[64], hash[64], tag[8];
    static uint32_t slots[SLOTS];
    placer_compat_options opt = {.size = sizeof opt};
    placer_builder *b = placer_builder_new();
    int program = 0, have_slots = 0, dump = 0, av = 0;
    if (!b)
        return 1;
    while (fgets(line, sizeof line, stdin)) {
        char a[256] = "", addr[256] = "";
        unsigned w = 0, hid = 0, first, last, node;
        if (sscanf(line, "hash_tag %2s", tag) == 1) {
            opt.hash_tag = tag;
        } else if (sscanf(line, "program %255s", a) == 1) {
            program = placer_compat_from_name(a);
        } else if (sscanf(line, "distribution %63s", dist) == 1) {
            opt.distribution = dist;
        } else if (sscanf(line, "hash %63s", hash) == 1) {
            opt.key_hash = hash;
            if (!placer_compat_has_key_hash(program, hash)) {
                fprintf(stderr, "unknown hash %s\n", hash);
                return 2;
            }
        } else if (sscanf(line, "avalanche %d", &av) == 1) {
            opt.avalanche = av;
        } else if (sscanf(line, "node %255s %255s %u %u", a, addr, &w, &hid) == 4) {
            char id[300];
            uint32_t i = placer_builder_node_count(b);
            if (i == MAX_NODES)
                return 2;
            snprintf(id, sizeof id, "%s", strcmp(a, "-") ? a : "");
            if (!id[0]) /* a program that does not hash ids: any unique one */
                snprintf(id, sizeof id, "node-%u", i);
            int rc = placer_builder_add_node(b, id, NULL, w ? w : 1);
            if (rc < 0)
                return fail("add_node", rc, b);
            if (strcmp(addr, "-") && (rc = placer_builder_set_address(b, i, addr)) != 0)
                return fail("set_address", rc, b);
            if (hid && (rc = placer_builder_set_hash_id(b, i, hid)) != 0)
                return fail("set_hash_id", rc, b);
        } else if (sscanf(line, "slots %u %u %u", &first, &last, &node) == 3) {
            if (first > last || last >= SLOTS)
                return 2;
            for (unsigned s = first; s <= last; s++)
                slots[s] = node;
            have_slots = 1;
        } else if (strncmp(line, "keys", 4) == 0) {
            break;
        } else if (strncmp(line, "table", 5) == 0) {
            dump = 1;
            break;
        }
    }
    int rc = placer_builder_set_compat(b, program, &opt);
    if (!rc && have_slots)
        rc = placer_builder_set_partition_map(b, SLOTS, 1, slots, NULL);
    if (rc)
        return fail("set_compat", rc, b);
    placer_snapshot *s = NULL;
    if ((rc = placer_builder_build(b, 1, &s)) != 0)
        return fail("build", rc, b);
    placer_builder_free(b);
    if (!(s = round_trip(s)))
        return 1;
    if (dump) {
        const char *layout = placer_snapshot_layout_name(s);
        for (uint32_t i = 0; !strcmp(layout, "table") && i < placer_token_count(s); i++) {
            uint64_t token;
            uint32_t owner;
            placer_token_at(s, i, &token, &owner);
            printf("%u\n", owner);
        }
        placer_snapshot_free(s);
        return 0;
    }
    /* Every key at once, through the batch; each also checked alone. */
    const void **keys = malloc(sizeof *keys * MAX_KEYS);
    size_t *lens = malloc(sizeof *lens * MAX_KEYS);
    uint32_t *owners = malloc(sizeof *owners * MAX_KEYS);
    size_t n = 0;
    if (!keys || !lens || !owners)
        return 1;
    while (n < MAX_KEYS && fgets(line, sizeof line, stdin)) {
        unsigned char *key = malloc(sizeof line / 2);
        if (!key || unhex(line, key, sizeof line / 2, &lens[n])) {
            fprintf(stderr, "compat_place: bad key line\n");
            return 2;
        }
        keys[n++] = key;
    }
    placer_lookup_batch(s, keys, lens, n, owners);
    for (size_t i = 0; i < n; i++) {
        int one = placer_lookup(s, keys[i], lens[i]);
        if (one != (int)owners[i]) {
            fprintf(stderr, "compat_place: key %zu: placer_lookup %d, the batch %u\n", i, one,
                    owners[i]);
            return 1;
        }
        printf("%u\n", owners[i]);
    }
    for (size_t i = 0; i < n; i++)
        free((void *)keys[i]);
    free(keys);
    free(lens);
    free(owners);
    placer_snapshot_free(s);
    return 0;
}
