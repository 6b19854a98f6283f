/* cmd_import_couchbase.c -- `placer import-couchbase CONFIG.json -o
 * FILE.snap`: a Couchbase bucket configuration into a snapshot file. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cmd_import_couchbase_usage(FILE *out)
{
    fprintf(out,
            "usage: placer import-couchbase CONFIG.json -o FILE.snap [--json]\n"
            "\n"
            "Import a Couchbase bucket configuration (what a cluster serves at\n"
            "/pools/default/buckets/NAME, or its terse form): vBucketServerMap's serverList,\n"
            "vBucketMap and vBucketMapForward become a partitions snapshot whose keys map\n"
            "to vBuckets as Couchbase's SDKs map them; rev and revEpoch become the epoch.\n"
            "CONFIG.json may be - for standard input.\n"
            "\n"
            "  -o, --output FILE   where to write the snapshot (required)\n"
            "  --json              print the summary as JSON\n");
}

int cmd_import_couchbase(int argc, char **argv)
{
    const char *in = NULL, *outp = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) {
            outp = argv[++i];
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if ((argv[i][0] == '-' && argv[i][1]) || in) {
            fprintf(stderr, "placer import-couchbase: unexpected '%s'\n", argv[i]);
            cmd_import_couchbase_usage(stderr);
            return CLI_USAGE;
        } else {
            in = argv[i];
        }
    }
    if (!in || !outp) {
        fprintf(stderr, "placer import-couchbase: %s\n", !in ? "no configuration file" : "no -o FILE.snap");
        cmd_import_couchbase_usage(stderr);
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
    if (!rc) {
        if (json) {
            printf("{\"output\":");
            cli_json_string(stdout, outp);
            printf(",\"epoch\":%llu,\"servers\":%u,\"vbuckets\":%u,\"copies\":%u,"
                   "\"forward_map\":%s}\n",
                   (unsigned long long)placer_snapshot_epoch(s), placer_node_count(s),
                   placer_partition_count(s), placer_partition_copies(s),
                   placer_snapshot_in_transition(s) ? "true" : "false");
        } else {
            printf("wrote %s: %u vBuckets over %u servers, %u copies each, epoch %llu%s\n", outp,
                   placer_partition_count(s), placer_node_count(s), placer_partition_copies(s),
                   (unsigned long long)placer_snapshot_epoch(s),
                   placer_snapshot_in_transition(s) ? ", with a forward map" : "");
        }
    }
    placer_snapshot_free(s);
    return rc;
}
