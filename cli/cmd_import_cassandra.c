/* cmd_import_cassandra.c -- `placer import-cassandra RING.txt --replication
 * MAP -o FILE.snap`: the text of nodetool ring and a keyspace's replication
 * map into a ring snapshot whose tokens and replica sets are Cassandra's. */

#include "cli.h"

void cmd_import_cassandra_usage(FILE *out)
{
    fprintf(out,
            "usage: placer import-cassandra [OPTIONS] RING.txt --replication MAP -o FILE.snap\n"
            "\n"
            "Import an Apache Cassandra 4.x cluster from the text of `nodetool ring` and one\n"
            "keyspace's replication map as DESCRIBE KEYSPACE prints it, such as\n"
            "\"{'class': 'NetworkTopologyStrategy', 'dc1': '3'}\" or \"{'class':\n"
            "'SimpleStrategy', 'replication_factor': '3'}\" (short or\n"
            "org.apache.cassandra.locator. names). The snapshot is a ring with the\n"
            "cassandra-murmur3 key hash and every node's tokens, so `placer lookup` gives each\n"
            "key's token and the keyspace's replicas in the server's order (docs/COMPAT.md).\n"
            "Nodes are named by their address, zoned by their rack; Joining nodes join,\n"
            "Leaving ones drain, Down ones are down. NetworkTopologyStrategy keeps the one\n"
            "datacenter it replicates to. A transient factor ('3/1') is refused. RING.txt\n"
            "may be - for standard input.\n"
            "\n"
            "  -o, --output FILE        where to write the snapshot\n"
            "  --replication MAP        the keyspace's replication map (required)\n"
            "  --epoch N                the snapshot's epoch (default 0)\n"
            "  --membership-out FILE    also write the membership file (JSON) the ring makes:\n"
            "                           `placer build FILE` gives the same snapshot (with it,\n"
            "                           -o may be left out)\n"
            "  --json                   print the summary as JSON\n"
            "  -h, --help               this help\n");
}

static const struct option options[] = {
    CLI_IMPORT_OPTIONS,
    {"replication", required_argument, NULL, CLI_OPT_IMPORT_POOL},
    {0},
};

static int membership(const cli_import *im, const char *text, size_t len, char **doc,
                      size_t *doc_len, char *why, size_t why_len)
{
    return placer_cassandra_membership(text, len, im->pool, doc, doc_len, why, why_len);
}

int cmd_import_cassandra(int argc, char **argv)
{
    static const cli_importer imp = {"import-cassandra", "the ring's membership", "--replication",
                                     0, options, cmd_import_cassandra_usage, membership, NULL};
    return cli_import_run(&imp, argc, argv);
}
