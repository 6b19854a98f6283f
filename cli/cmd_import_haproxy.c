/* cmd_import_haproxy.c -- `placer import-haproxy haproxy.cfg --backend NAME
 * -o FILE.snap`: one backend of the configuration haproxy runs with into a
 * snapshot that places keys where haproxy sends them. */
#include <stdlib.h>

#include "cli.h"

void cmd_import_haproxy_usage(FILE *out)
{
    fprintf(out,
            "usage: placer import-haproxy [OPTIONS] haproxy.cfg --backend NAME -o FILE.snap\n"
            "\n"
            "Import one backend (or listen section) of a haproxy configuration, read as\n"
            "haproxy 2.6 reads it: its balance (uri, url_param, hdr(), rdp-cookie), hash-type,\n"
            "servers (weight, id; weight 0, disabled and backup servers are left out, as\n"
            "haproxy leaves them out of its hash) and what it inherits from defaults become a\n"
            "snapshot that sends every key to the server haproxy sends it to (\"compat\":\n"
            "\"haproxy\"; docs/COMPAT.md says what the key is for each balance). Notes on what\n"
            "was left out go to standard error. haproxy.cfg may be - for standard input.\n"
            "\n"
            "  -o, --output FILE        where to write the snapshot\n"
            "  --backend NAME           the backend or listen section to import (required)\n"
            "  --epoch N                the snapshot's epoch (default 0)\n"
            "  --membership-out FILE    also write the membership file (JSON) the backend\n"
            "                           makes: `placer build FILE` gives the same snapshot\n"
            "                           (with it, -o may be left out)\n"
            "  --json                   print the summary as JSON\n"
            "  -h, --help               this help\n");
}

static const struct option options[] = {
    {"output", required_argument, NULL, 'o'},
    {"backend", required_argument, NULL, CLI_OPT_IMPORT_POOL},
    {"epoch", required_argument, NULL, CLI_OPT_IMPORT_EPOCH},
    {"membership-out", required_argument, NULL, CLI_OPT_IMPORT_MEMBERSHIP},
    {"json", no_argument, NULL, CLI_OPT_IMPORT_JSON},
    CLI_HELP_OPTION,
    {0},
};

int cmd_import_haproxy(int argc, char **argv)
{
    const char *cmd = "import-haproxy";
    cli_import im = {0};
    im.doc_name = "the backend's membership";
    int rc = cli_import_options(cmd, argc, argv, options, cmd_import_haproxy_usage, &im);
    if (rc)
        return rc == CLI_OPT_HELP ? CLI_OK : rc;
    if (!im.pool) {
        cli_usage_error(cmd, "no --backend NAME");
        return CLI_USAGE;
    }
    char *text, *doc = NULL;
    size_t len, doc_len = 0;
    if ((rc = cli_read_file(cmd, im.input, &text, &len)) != CLI_OK)
        return rc;
    char why[1024];
    int err = placer_haproxy_membership(text, len, im.pool, &doc, &doc_len, why, sizeof why);
    free(text);
    if (err) {
        fprintf(stderr, "placer %s: %s: %s\n", cmd, im.input, *why ? why : placer_strerror(err));
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    if (*why)
        fprintf(stderr, "placer %s: %s: note: %s\n", cmd, im.input, why);
    rc = cli_import_membership(cmd, &im, doc, doc_len);
    placer_mem_free(doc);
    return rc;
}
