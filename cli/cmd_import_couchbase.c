/* cmd_import_couchbase.c -- `placer import-couchbase CONFIG.json -o
 * FILE.snap`: a Couchbase bucket configuration into a snapshot file. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cmd_import_couchbase_usage(FILE *out)
{
    fprintf(out,
            "usage: placer import-couchbase [OPTIONS] CONFIG.json -o FILE.snap\n"
            "\n"
            "Import a Couchbase bucket configuration (what a cluster serves at\n"
            "/pools/default/buckets/NAME, or its terse form): vBucketServerMap's serverList,\n"
            "vBucketMap and vBucketMapForward become a partitions snapshot whose keys map\n"
            "to vBuckets as Couchbase's SDKs map them; rev and revEpoch become the epoch.\n"
            "CONFIG.json may be - for standard input.\n"
            "\n"
            "  -o, --output FILE   where to write the snapshot (required)\n"
            "  --json              print the summary as JSON\n"
            "  -h, --help          this help\n");
}

enum { OPT_JSON = 256 };

static const struct option options[] = {
    {"output", required_argument, NULL, 'o'},
    {"json", no_argument, NULL, OPT_JSON},
    CLI_HELP_OPTION,
    {0},
};

int cmd_import_couchbase(int argc, char **argv)
{
    const char *in = NULL, *outp = NULL;
    int json = 0, c;
    while ((c = cli_getopt("import-couchbase", argc, argv, options, cmd_import_couchbase_usage)) != -1) {
        if (c == 'o')
            outp = optarg;
        else if (c == OPT_JSON)
            json = 1;
        else
            return c == CLI_OPT_HELP ? CLI_OK : CLI_USAGE;
    }
    if (argc - optind > 1) {
        cli_usage_error("import-couchbase", "one configuration file only ('%s' is extra)",
                        argv[optind + 1]);
        return CLI_USAGE;
    }
    in = optind < argc ? argv[optind] : NULL;
    if (!in || !outp) {
        cli_usage_error("import-couchbase", "%s", !in ? "no configuration file" : "no -o FILE.snap");
        return CLI_USAGE;
    }
    char *text;
    size_t len;
    int rc = cli_read_file("import-couchbase", in, &text, &len);
    if (rc)
        return rc;
    placer_snapshot *s = NULL;
    char why[512];
    int err = placer_couchbase_import_ex(text, len, &s, why, sizeof why);
    free(text);
    if (err) {
        fprintf(stderr, "placer import-couchbase: %s: %s\n", in, *why ? why : placer_strerror(err));
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    rc = cli_save_snapshot("import-couchbase", outp, s);
    if (!rc && json) {
        json_t *doc = cli_json_doc();
        cli_json_put(doc, "output", cli_json_str(outp));
        cli_json_put(doc, "epoch", cli_json_u64(placer_snapshot_epoch(s)));
        cli_json_put(doc, "servers", json_integer(placer_node_count(s)));
        cli_json_put(doc, "vbuckets", json_integer(placer_partition_count(s)));
        cli_json_put(doc, "copies", json_integer(placer_partition_copies(s)));
        cli_json_put(doc, "forward_map", json_boolean(placer_snapshot_in_transition(s)));
        rc = cli_json_emit("import-couchbase", doc);
    } else if (!rc) {
        FILE *out = cli_report_stream();
        fprintf(out, "wrote ");
        cli_print_name(out, outp);
        fprintf(out, ": %u vBuckets over %u servers, %u copies each, epoch %llu%s\n",
               placer_partition_count(s), placer_node_count(s), placer_partition_copies(s),
               (unsigned long long)placer_snapshot_epoch(s),
               placer_snapshot_in_transition(s) ? ", with a forward map" : "");
    }
    placer_snapshot_free(s);
    return rc;
}
