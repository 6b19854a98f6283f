/* cmd_import_twemproxy.c -- `placer import-twemproxy NUTCRACKER.yml --pool
 * NAME -o FILE.snap`: one pool of the configuration nutcracker runs with
 * into a snapshot that places keys where nutcracker sends them. */
#include <stdlib.h>

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
    {"output", required_argument, NULL, 'o'},
    {"pool", required_argument, NULL, CLI_OPT_IMPORT_POOL},
    {"epoch", required_argument, NULL, CLI_OPT_IMPORT_EPOCH},
    {"membership-out", required_argument, NULL, CLI_OPT_IMPORT_MEMBERSHIP},
    {"json", no_argument, NULL, CLI_OPT_IMPORT_JSON},
    CLI_HELP_OPTION,
    {0},
};

int cmd_import_twemproxy(int argc, char **argv)
{
    const char *cmd = "import-twemproxy";
    cli_import im = {0};
    im.doc_name = "the pool's membership";
    int rc = cli_import_options(cmd, argc, argv, options, cmd_import_twemproxy_usage, &im);
    if (rc)
        return rc == CLI_OPT_HELP ? CLI_OK : rc;
    char *text, *doc = NULL;
    size_t len, doc_len = 0;
    if ((rc = cli_read_file(cmd, im.input, &text, &len)) != CLI_OK)
        return rc;
    char why[512];
    int err = placer_twemproxy_membership(text, len, im.pool, &doc, &doc_len, why, sizeof why);
    free(text);
    if (err) {
        fprintf(stderr, "placer %s: %s: %s\n", cmd, im.input, *why ? why : placer_strerror(err));
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    rc = cli_import_membership(cmd, &im, doc, doc_len);
    placer_mem_free(doc);
    return rc;
}
