/*
 * main.c -- `placer COMMAND [ARGS]`: find the subcommand, run it.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "placer.h"

/* strdup through placer's allocation seam, for libcurl. */
static char *seam_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = placer_mem_alloc(n);
    return d ? memcpy(d, s, n) : NULL;
}

/* The command, not the libraries, owns the process-wide allocators of
 * jansson and libcurl: route them through placer's one seam, so that every
 * allocation of the tool (jemalloc when linked) goes the same way. */
static void use_placer_allocator(void)
{
    json_set_alloc_funcs(placer_mem_alloc, placer_mem_free);
    curl_global_init_mem(CURL_GLOBAL_DEFAULT, placer_mem_alloc, placer_mem_free,
                         placer_mem_realloc, seam_strdup, placer_mem_calloc);
}

static const cli_command commands[] = {
    {"build", "build a snapshot file from a membership file", cmd_build, cmd_build_usage},
    {"lookup", "owner, replicas and epoch of keys in a snapshot", cmd_lookup, cmd_lookup_usage},
    {"stats", "how evenly a snapshot spreads keys over nodes and zones", cmd_stats,
     cmd_stats_usage},
    {"diff", "what moves between two snapshots, next to the ideal", cmd_diff, cmd_diff_usage},
    {"verify", "check a snapshot file as a router would", cmd_verify, cmd_verify_usage},
    {"import-couchbase", "a Couchbase bucket configuration into a snapshot file",
     cmd_import_couchbase, cmd_import_couchbase_usage},
    {"import-twemproxy", "one pool of a nutcracker.yml into a snapshot (keys where it sends them)",
     cmd_import_twemproxy, cmd_import_twemproxy_usage},
    {"import-redis", "a Redis Cluster's CLUSTER NODES into a snapshot of its 16,384 slots",
     cmd_import_redis, cmd_import_redis_usage},
    {"import-cassandra", "nodetool ring and a keyspace's replication into a snapshot (Cassandra's)",
     cmd_import_cassandra, cmd_import_cassandra_usage},
    {"import-kafka", "a Kafka topic (kafka-topics.sh --describe) into a snapshot of its partitions",
     cmd_import_kafka, cmd_import_kafka_usage},
    {"import-haproxy", "one backend of a haproxy.cfg into a snapshot (keys where it sends them)",
     cmd_import_haproxy, cmd_import_haproxy_usage},
    {"import-nginx", "one upstream of an nginx.conf into a snapshot (keys where it sends them)",
     cmd_import_nginx, cmd_import_nginx_usage},
    {"publish", "put a snapshot in etcd if its epoch is newer (compare-and-swap)", cmd_publish,
     cmd_publish_usage},
    {"watch", "follow the snapshots under an etcd key, as a router does", cmd_watch,
     cmd_watch_usage},
    {"simulate", "compare strategies and token counts on a workload (tables, plot)", cmd_simulate,
     cmd_simulate_usage},
    {"demo", "build a 120-node ring and measure lookups per second", cmd_demo, cmd_demo_usage},
    {"version", "print the version, CPU features and chosen kernels", cmd_version,
     cmd_version_usage},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out,
            "usage: placer COMMAND [OPTIONS]\n"
            "       placer help COMMAND | placer COMMAND --help\n"
            "\n"
            "placer answers which node owns a key, from an immutable snapshot of a\n"
            "placement. Strategies (membership files' \"strategy\"):\n ");
    /* From the registry, so a new strategy appears here by itself. */
    placer_strategy_traits t = {.size = sizeof t};
    for (int id = placer_strategy_next(0); id; id = placer_strategy_next(id))
        if (placer_strategy_describe(id, &t) == 0 && !(t.traits & PLACER_TRAIT_IMPLIED))
            fprintf(out, " %s", t.name);
    fprintf(out, "\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-17s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n"
            "Every command takes --help; options take their value as --opt VALUE or\n"
            "--opt=VALUE, and -- ends the options. --json output: one JSON document (or\n"
            "one a line) with \"format\": 1, the schema version (docs/JSON.md).\n"
            "\n"
            "exit status, the same for every command:\n"
            "  0  ok\n"
            "  1  usage error (an unknown option, a missing or malformed value)\n"
            "  2  bad input: a file, key or value placer cannot accept (a watch that\n"
            "     rejected every snapshot it saw and accepted none, too)\n"
            "  3  the environment failed: etcd unreachable, authentication refused,\n"
            "     an I/O error, out of memory\n"
            "  4  publish: the epoch is not newer than the one stored (stale, or a\n"
            "     race with another publisher lost)\n");
}

static const cli_command *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    use_placer_allocator();
    /* A file size limit fails the write (EFBIG), which the command reports
     * and cleans up after, rather than killing it mid-file. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        fprintf(stderr, "placer: no command (see 'placer --help')\n");
        return CLI_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(name, "--version")) {
        printf("placer %s\n", placer_version_string());
        return CLI_OK;
    }
    if (!strcmp(name, "help")) {
        if (argc < 3) {
            usage(stdout);
            return CLI_OK;
        }
        const cli_command *c = find(argv[2]);
        if (!c) {
            fprintf(stderr, "placer help: unknown command '%s' (see 'placer --help')\n", argv[2]);
            return CLI_USAGE;
        }
        c->usage(stdout);
        return CLI_OK;
    }
    const cli_command *c = find(name);
    if (!c) {
        fprintf(stderr, "placer: unknown command '%s' (see 'placer --help')\n", name);
        return CLI_USAGE;
    }
    /* Each command parses its own options (and --help) with cli_getopt. */
    return c->run(argc - 1, argv + 1);
}
