/* cmd_publish.c -- `placer publish --etcd URLS --key KEY FILE.snap`: put a
 * snapshot in etcd if its epoch is newer than the one stored. */
#include <string.h>

#include "cli.h"

void cmd_publish_usage(FILE *out)
{
    fprintf(out,
            "usage: placer publish --etcd URLS --key KEY FILE.snap [--timeout MS]\n"
            "\n"
            "Publish a snapshot file under KEY in etcd, only if its epoch is newer than the\n"
            "epoch stored there, in one compare-and-swap transaction (docs/ETCD.md). Exit 0\n"
            "when published; 2 when another publisher's epoch is as new or newer (the stored\n"
            "epoch is printed) or the file is bad; 3 when no etcd member answered.\n"
            "\n"
            "  --etcd URLS     comma-separated etcd client URLs (http://127.0.0.1:2379,...)\n"
            "  --key KEY       the key snapshots live under\n"
            "  --timeout MS    how long to keep trying members (default 5000)\n");
}

int cmd_publish(int argc, char **argv)
{
    const char *urls = NULL, *key = NULL, *path = NULL;
    uint64_t timeout = 5000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--etcd") && i + 1 < argc)
            urls = argv[++i];
        else if (!strcmp(argv[i], "--key") && i + 1 < argc)
            key = argv[++i];
        else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
            if (cli_parse_u64("publish", "--timeout", argv[++i], 1, 3600000, &timeout))
                return CLI_USAGE;
        } else if ((argv[i][0] == '-' && argv[i][1]) || path) {
            fprintf(stderr, "placer publish: unexpected '%s'\n", argv[i]);
            cmd_publish_usage(stderr);
            return CLI_USAGE;
        } else
            path = argv[i];
    }
    if (!urls || !key || !*key || !path) {
        fprintf(stderr, "placer publish: --etcd, --key and a snapshot file are required\n");
        cmd_publish_usage(stderr);
        return CLI_USAGE;
    }
    placer_snapshot *s;
    int rc = cli_load_snapshot("publish", path, &s);
    if (rc)
        return rc;
    uint64_t current = 0;
    char why[300];
    int err = placer_etcd_publish(urls, key, s, (long)timeout, &current, why, sizeof why);
    uint64_t epoch = placer_snapshot_epoch(s);
    placer_snapshot_free(s);
    if (err == PLACER_ECONFLICT) {
        fprintf(stderr, "placer publish: epoch %llu not published: %llu is stored under %s\n",
                (unsigned long long)epoch, (unsigned long long)current, key);
        return CLI_BADINPUT;
    }
    if (err) {
        fprintf(stderr, "placer publish: %s%s%s\n", placer_strerror(err), *why ? ": " : "", why);
        return err == PLACER_EUNAVAIL || err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    printf("published epoch %llu under %s\n", (unsigned long long)epoch, key);
    return CLI_OK;
}
