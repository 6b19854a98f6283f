/* import_compat.c -- what the import commands (twemproxy, redis, haproxy,
 * nginx) share: their options and input, the library's membership call and
 * its messages, the membership document it wrote, optionally saved
 * (--membership-out), built as `placer build` builds it, saved and
 * summarised. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The imported snapshot s to -o, then the summary; s is released. */
static int save_imported(const char *cmd, const cli_import *im, placer_snapshot *s)
{
    int rc = cli_save_snapshot(cmd, im->output, s);
    if (!rc)
        rc = cli_import_summary(cmd, im, s);
    placer_snapshot_free(s);
    return rc;
}

int cli_import_membership(const char *cmd, const cli_import *im, const char *doc, size_t len)
{
    int rc;
    /* both outputs checked before either is written */
    if ((im->membership_out && (rc = cli_output_check(cmd, im->membership_out))) ||
        (im->output && (rc = cli_output_check(cmd, im->output))))
        return rc;
    if (im->membership_out &&
        (rc = cli_write_file(cmd, im->membership_out, doc, len)) != CLI_OK)
        return rc;
    if (!im->output)
        return CLI_OK;
    placer_builder *b = NULL;
    uint64_t doc_epoch = 0;
    char why[512];
    int err = placer_membership_parse(doc, len, im->doc_name, &b, &doc_epoch, why, sizeof why);
    if (err >= 0) {
        placer_snapshot *s = NULL;
        err = placer_builder_build(b, im->has_epoch ? im->epoch : doc_epoch, &s);
        placer_builder_free(b);
        if (!err)
            return save_imported(cmd, im, s);
        snprintf(why, sizeof why, "%s: %s", im->doc_name, placer_strerror(err));
    }
    fprintf(stderr, "placer %s: %s: %s\n", cmd, im->input, err == PLACER_EFORMAT ? why
                                                                : placer_strerror(err));
    return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
}

int cli_import_summary(const char *cmd, const cli_import *im, const placer_snapshot *s)
{
    int redis = cli_compat_has_slots(s);
    if (im->json) {
        json_t *doc = cli_json_doc();
        cli_json_put(doc, "output", cli_json_str(im->output));
        cli_json_put(doc, "membership", im->membership_out ? cli_json_str(im->membership_out)
                                                           : json_null());
        cli_compat_json(doc, s);
        cli_json_put(doc, "key_hash", cli_json_str(cli_key_hash_name(s)));
        cli_json_put(doc, "epoch", cli_json_u64(placer_snapshot_epoch(s)));
        cli_json_put(doc, "nodes", json_integer(placer_node_count(s)));
        if (redis) {
            cli_json_put(doc, "slots", json_integer(placer_partition_count(s)));
            cli_json_put(doc, "copies", json_integer(placer_partition_copies(s)));
        }
        return cli_json_emit(cmd, doc);
    }
    char name[64];
    FILE *out = cli_report_stream();
    fprintf(out, "wrote ");
    cli_print_name(out, im->output);
    fprintf(out, ": %s, key hash %s, %u nodes", cli_placement_name(s, name, sizeof name),
            cli_key_hash_name(s), placer_node_count(s));
    if (redis)
        fprintf(out, ", %u slots, %u copies each", placer_partition_count(s),
                placer_partition_copies(s));
    fprintf(out, ", epoch %llu\n", (unsigned long long)placer_snapshot_epoch(s));
    return CLI_OK;
}

int cli_import_options(const char *cmd, int argc, char **argv, const struct option *opts,
                       void (*usage)(FILE *), cli_import *im)
{
    int c;
    while ((c = cli_getopt(cmd, argc, argv, opts, usage)) != -1) {
        switch (c) {
        case 'o':
            im->output = optarg;
            break;
        case CLI_OPT_IMPORT_EPOCH:
            if (cli_parse_u64(cmd, "--epoch", optarg, 0, UINT64_MAX, &im->epoch))
                return CLI_USAGE;
            im->has_epoch = 1;
            break;
        case CLI_OPT_IMPORT_MEMBERSHIP:
            im->membership_out = optarg;
            break;
        case CLI_OPT_IMPORT_JSON:
            im->json = 1;
            break;
        case CLI_OPT_IMPORT_POOL:
            im->pool = optarg;
            break;
        case CLI_OPT_IMPORT_ENV_FILE:
            im->env_file = optarg;
            break;
        case CLI_OPT_IMPORT_RESOLVE:
            im->resolve = 1;
            break;
        case CLI_OPT_IMPORT_PARTITIONER:
            im->partitioner = optarg;
            break;
        default:
            return c == CLI_OPT_HELP ? CLI_OPT_HELP : CLI_USAGE;
        }
    }
    if (argc - optind > 1) {
        cli_usage_error(cmd, "one input file only ('%s' is extra)", argv[optind + 1]);
        return CLI_USAGE;
    }
    im->input = optind < argc ? argv[optind] : NULL;
    if (!im->input || (!im->output && !im->membership_out)) {
        cli_usage_error(cmd, "%s", !im->input ? "no input file"
                                              : "no -o FILE.snap (nor --membership-out FILE)");
        return CLI_USAGE;
    }
    if (im->output && im->membership_out && !strcmp(im->output, "-") &&
        !strcmp(im->membership_out, "-")) {
        cli_usage_error(cmd, "-o - and --membership-out -: one of them to standard output only");
        return CLI_USAGE;
    }
    if (im->json && !im->output) {
        cli_usage_error(cmd, "--json summarises the snapshot: give -o FILE.snap");
        return CLI_USAGE;
    }
    return CLI_OK;
}

int cli_import_run(const cli_importer *imp, int argc, char **argv)
{
    const char *cmd = imp->cmd;
    cli_import im = {0};
    im.doc_name = imp->doc_name;
    int rc = cli_import_options(cmd, argc, argv, imp->options, imp->usage, &im);
    if (rc)
        return rc == CLI_OPT_HELP ? CLI_OK : rc;
    if (imp->name_option && !im.pool) {
        cli_usage_error(cmd, "no %s NAME", imp->name_option);
        return CLI_USAGE;
    }
    char *text = NULL, *doc = NULL, why[1024] = "";
    size_t len = 0, doc_len = 0;
    if (!imp->by_path && (rc = cli_read_file(cmd, im.input, &text, &len)) != CLI_OK)
        return rc;
    if (imp->by_path) /* the library reads it: its inode is still no output */
        cli_note_input_path(im.input);
    const char *input = imp->by_path ? "" : im.input, *colon = imp->by_path ? "" : ": ";
    if (imp->import && !im.membership_out && im.output) {
        if ((rc = cli_output_check(cmd, im.output)))
            return free(text), rc;
        placer_snapshot *s = NULL;
        int err = imp->import(&im, text, len, &s, why, sizeof why);
        free(text);
        if (err) {
            fprintf(stderr, "placer %s: %s%s%s\n", cmd, input, colon,
                    err == PLACER_EFORMAT && *why ? why : placer_strerror(err));
            return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
        }
        if (*why)
            fprintf(stderr, "placer %s: %s%snote: %s\n", cmd, input, colon, why);
        return save_imported(cmd, &im, s);
    }
    int err = imp->membership(&im, text, len, &doc, &doc_len, why, sizeof why);
    free(text);
    if (err) {
        fprintf(stderr, "placer %s: %s%s%s\n", cmd, input, colon, *why ? why : placer_strerror(err));
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    if (*why)
        fprintf(stderr, "placer %s: %s%snote: %s\n", cmd, input, colon, why);
    rc = cli_import_membership(cmd, &im, doc, doc_len);
    placer_mem_free(doc);
    return rc;
}
