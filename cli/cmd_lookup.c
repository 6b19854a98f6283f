/* cmd_lookup.c -- `placer lookup FILE.snap KEY...`: owner, replicas, zones
 * and epoch of keys (from the arguments, or standard input one a line). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cmd_lookup_usage(FILE *out)
{
    fprintf(out,
            "usage: placer lookup FILE.snap [KEY...] [--replicas R] [--json]\n"
            "\n"
            "Print the owner of each key (and its replicas, zones, the next owner while a\n"
            "node joins or drains, and the partition of partition snapshots), with the\n"
            "snapshot's epoch. Without KEY arguments, keys are read from standard input,\n"
            "one a line (the line's bytes, without its newline, are the key).\n"
            "\n"
            "  --replicas R   replica set size, owner included (default 1, at most 8)\n"
            "  --json         one JSON object a key\n"
            "\n"
            "Text output, tab-separated: key, owner, owner's zone, replicas (comma-separated),\n"
            "distinct zones, epoch[, next owner][, partition]. A key whose owner is missing\n"
            "(an imported map's -1) prints \"-\" and makes the exit status 2.\n");
}

typedef struct opts {
    uint32_t replicas;
    int json;
} opts;

static int one(const placer_snapshot *s, const opts *o, const char *key, size_t len)
{
    uint32_t set[8], owner = 0, next = 0;
    placer_replica_report rep;
    int k = placer_replicas_ex(s, key, len, set, o->replicas, &rep);
    int err = placer_lookup_handoff(s, key, len, &owner, &next);
    int part = placer_snapshot_strategy(s) == PLACER_PARTITIONS ? placer_partition(s, key, len) : -1;
    uint64_t epoch = placer_snapshot_epoch(s);
    if (o->json) {
        printf("{\"key\":");
        cli_json_string(stdout, key);
        if (err) {
            printf(",\"owner\":null");
        } else {
            printf(",\"owner\":");
            cli_json_string(stdout, placer_node_id(s, owner));
            printf(",\"zone\":");
            cli_json_string(stdout, placer_node_zone(s, owner));
            printf(",\"address\":");
            cli_json_string(stdout, placer_node_address(s, owner));
        }
        printf(",\"replicas\":[");
        for (int i = 0; i < k; i++) {
            printf("%s{\"id\":", i ? "," : "");
            cli_json_string(stdout, placer_node_id(s, set[i]));
            printf(",\"zone\":");
            cli_json_string(stdout, placer_node_zone(s, set[i]));
            printf("}");
        }
        printf("],\"zones\":%u,\"under_replicated\":%s,\"epoch\":%llu", rep.zones,
               rep.under_replicated ? "true" : "false", (unsigned long long)epoch);
        if (!err && placer_snapshot_in_transition(s)) {
            printf(",\"next_owner\":");
            cli_json_string(stdout, placer_node_id(s, next));
        }
        if (part >= 0)
            printf(",\"partition\":%d", part);
        printf("}\n");
    } else {
        printf("%s\t%s\t%s\t", key, err ? "-" : placer_node_id(s, owner),
               err ? "-" : placer_node_zone(s, owner));
        for (int i = 0; i < k; i++)
            printf("%s%s", i ? "," : "", placer_node_id(s, set[i]));
        printf("\t%u\t%llu", rep.zones, (unsigned long long)epoch);
        if (!err && placer_snapshot_in_transition(s))
            printf("\t%s", placer_node_id(s, next));
        if (part >= 0)
            printf("\t%d", part);
        printf("\n");
    }
    return err ? CLI_BADINPUT : CLI_OK;
}

int cmd_lookup(int argc, char **argv)
{
    opts o = {1, 0};
    const char *path = NULL;
    int first_key = 0, nkeys = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--replicas") && i + 1 < argc) {
            uint64_t r;
            if (cli_parse_u64("lookup", "--replicas", argv[++i], 1, PLACER_MAX_REPLICAS, &r))
                return CLI_USAGE;
            o.replicas = (uint32_t)r;
        } else if (!strcmp(argv[i], "--json")) {
            o.json = 1;
        } else if (!strcmp(argv[i], "--")) {
            first_key = i + 1;
            nkeys = argc - i - 1;
            break;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "placer lookup: unknown or incomplete option '%s' (keys that start "
                            "with '-' go after --)\n", argv[i]);
            cmd_lookup_usage(stderr);
            return CLI_USAGE;
        } else if (!path) {
            path = argv[i];
        } else {
            /* keys: everything else, options before them only */
            if (!first_key)
                first_key = i;
            nkeys++;
            argv[first_key + nkeys - 1] = argv[i];
        }
    }
    if (!path) {
        fprintf(stderr, "placer lookup: no snapshot file\n");
        cmd_lookup_usage(stderr);
        return CLI_USAGE;
    }
    placer_snapshot *s;
    int rc = cli_load_snapshot("lookup", path, &s);
    if (rc)
        return rc;
    int worst = CLI_OK;
    if (nkeys) {
        for (int i = 0; i < nkeys; i++) {
            int r = one(s, &o, argv[first_key + i], strlen(argv[first_key + i]));
            worst = r > worst ? r : worst;
        }
    } else {
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&line, &cap, stdin)) >= 0) {
            if (n && line[n - 1] == '\n')
                line[--n] = '\0';
            int r = one(s, &o, line, (size_t)n);
            worst = r > worst ? r : worst;
        }
        free(line);
    }
    placer_snapshot_free(s);
    return worst;
}
