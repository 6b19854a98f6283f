/* cmd_publish.c -- `placer publish --etcd URLS --key KEY FILE.snap`: put a
 * snapshot in etcd if its epoch is newer than the one stored. */
#include <string.h>

#include "cli.h"

void cmd_publish_usage(FILE *out)
{
    fprintf(out,
            "usage: placer publish [OPTIONS] --etcd URLS --key KEY FILE.snap\n"
            "\n"
            "Publish a snapshot file under KEY in etcd, only if its epoch is newer than the\n"
            "epoch stored there, in one compare-and-swap transaction (docs/ETCD.md). Exit 0\n"
            "when published; 4 when the stored epoch is as new or newer (stale, or a race\n"
            "with another publisher lost; the stored epoch is printed); 2 when the file is\n"
            "bad; 3 when no etcd member answered or one refused the request.\n"
            "\n"
            "  --etcd URLS     comma-separated etcd client URLs (http://127.0.0.1:2379,...)\n"
            "  --key KEY       the key snapshots live under\n"
            "  --timeout MS    how long to keep trying members (default 5000)\n"
            "  --json          print the outcome as one JSON object (also when stale)\n"
            "  -h, --help      this help\n");
}

enum { OPT_ETCD = 256, OPT_KEY, OPT_TIMEOUT, OPT_JSON };

static const struct option options[] = {
    {"etcd", required_argument, NULL, OPT_ETCD},
    {"key", required_argument, NULL, OPT_KEY},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"json", no_argument, NULL, OPT_JSON},
    CLI_HELP_OPTION,
    {0},
};

static int outcome_json(const char *key, uint64_t epoch, int published, uint64_t stored)
{
    json_t *doc = cli_json_doc();
    cli_json_put(doc, "published", json_boolean(published));
    cli_json_put(doc, "key", cli_json_str(key));
    cli_json_put(doc, "epoch", cli_json_u64(epoch));
    if (!published)
        cli_json_put(doc, "stored_epoch", cli_json_u64(stored));
    return cli_json_emit("publish", doc);
}

int cmd_publish(int argc, char **argv)
{
    const char *urls = NULL, *key = NULL;
    uint64_t timeout = 5000;
    int json = 0, c;
    while ((c = cli_getopt("publish", argc, argv, options, cmd_publish_usage)) != -1) {
        switch (c) {
        case OPT_ETCD:
            urls = optarg;
            break;
        case OPT_KEY:
            key = optarg;
            break;
        case OPT_TIMEOUT:
            if (cli_parse_u64("publish", "--timeout", optarg, 1, 3600000, &timeout))
                return CLI_USAGE;
            break;
        case OPT_JSON:
            json = 1;
            break;
        default:
            return c == CLI_OPT_HELP ? CLI_OK : CLI_USAGE;
        }
    }
    if (!urls || !key || !*key || argc - optind != 1) {
        cli_usage_error("publish", "%s", argc - optind > 1 ? "one snapshot file only"
                                         : "--etcd, --key and a snapshot file are required");
        return CLI_USAGE;
    }
    placer_snapshot *s;
    int rc = cli_load_snapshot("publish", argv[optind], &s);
    if (rc)
        return rc;
    uint64_t current = 0;
    char why[300] = "";
    int err = placer_etcd_publish(urls, key, s, (long)timeout, &current, why, sizeof why);
    uint64_t epoch = placer_snapshot_epoch(s);
    placer_snapshot_free(s);
    if (err == PLACER_ECONFLICT) {
        fprintf(stderr, "placer publish: epoch %llu not published: %llu is stored under ",
                (unsigned long long)epoch, (unsigned long long)current);
        cli_print_name(stderr, key);
        fputc('\n', stderr);
        rc = json ? outcome_json(key, epoch, 0, current) : CLI_OK;
        return rc ? rc : CLI_STALE;
    }
    if (err) {
        fprintf(stderr, "placer publish: %s%s%s\n", placer_strerror(err), *why ? ": " : "", why);
        /* the file was read and decoded: past a key placer refuses (EINVAL),
         * what is left is the environment (no answer, an error reply) */
        return err == PLACER_EINVAL ? CLI_BADINPUT : CLI_FAILURE;
    }
    if (json)
        return outcome_json(key, epoch, 1, 0);
    printf("published epoch %llu under ", (unsigned long long)epoch);
    cli_print_name(stdout, key);
    putchar('\n');
    return CLI_OK;
}
