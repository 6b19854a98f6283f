/* cmd_import_redis.c -- `placer import-redis NODES.txt -o FILE.snap`: the
 * text of a Redis Cluster's CLUSTER NODES into a snapshot that maps keys
 * to slots and slots to masters (and their replicas) as the cluster does. */
#include <stdlib.h>

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
    {"output", required_argument, NULL, 'o'},
    {"epoch", required_argument, NULL, CLI_OPT_IMPORT_EPOCH},
    {"membership-out", required_argument, NULL, CLI_OPT_IMPORT_MEMBERSHIP},
    {"json", no_argument, NULL, CLI_OPT_IMPORT_JSON},
    CLI_HELP_OPTION,
    {0},
};

int cmd_import_redis(int argc, char **argv)
{
    const char *cmd = "import-redis";
    cli_import im = {0};
    im.doc_name = "the cluster's membership";
    int rc = cli_import_options(cmd, argc, argv, options, cmd_import_redis_usage, &im);
    if (rc)
        return rc == CLI_OPT_HELP ? CLI_OK : rc;
    char *text, *doc = NULL;
    size_t len, doc_len = 0;
    if ((rc = cli_read_file(cmd, im.input, &text, &len)) != CLI_OK)
        return rc;
    char why[512];
    int err = placer_redis_membership(text, len, &doc, &doc_len, why, sizeof why);
    free(text);
    if (err) {
        fprintf(stderr, "placer %s: %s: %s\n", cmd, im.input, *why ? why : placer_strerror(err));
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    rc = cli_import_membership(cmd, &im, doc, doc_len);
    placer_mem_free(doc);
    return rc;
}
