/* cmd_import_twemproxy.c -- `placer import-twemproxy NUTCRACKER.yml --pool
 * NAME -o FILE.snap`: one pool of the configuration nutcracker runs with
 * into a snapshot that places keys where nutcracker sends them. */

#include "cli.h"

void cmd_import_twemproxy_usage(FILE *out)
{
    fprintf(out,
            "usage: placer import-twemproxy [OPTIONS] NUTCRACKER.yml [--pool NAME] -o FILE.snap\n"
            "\n"
            "Import one pool of a nutcracker (twemproxy) configuration, the YAML nutcracker\n"
            "itself runs with: its servers (\"host:port:weight [name]\"), hash, distribution\n"
            "and hash_tag become a snapshot that sends every key to the server nutcracker\n"
            "sends it to (\"compat\": \"twemproxy\"; docs/COMPAT.md). NUTCRACKER.yml may be -\n"
            "for standard input.\n"
            "\n"
            "  -o, --output FILE        where to write the snapshot\n"
            "  --pool NAME              the pool to import (needed when the file has several)\n"
            "  --epoch N                the snapshot's epoch (default 0)\n"
            "  --membership-out FILE    also write the membership file (JSON) the pool makes:\n"
            "                           `placer build FILE` gives the same snapshot (with it,\n"
            "                           -o may be left out)\n"
            "  --json                   print the summary as JSON\n"
            "  -h, --help               this help\n");
}

static const struct option options[] = {
    CLI_IMPORT_OPTIONS,
    {"pool", required_argument, NULL, CLI_OPT_IMPORT_POOL},
    {0},
};

static int membership(const cli_import *im, const char *text, size_t len, char **doc,
                      size_t *doc_len, char *why, size_t why_len)
{
    return placer_twemproxy_membership(text, len, im->pool, doc, doc_len, why, why_len);
}

int cmd_import_twemproxy(int argc, char **argv)
{
    static const cli_importer imp = {"import-twemproxy", "the pool's membership", NULL, 0,
                                     options, cmd_import_twemproxy_usage, membership, NULL};
    return cli_import_run(&imp, argc, argv);
}
