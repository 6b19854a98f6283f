/* cmd_verify.c -- `placer verify FILE.snap`: decode with every check and
 * say what the file holds, or exactly what is wrong with it. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cmd_verify_usage(FILE *out)
{
    fprintf(out,
            "usage: placer verify FILE.snap [--json]\n"
            "\n"
            "Check a snapshot file as a router would before using it (magic, version,\n"
            "length, caps, CRC-32C, every count, offset, ordering, owner and string; see\n"
            "docs/FORMAT.md) and print what it holds. Exit status 0 when it is valid, 2\n"
            "when not (the message names the check that failed).\n"
            "\n"
            "  --json   print the result as JSON\n");
}

int cmd_verify(int argc, char **argv)
{
    const char *path;
    int json;
    int rc = cli_file_and_json("verify", argc, argv, cmd_verify_usage, &path, &json);
    if (rc)
        return rc;
    char *buf;
    size_t len;
    rc = cli_read_file("verify", path, &buf, &len);
    if (rc)
        return rc;
    placer_snapshot *s = NULL;
    char why[256];
    int err = placer_snapshot_decode_ex(buf, len, &s, why, sizeof why);
    free(buf);
    if (err) {
        if (json) {
            printf("{\"valid\":false,\"error\":\"%s\",\"reason\":", placer_strerror(err));
            cli_json_string(stdout, why);
            printf("}\n");
        } else {
            fprintf(stderr, "placer verify: %s: %s%s%s\n", path, placer_strerror(err),
                    *why ? ": " : "", why);
        }
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    const char *strategy = placer_strategy_name(placer_snapshot_strategy(s));
    if (json)
        printf("{\"valid\":true,\"bytes\":%zu,\"strategy\":\"%s\",\"epoch\":%llu,\"seed\":%llu,"
               "\"nodes\":%u,\"tokens\":%u,\"in_transition\":%s}\n",
               len, strategy, (unsigned long long)placer_snapshot_epoch(s),
               (unsigned long long)placer_snapshot_seed(s), placer_node_count(s),
               placer_token_count(s), placer_snapshot_in_transition(s) ? "true" : "false");
    else
        printf("%s: valid, %zu bytes: %s, epoch %llu, seed %llu, %u nodes, %u tokens%s\n", path,
               len, strategy, (unsigned long long)placer_snapshot_epoch(s),
               (unsigned long long)placer_snapshot_seed(s), placer_node_count(s),
               placer_token_count(s), placer_snapshot_in_transition(s) ? ", in transition" : "");
    placer_snapshot_free(s);
    return CLI_OK;
}
