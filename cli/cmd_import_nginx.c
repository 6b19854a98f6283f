/* cmd_import_nginx.c -- `placer import-nginx nginx.conf --upstream NAME -o
 * FILE.snap`: one upstream of the configuration nginx runs with (its
 * includes too) into a snapshot that places keys where nginx sends them. */
#include "cli.h"

void cmd_import_nginx_usage(FILE *out)
{
    fprintf(out,
            "usage: placer import-nginx [OPTIONS] nginx.conf --upstream NAME -o FILE.snap\n"
            "\n"
            "Import one upstream (in http {} or stream {}) of an nginx configuration, read as\n"
            "nginx 1.22 reads it, includes expanded: its \"hash KEY [consistent]\" and servers\n"
            "(weight=N; down servers left out with consistent; max_fails, fail_timeout and\n"
            "max_conns ignored, as they change no placement) become a snapshot that sends\n"
            "every key to the server nginx sends it to (\"compat\": \"nginx\"; docs/COMPAT.md\n"
            "says what the key is). Notes on what was left out go to standard error.\n"
            "\n"
            "  -o, --output FILE        where to write the snapshot\n"
            "  --upstream NAME          the upstream to import (required)\n"
            "  --epoch N                the snapshot's epoch (default 0)\n"
            "  --membership-out FILE    also write the membership file (JSON) the upstream\n"
            "                           makes: `placer build FILE` gives the same snapshot\n"
            "                           (with it, -o may be left out)\n"
            "  --json                   print the summary as JSON\n"
            "  -h, --help               this help\n");
}

static const struct option options[] = {
    {"output", required_argument, NULL, 'o'},
    {"upstream", required_argument, NULL, CLI_OPT_IMPORT_POOL},
    {"epoch", required_argument, NULL, CLI_OPT_IMPORT_EPOCH},
    {"membership-out", required_argument, NULL, CLI_OPT_IMPORT_MEMBERSHIP},
    {"json", no_argument, NULL, CLI_OPT_IMPORT_JSON},
    CLI_HELP_OPTION,
    {0},
};

int cmd_import_nginx(int argc, char **argv)
{
    const char *cmd = "import-nginx";
    cli_import im = {0};
    im.doc_name = "the upstream's membership";
    int rc = cli_import_options(cmd, argc, argv, options, cmd_import_nginx_usage, &im);
    if (rc)
        return rc == CLI_OPT_HELP ? CLI_OK : rc;
    if (!im.pool) {
        cli_usage_error(cmd, "no --upstream NAME");
        return CLI_USAGE;
    }
    char *doc = NULL, why[1024];
    size_t doc_len = 0;
    /* a path, not text: nginx's includes are relative to it */
    int err = placer_nginx_membership(im.input, im.pool, &doc, &doc_len, why, sizeof why);
    if (err) {
        fprintf(stderr, "placer %s: %s\n", cmd, *why ? why : placer_strerror(err));
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    if (*why)
        fprintf(stderr, "placer %s: note: %s\n", cmd, why);
    rc = cli_import_membership(cmd, &im, doc, doc_len);
    placer_mem_free(doc);
    return rc;
}
