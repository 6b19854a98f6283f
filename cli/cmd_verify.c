/* cmd_verify.c -- `placer verify FILE.snap`: decode with every check and
 * say what the file holds, or exactly what is wrong with it. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cmd_verify_usage(FILE *out)
{
    fprintf(out,
            "usage: placer verify [OPTIONS] FILE.snap\n"
            "\n"
            "Check a snapshot file as a router would before using it (magic, version,\n"
            "length, caps, CRC-32C, every count, offset, ordering, owner and string; see\n"
            "docs/FORMAT.md) and print what it holds. Exit status 0 when it is valid, 2\n"
            "when not (the message names the check that failed).\n"
            "\n"
            "  --json       print the result as one JSON object (\"valid\": true or false)\n"
            "  -h, --help   this help\n");
}

int cmd_verify(int argc, char **argv)
{
    const char *path;
    int json;
    int rc = cli_file_and_json("verify", argc, argv, cmd_verify_usage, &path, &json);
    if (rc)
        return rc == CLI_OPT_HELP ? CLI_OK : rc;
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
            json_t *doc = cli_json_doc();
            cli_json_put(doc, "valid", json_false());
            cli_json_put(doc, "error", cli_json_str(placer_strerror(err)));
            cli_json_put(doc, "reason", cli_json_str(why));
            if ((rc = cli_json_emit("verify", doc)))
                return rc;
        } else {
            fprintf(stderr, "placer verify: ");
            cli_print_name(stderr, path);
            fprintf(stderr, ": %s%s%s\n", placer_strerror(err), *why ? ": " : "", why);
        }
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    char name[64];
    const char *strategy = cli_placement_name(s, name, sizeof name);
    if (json) {
        json_t *doc = cli_json_doc();
        cli_json_put(doc, "valid", json_true());
        cli_json_put(doc, "bytes", cli_json_u64(len));
        cli_json_put(doc, "strategy", json_string(placer_strategy_name(placer_snapshot_strategy(s))));
        cli_compat_json(doc, s);
        cli_json_put(doc, "key_hash", cli_json_str(cli_key_hash_name(s)));
        cli_json_put(doc, "epoch", cli_json_u64(placer_snapshot_epoch(s)));
        cli_json_put(doc, "seed", cli_json_u64(placer_snapshot_seed(s)));
        cli_json_put(doc, "nodes", json_integer(placer_node_count(s)));
        cli_json_put(doc, "tokens", json_integer(placer_token_count(s)));
        cli_json_put(doc, "in_transition", json_boolean(placer_snapshot_in_transition(s)));
        rc = cli_json_emit("verify", doc);
    } else {
        cli_print_name(stdout, path);
        printf(": valid, %zu bytes: %s, key hash %s, epoch %llu, seed %llu, %u nodes, %u tokens%s\n",
               len, strategy, cli_key_hash_name(s),
               (unsigned long long)placer_snapshot_epoch(s),
               (unsigned long long)placer_snapshot_seed(s), placer_node_count(s),
               placer_token_count(s), placer_snapshot_in_transition(s) ? ", in transition" : "");
    }
    placer_snapshot_free(s);
    return rc;
}
