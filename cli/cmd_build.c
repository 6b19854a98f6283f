/* cmd_build.c -- `placer build MEMBERSHIP.json -o FILE.snap`: a membership
 * file into a snapshot file. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cmd_build_usage(FILE *out)
{
    fprintf(out,
            "usage: placer build [OPTIONS] MEMBERSHIP.json -o FILE.snap\n"
            "\n"
            "Build a snapshot from a membership file (JSON: strategy, seed, epoch, nodes\n"
            "with id, zone, weight, state, address; see README.md) and write it to FILE.snap\n"
            "(format v2, docs/FORMAT.md). MEMBERSHIP.json may be - for standard input.\n"
            "\n"
            "  -o, --output FILE   where to write the snapshot (required; - for standard\n"
            "                      output: the summary then goes to standard error)\n"
            "  --epoch N           the snapshot's epoch (overrides the file's; default 0)\n"
            "  --previous OLD      the snapshot this one follows: partitions and jump keep\n"
            "                      their assignments, rings of \"tokens\": \"balanced\" every\n"
            "                      node's tokens (new nodes get theirs against that ring), so\n"
            "                      only what must move moves; the key hash (and secret) is\n"
            "                      kept unless the file or --secret-file says otherwise, so\n"
            "                      no key moves; so is the seed when the file has no \"seed\"\n"
            "                      (a file naming another seed than OLD's is refused: every\n"
            "                      key would move)\n"
            "  --secret-file F     key the placement: hash keys and tokens with SipHash-1-3\n"
            "                      under the 128-bit secret in F (16 raw bytes or 32 hex\n"
            "                      digits; F must be private to its owner). The secret is\n"
            "                      stored in FILE.snap, written with mode 0600; it is never\n"
            "                      read from the command line and never printed\n"
            "  --json              print the summary as JSON\n"
            "  -h, --help          this help\n");
}

enum { OPT_EPOCH = 256, OPT_PREVIOUS, OPT_SECRET_FILE, OPT_SECRET, OPT_JSON };

static const struct option options[] = {
    {"output", required_argument, NULL, 'o'},
    {"epoch", required_argument, NULL, OPT_EPOCH},
    {"previous", required_argument, NULL, OPT_PREVIOUS},
    {"secret-file", required_argument, NULL, OPT_SECRET_FILE},
    /* refused: without it getopt_long would read --secret as an
     * abbreviation of --secret-file, the secret as a file name */
    {"secret", optional_argument, NULL, OPT_SECRET},
    {"json", no_argument, NULL, OPT_JSON},
    CLI_HELP_OPTION,
    {0},
};

/* rebased: -1 when not, else the fraction of keys moved (a re-based
 * build: placer_builder_rebased). */
static int summary(const char *outp, const placer_snapshot *s, int json, double rebased)
{
    char name[64];
    const char *strategy = cli_placement_name(s, name, sizeof name);
    if (json) {
        json_t *doc = cli_json_doc();
        cli_json_put(doc, "output", cli_json_str(outp));
        cli_json_put(doc, "strategy", json_string(placer_strategy_name(placer_snapshot_strategy(s))));
        cli_compat_json(doc, s);
        cli_json_put(doc, "key_hash", cli_json_str(cli_key_hash_name(s)));
        cli_json_put(doc, "epoch", cli_json_u64(placer_snapshot_epoch(s)));
        cli_json_put(doc, "nodes", json_integer(placer_node_count(s)));
        cli_json_put(doc, "tokens", json_integer(placer_token_count(s)));
        cli_json_put(doc, "in_transition", json_boolean(placer_snapshot_in_transition(s)));
        cli_json_put(doc, "rebased_moved", rebased < 0 ? json_null() : cli_json_num(rebased));
        return cli_json_emit("build", doc);
    }
    FILE *out = cli_report_stream(); /* stderr when the snapshot went to stdout */
    fprintf(out, "wrote ");
    cli_print_name(out, outp);
    fprintf(out, ": %s, key hash %s, epoch %llu, %u nodes, %u tokens%s\n", strategy,
           cli_key_hash_name(s),
           (unsigned long long)placer_snapshot_epoch(s), placer_node_count(s),
           placer_token_count(s), placer_snapshot_in_transition(s) ? ", in transition" : "");
    if (rebased >= 0)
        fprintf(out, "re-based: the previous history left lookups over %u steps; a fresh "
                     "placement of the working nodes moved %.4f of the keys\n",
                (unsigned)PLACER_MAX_WALK, rebased);
    return CLI_OK;
}

int cmd_build(int argc, char **argv)
{
    const char *in = NULL, *outp = NULL, *prev_path = NULL, *secret_path = NULL;
    uint64_t epoch = 0;
    int has_epoch = 0, json = 0, c;
    while ((c = cli_getopt("build", argc, argv, options, cmd_build_usage)) != -1) {
        switch (c) {
        case 'o':
            outp = optarg;
            break;
        case OPT_EPOCH:
            if (cli_parse_u64("build", "--epoch", optarg, 0, UINT64_MAX, &epoch))
                return CLI_USAGE;
            has_epoch = 1;
            break;
        case OPT_PREVIOUS:
            prev_path = optarg;
            break;
        case OPT_SECRET_FILE:
            secret_path = optarg;
            break;
        case OPT_SECRET:
            cli_usage_error("build", "no --secret: a secret on the command line is visible to "
                                     "every user of the machine; write it to a file only you can "
                                     "read and pass --secret-file F");
            return CLI_USAGE;
        case OPT_JSON:
            json = 1;
            break;
        default:
            return c == CLI_OPT_HELP ? CLI_OK : CLI_USAGE;
        }
    }
    if (optind < argc)
        in = argv[optind];
    if (argc - optind > 1) {
        cli_usage_error("build", "one membership file only ('%s' is extra)", argv[optind + 1]);
        return CLI_USAGE;
    }
    if (!in || !outp) {
        cli_usage_error("build", "%s", !in ? "no membership file" : "no -o FILE.snap");
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
    /* which program a refused secret is refused for: the document says */
    char no_secret[160] = "";
    if (got >= 0 && secret_path)
        cli_why_no_secret(text, len, no_secret, sizeof no_secret);
    int names_seed = got >= 0 && prev_path && cli_membership_names_seed(text, len);
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
    if ((rc = cli_previous_seed("build", in, prev_path, names_seed, b, prev))) {
        placer_builder_free(b);
        placer_snapshot_free(prev);
        return rc;
    }
    int err = 0;
    if (secret_path) {
        unsigned char secret[16];
        if ((rc = cli_read_secret("build", secret_path, secret))) {
            placer_builder_free(b);
            placer_snapshot_free(prev);
            return rc;
        }
        err = placer_builder_set_secret(b, secret);
        explicit_bzero(secret, sizeof secret);
        if (err) {
            fprintf(stderr, "placer build: %s: %s\n", in, no_secret);
            placer_builder_free(b);
            placer_snapshot_free(prev);
            return CLI_BADINPUT;
        }
    }
    err = placer_builder_build(b, epoch, &s);
    double moved = -1;
    if (!err && placer_builder_rebased(b, &moved) != 1)
        moved = -1;
    /* the builder's own words for what it refused, when it has them */
    char said[256];
    snprintf(said, sizeof said, "%s",
             err == PLACER_EINVAL || err == PLACER_ETOOMANY ? placer_builder_error(b) : "");
    placer_builder_free(b);
    placer_snapshot_free(prev);
    if (err) {
        fprintf(stderr, "placer build: %s: %s%s%s%s\n", in, placer_strerror(err), *said ? ": " : "",
                said,
                err == PLACER_EINVAL && !*said
                    ? " (a setting does not fit the strategy, a jump bucket is claimed twice, "
                      "--previous is of another strategy, or key_hash siphash13 has no "
                      "--secret-file)"
                    : "");
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    rc = cli_save_snapshot("build", outp, s);
    if (!rc)
        rc = summary(outp, s, json, moved);
    placer_snapshot_free(s);
    return rc;
}
