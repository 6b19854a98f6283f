/* cmd_import_haproxy.c -- `placer import-haproxy haproxy.cfg --backend NAME
 * -o FILE.snap`: one backend of the configuration haproxy runs with into a
 * snapshot that places keys where haproxy sends them. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cmd_import_haproxy_usage(FILE *out)
{
    fprintf(out,
            "usage: placer import-haproxy [OPTIONS] haproxy.cfg --backend NAME -o FILE.snap\n"
            "\n"
            "Import one backend (or listen section) of a haproxy configuration, read as\n"
            "haproxy 2.6 reads it: its balance (source, uri, url_param, hdr(), rdp-cookie),\n"
            "hash-type, servers (weight, id; weight 0, disabled and backup servers are left\n"
            "out, as haproxy leaves them out of its hash) and what it inherits from defaults\n"
            "become a snapshot that sends every key to the server haproxy sends it to\n"
            "(\"compat\": \"haproxy\"; docs/COMPAT.md says what the key is for each balance:\n"
            "for source, the client address's 4 or 16 bytes, given with placer lookup --hex).\n"
            "Environment variables are expanded and .if blocks evaluated as haproxy 2.6\n"
            "does, with global's setenv and the like, over this command's environment.\n"
            "Notes on what was left out go to standard error. haproxy.cfg may be - for\n"
            "standard input.\n"
            "\n"
            "  -o, --output FILE        where to write the snapshot\n"
            "  --backend NAME           the backend or listen section to import (required)\n"
            "  --epoch N                the snapshot's epoch (default 0)\n"
            "  --membership-out FILE    also write the membership file (JSON) the backend\n"
            "                           makes: `placer build FILE` gives the same snapshot\n"
            "                           (with it, -o may be left out)\n"
            "  --env-file FILE          environment variables the configuration uses, as\n"
            "                           NAME=VALUE lines, over the command's own environment\n"
            "                           (when the proxy's host is not this one)\n"
            "  --json                   print the summary as JSON\n"
            "  -h, --help               this help\n");
}

static const struct option options[] = {
    CLI_IMPORT_OPTIONS,
    {"backend", required_argument, NULL, CLI_OPT_IMPORT_POOL},
    {"env-file", required_argument, NULL, CLI_OPT_IMPORT_ENV_FILE},
    {0},
};

/* --env-file: NAME=VALUE lines (blank lines and '#' comments skipped) into
 * this process's environment, which the importer reads as haproxy reads
 * its own. */
static int load_env_file(const char *path, char *why, size_t why_len)
{
    char *text = NULL;
    size_t len = 0;
    if (cli_read_file("import-haproxy", path, &text, &len) != CLI_OK) {
        snprintf(why, why_len, "--env-file %s: cannot be read", path);
        return PLACER_EFORMAT;
    }
    int err = 0;
    size_t line = 0;
    for (char *p = text; !err && p < text + len; line++) {
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        char *end = nl ? nl : text + len;
        *end = '\0';
        char *eq = strchr(p, '=');
        if (memchr(p, '\0', (size_t)(end - p)) != NULL || (*p && *p != '#' && (!eq || eq == p))) {
            snprintf(why, why_len, "--env-file %s: line %zu: expected NAME=VALUE", path, line + 1);
            err = PLACER_EFORMAT;
        } else if (*p && *p != '#') {
            *eq = '\0';
            if (setenv(p, eq + 1, 1)) {
                snprintf(why, why_len, "--env-file %s: line %zu: %s", path, line + 1,
                         strerror(errno));
                err = PLACER_EFORMAT;
            }
        }
        p = end + 1;
    }
    free(text);
    return err;
}

static int membership(const cli_import *im, const char *text, size_t len, char **doc,
                      size_t *doc_len, char *why, size_t why_len)
{
    int err = im->env_file ? load_env_file(im->env_file, why, why_len) : 0;
    return err ? err : placer_haproxy_membership(text, len, im->pool, doc, doc_len, why, why_len);
}

static int import(const cli_import *im, const char *text, size_t len, placer_snapshot **out,
                  char *why, size_t why_len)
{
    int err = im->env_file ? load_env_file(im->env_file, why, why_len) : 0;
    return err ? err : placer_haproxy_import(text, len, im->pool, im->epoch, out, why, why_len);
}

int cmd_import_haproxy(int argc, char **argv)
{
    static const cli_importer imp = {"import-haproxy", "the backend's membership", "--backend", 0,
                                     options, cmd_import_haproxy_usage, membership, import};
    return cli_import_run(&imp, argc, argv);
}
