/* cmd_publish.c -- `placer publish --etcd URLS --key KEY FILE.snap`: put a
 * snapshot in etcd if its epoch is newer than the one stored; over TLS and
 * as an etcd user when asked (etcd_options.c). A keyed snapshot goes to
 * http:// endpoints only with --allow-cleartext-secret. SIGTERM and SIGINT
 * keep their default action (the process ends at once): the transaction
 * either went through or did not, and chunks left behind are swept by the
 * next publish that wins. */
#include <string.h>

#include "cli.h"

void cmd_publish_usage(FILE *out)
{
    fprintf(out,
            "usage: placer publish [OPTIONS] --etcd URLS --key KEY FILE.snap\n"
            "\n"
            "Publish a snapshot file under KEY in etcd, only if its epoch is newer than the\n"
            "epoch stored there, in one compare-and-swap transaction (docs/ETCD.md). KEY: 1\n"
            "to 512 bytes of UTF-8 without control characters. Exit 0 when published; 4 when\n"
            "the stored epoch is as new or newer (stale, or a race with another publisher\n"
            "lost; the stored epoch is printed); 2 when the file or KEY is bad; 3 when no\n"
            "etcd member answered or one refused the request (credentials, certificate,\n"
            "permission: etcd's reason is printed). Every request to etcd is bounded by\n"
            "--timeout. A keyed snapshot (key hash siphash13) carries its secret: it is\n"
            "refused for http:// endpoints (exit 1) unless --allow-cleartext-secret.\n"
            "\n"
            "  --key KEY            the key snapshots live under\n"
            "  --allow-cleartext-secret\n"
            "                       publish a keyed snapshot to http:// endpoints anyway\n"
            "                       (whoever sees the traffic learns the secret)\n");
    cli_etcd_usage(out);
    fprintf(out,
            "  --json               print the outcome as one JSON object (also when stale)\n"
            "  -h, --help           this help\n");
}

enum { OPT_KEY = 256, OPT_JSON, OPT_CLEARTEXT };

static const struct option options[] = {
    CLI_ETCD_OPTIONS,
    {"key", required_argument, NULL, OPT_KEY},
    {"json", no_argument, NULL, OPT_JSON},
    {"allow-cleartext-secret", no_argument, NULL, OPT_CLEARTEXT},
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
    const char *key = NULL;
    cli_etcd o = {0};
    int json = 0, cleartext = 0, c;
    while ((c = cli_getopt("publish", argc, argv, options, cmd_publish_usage)) != -1) {
        if (c >= CLI_OPT_ETCD && c < CLI_OPT_ETCD_END) {
            if (cli_etcd_option("publish", c, optarg, &o))
                return CLI_USAGE;
            continue;
        }
        switch (c) {
        case OPT_KEY:
            key = optarg;
            break;
        case OPT_JSON:
            json = 1;
            break;
        case OPT_CLEARTEXT:
            cleartext = 1;
            break;
        default:
            return c == CLI_OPT_HELP ? CLI_OK : CLI_USAGE;
        }
    }
    if (!o.urls || !key || !*key || argc - optind != 1) {
        cli_usage_error("publish", "%s", argc - optind > 1 ? "one snapshot file only"
                                         : "--etcd, --key and a snapshot file are required");
        return CLI_USAGE;
    }
    placer_etcd_config *cfg;
    int rc = cli_etcd_config("publish", &o, &cfg);
    if (rc)
        return rc;
    placer_snapshot *s;
    if ((rc = cli_load_snapshot("publish", argv[optind], &s))) {
        placer_etcd_config_free(cfg);
        return rc;
    }
    if (placer_snapshot_key_hash(s) == PLACER_HASH_SIPHASH13 && cli_etcd_cleartext(&o) && !cleartext) {
        cli_usage_error("publish", "%s is keyed (siphash13): its secret would travel in clear to "
                                   "an http:// endpoint; use https://, or --allow-cleartext-secret",
                        argv[optind]);
        placer_snapshot_free(s);
        placer_etcd_config_free(cfg);
        return CLI_USAGE;
    }
    placer_etcd_config_allow_cleartext_secret(cfg, cleartext);
    uint64_t current = 0;
    char why[300] = "";
    int err = placer_etcd_publish_ex(cfg, key, s, &current, why, sizeof why);
    uint64_t epoch = placer_snapshot_epoch(s);
    placer_snapshot_free(s);
    placer_etcd_config_free(cfg);
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
         * what is left is the environment (no answer, an error reply,
         * credentials or permission refused) */
        return cli_etcd_exit(err);
    }
    if (json)
        return outcome_json(key, epoch, 1, 0);
    printf("published epoch %llu under ", (unsigned long long)epoch);
    cli_print_name(stdout, key);
    putchar('\n');
    return CLI_OK;
}
