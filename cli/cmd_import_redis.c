/* cmd_import_redis.c -- `placer import-redis NODES.txt -o FILE.snap`: the
 * text of a Redis Cluster's CLUSTER NODES into a snapshot that maps keys
 * to slots and slots to masters (and their replicas) as the cluster does. */

#include "cli.h"

void cmd_import_redis_usage(FILE *out)
{
    fprintf(out,
            "usage: placer import-redis [OPTIONS] NODES.txt -o FILE.snap\n"
            "\n"
            "Import a Redis Cluster from the text of CLUSTER NODES (redis-cli cluster nodes >\n"
            "NODES.txt): each master's slots, and its replicas as the slot's further copies,\n"
            "become a partitions snapshot of 16,384 slots whose keys map to slots as Redis\n"
            "maps them (CRC16 and {hash tags}; \"compat\": \"redis\", docs/COMPAT.md). Nodes are\n"
            "named by their node id, with their ip:port as address. Slots being migrated\n"
            "stay with the master that lists them, as Redis routes them. The epoch is the\n"
            "largest config-epoch. NODES.txt may be - for standard input.\n"
            "\n"
            "  -o, --output FILE        where to write the snapshot\n"
            "  --epoch N                the snapshot's epoch (default: the largest config-epoch)\n"
            "  --membership-out FILE    also write the membership file (JSON) the cluster makes:\n"
            "                           `placer build FILE` gives the same snapshot (with it,\n"
            "                           -o may be left out)\n"
            "  --json                   print the summary as JSON\n"
            "  -h, --help               this help\n");
}

static const struct option options[] = {
    CLI_IMPORT_OPTIONS,
    {0},
};

static int membership(const cli_import *im, const char *text, size_t len, char **doc,
                      size_t *doc_len, char *why, size_t why_len)
{
    (void)im;
    return placer_redis_membership(text, len, doc, doc_len, why, why_len);
}

int cmd_import_redis(int argc, char **argv)
{
    static const cli_importer imp = {"import-redis", "the cluster's membership", NULL, 0,
                                     options, cmd_import_redis_usage, membership, NULL};
    return cli_import_run(&imp, argc, argv);
}
