/* cmd_build.c -- `placer build MEMBERSHIP.json -o FILE.snap`: a membership
 * file into a snapshot file. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cmd_build_usage(FILE *out)
{
    fprintf(out,
            "usage: placer build MEMBERSHIP.json -o FILE.snap [--epoch N] [--previous OLD.snap] [--json]\n"
            "\n"
            "Build a snapshot from a membership file (JSON: strategy, seed, epoch, nodes\n"
            "with id, zone, weight, state, address; see README.md) and write it to FILE.snap\n"
            "(format v1, docs/FORMAT.md). MEMBERSHIP.json may be - for standard input.\n"
            "\n"
            "  -o, --output FILE   where to write the snapshot (required)\n"
            "  --epoch N           the snapshot's epoch (overrides the file's; default 0)\n"
            "  --previous OLD      the snapshot this one follows: partitions and jump keep\n"
            "                      their assignments, so only what must move moves\n"
            "  --json              print the summary as JSON\n");
}

int cmd_build(int argc, char **argv)
{
    const char *in = NULL, *outp = NULL, *prev_path = NULL;
    uint64_t epoch = 0;
    int has_epoch = 0, json = 0;
    for (int i = 1; i < argc; i++) {
        if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) {
            outp = argv[++i];
        } else if (!strcmp(argv[i], "--epoch") && i + 1 < argc) {
            if (cli_parse_u64("build", "--epoch", argv[++i], 0, UINT64_MAX, &epoch))
                return CLI_USAGE;
            has_epoch = 1;
        } else if (!strcmp(argv[i], "--previous") && i + 1 < argc) {
            prev_path = argv[++i];
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "placer build: unknown or incomplete option '%s'\n", argv[i]);
            cmd_build_usage(stderr);
            return CLI_USAGE;
        } else if (!in) {
            in = argv[i];
        } else {
            fprintf(stderr, "placer build: one membership file only ('%s')\n", argv[i]);
            return CLI_USAGE;
        }
    }
    if (!in || !outp) {
        fprintf(stderr, "placer build: %s\n", !in ? "no membership file" : "no -o FILE.snap");
        cmd_build_usage(stderr);
        return CLI_USAGE;
    }
    char *text;
    size_t len;
    int rc = cli_read_file("build", in, &text, &len);
    if (rc)
        return rc;
    placer_builder *b = NULL;
    uint64_t file_epoch;
    char why[512];
    int got = placer_membership_parse(text, len, strcmp(in, "-") ? in : "<stdin>", &b, &file_epoch,
                                      why, sizeof why);
    free(text);
    if (got < 0) {
        fprintf(stderr, "placer build: %s\n", got == PLACER_EFORMAT ? why : placer_strerror(got));
        return got == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    if (!has_epoch)
        epoch = file_epoch;
    placer_snapshot *prev = NULL, *s = NULL;
    if (prev_path && (rc = cli_load_snapshot("build", prev_path, &prev))) {
        placer_builder_free(b);
        return rc;
    }
    placer_builder_set_previous(b, prev);
    int err = placer_builder_build(b, epoch, &s);
    placer_builder_free(b);
    placer_snapshot_free(prev);
    if (err) {
        fprintf(stderr, "placer build: %s: %s%s\n", in, placer_strerror(err),
                err == PLACER_EINVAL ? " (a setting does not fit the strategy, a jump bucket is "
                                       "claimed twice, or --previous is of another strategy)"
                                     : "");
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    rc = cli_save_snapshot("build", outp, s);
    if (!rc) {
        const char *strategy = placer_strategy_name(placer_snapshot_strategy(s));
        if (json) {
            printf("{\"output\":");
            cli_json_string(stdout, outp);
            printf(",\"strategy\":\"%s\",\"epoch\":%llu,\"nodes\":%u,\"tokens\":%u,"
                   "\"in_transition\":%s}\n",
                   strategy, (unsigned long long)placer_snapshot_epoch(s), placer_node_count(s),
                   placer_token_count(s), placer_snapshot_in_transition(s) ? "true" : "false");
        } else {
            printf("wrote %s: %s, epoch %llu, %u nodes, %u tokens%s\n", outp, strategy,
                   (unsigned long long)placer_snapshot_epoch(s), placer_node_count(s),
                   placer_token_count(s), placer_snapshot_in_transition(s) ? ", in transition" : "");
        }
    }
    placer_snapshot_free(s);
    return rc;
}
