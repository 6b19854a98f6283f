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
            "max_conns ignored, as they change no placement; a host name is hashed as\n"
            "written with consistent) become a snapshot that sends\n"
            "every key to the server nginx sends it to (\"compat\": \"nginx\"; docs/COMPAT.md\n"
            "says what the key is). Notes on what was left out go to standard error.\n"
            "\n"
            "  -o, --output FILE        where to write the snapshot\n"
            "  --upstream NAME          the upstream to import (required)\n"
            "  --epoch N                the snapshot's epoch (default 0)\n"
            "  --membership-out FILE    also write the membership file (JSON) the upstream\n"
            "                           makes: `placer build FILE` gives the same snapshot\n"
            "                           (with it, -o may be left out)\n"
            "  --resolve                resolve host names of an upstream with plain hash\n"
            "                           (nginx places by their addresses) through the system's\n"
            "                           resolver, as nginx does at its start\n"
            "  --json                   print the summary as JSON\n"
            "  -h, --help               this help\n");
}

static const struct option options[] = {
    CLI_IMPORT_OPTIONS,
    {"upstream", required_argument, NULL, CLI_OPT_IMPORT_POOL},
    {"resolve", no_argument, NULL, CLI_OPT_IMPORT_RESOLVE},
    {0},
};

/* a path, not text: nginx's includes are relative to it */
static int membership(const cli_import *im, const char *text, size_t len, char **doc,
                      size_t *doc_len, char *why, size_t why_len)
{
    (void)text;
    (void)len;
    return placer_nginx_membership_flags(im->input, im->pool, im->resolve ? PLACER_NGINX_RESOLVE : 0,
                                         doc, doc_len, why, why_len);
}

int cmd_import_nginx(int argc, char **argv)
{
    static const cli_importer imp = {"import-nginx", "the upstream's membership", "--upstream", 1,
                                     options, cmd_import_nginx_usage, membership, NULL};
    return cli_import_run(&imp, argc, argv);
}
