/*
 * compat_place.c -- the placer side of tests/compat_programs.py: read a
 * compatibility configuration and keys on stdin, print each key's owner
 * (node index, in declaration order) on stdout.
 *
 *   program twemproxy            (libmemcached, twemproxy, nginx, haproxy, redis)
 *   distribution ketama          (optional)
 *   hash md5                     (optional)
 *   avalanche 1                  (optional, haproxy)
 *   hash_tag {}                  (optional, twemproxy)
 *   node ID ADDRESS WEIGHT HASH_ID   (one a line; "-" for an empty id or address)
 *   slots FIRST LAST NODE        (optional, redis)
 *   keys
 *   HEX-ENCODED KEY              (one a line)
 *
 * In place of "keys", "table" prints a table layout's owners, one a line
 * (Redis: the owner of each slot).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "placer.h"

#define MAX_NODES 64

static int unhex(const char *s, unsigned char *out, size_t *len)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    if (n % 2)
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

int main(void)
{
    static char line[8192];
    static char ids[MAX_NODES][256], addrs[MAX_NODES][256];
    static uint32_t slots[PLC_REDIS_SLOTS];
    plc_compat_node nodes[MAX_NODES];
    plc_compat_config c = {0};
    int have_slots = 0, dump = 0;
    while (fgets(line, sizeof line, stdin)) {
        char a[256] = "", b[256] = "";
        unsigned w = 0, hid = 0, first, last, node;
        if (sscanf(line, "hash_tag %2s", a) == 1) {
            c.hash_tag[0] = a[0];
            c.hash_tag[1] = a[1];
        } else if (sscanf(line, "program %255s", a) == 1) {
            c.program = plc_compat_program_id(a);
        } else if (sscanf(line, "distribution %255s", a) == 1) {
            c.distribution = plc_compat_distribution_id(a);
        } else if (sscanf(line, "hash %255s", a) == 1) {
            c.key_hash = plc_compat_hash_id(c.program, a);
            if (!c.key_hash) {
                fprintf(stderr, "unknown hash %s\n", a);
                return 2;
            }
        } else if (sscanf(line, "avalanche %u", &w) == 1) {
            c.avalanche = (int)w;
        } else if (sscanf(line, "node %255s %255s %u %u", a, b, &w, &hid) == 4) {
            if (c.nnodes == MAX_NODES)
                return 2;
            uint32_t i = c.nnodes++;
            snprintf(ids[i], sizeof ids[i], "%s", strcmp(a, "-") ? a : "");
            snprintf(addrs[i], sizeof addrs[i], "%s", strcmp(b, "-") ? b : "");
            nodes[i] = (plc_compat_node){ids[i], strlen(ids[i]), addrs[i], strlen(addrs[i]), w, hid};
        } else if (sscanf(line, "slots %u %u %u", &first, &last, &node) == 3) {
            if (first > last || last >= PLC_REDIS_SLOTS)
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
    c.nodes = nodes;
    c.slot_owner = have_slots ? slots : NULL;
    plc_compat_layout l;
    int rc = plc_compat_layout_build(&c, &l);
    if (rc) {
        fprintf(stderr, "compat_place: %s\n", placer_strerror(rc));
        return 1;
    }
    if (dump) {
        for (uint32_t i = 0; l.kind == PLC_CL_TABLE && i < l.n; i++)
            printf("%u\n", l.owners[i]);
        plc_compat_layout_free(&l);
        return 0;
    }
    static unsigned char key[4096];
    while (fgets(line, sizeof line, stdin)) {
        size_t len;
        if (unhex(line, key, &len)) {
            fprintf(stderr, "compat_place: bad key line\n");
            return 2;
        }
        printf("%u\n", plc_compat_lookup(&l, key, len));
    }
    plc_compat_layout_free(&l);
    return 0;
}
