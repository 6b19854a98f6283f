/* cmd_watch.c -- `placer watch --etcd URLS --key KEY`: follow the
 * snapshots published under KEY, printing each epoch accepted or rejected
 * and why; over TLS and as an etcd user when asked (etcd_options.c). */
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "cli.h"

void cmd_watch_usage(FILE *out)
{
    fprintf(out,
            "usage: placer watch [OPTIONS] --etcd URLS --key KEY\n"
            "\n"
            "Follow the snapshots under KEY as a router does: read the current one, then watch\n"
            "for new ones; each is fetched, verified and offered to a router, and a line says\n"
            "whether it was accepted or rejected and why (a bad, partial or older snapshot is\n"
            "rejected; the last good one keeps serving). Stops after N snapshots were seen or\n"
            "S seconds from its start, the first read included (within S + 1 seconds,\n"
            "however slow the members), or at SIGTERM or SIGINT (within a second), then\n"
            "prints a summary on stderr.\n"
            "Exit status 0 when a snapshot was accepted, or none was seen while etcd answered;\n"
            "2 when every one seen was rejected; 3 when etcd refused the credentials, a\n"
            "certificate or the read permission at the start (etcd's reason is printed), or\n"
            "when no etcd member answered during the whole run.\n"
            "\n"
            "  --key KEY            the key snapshots live under\n"
            "  --count N            stop after N snapshots accepted or rejected\n"
            "  --seconds S          stop after S seconds\n");
    cli_etcd_usage(out);
    fprintf(out,
            "  --json               one JSON object a line for each snapshot: \"event\" is\n"
            "                       \"accepted\" or \"rejected\" (with \"reason\"), \"epoch\"\n"
            "  -h, --help           this help\n");
}

enum { OPT_KEY = 256, OPT_COUNT, OPT_SECONDS, OPT_JSON };

static const struct option options[] = {
    CLI_ETCD_OPTIONS,
    {"key", required_argument, NULL, OPT_KEY},
    {"count", required_argument, NULL, OPT_COUNT},
    {"seconds", required_argument, NULL, OPT_SECONDS},
    {"json", no_argument, NULL, OPT_JSON},
    CLI_HELP_OPTION,
    {0},
};

static atomic_int seen;
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* Called on the follower's thread, one event at a time. */
static void on_event(void *ctx, uint64_t epoch, int accepted, const char *reason)
{
    const int *json = ctx;
    if (*json) {
        json_t *doc = cli_json_doc();
        cli_json_put(doc, "event", json_string(accepted ? "accepted" : "rejected"));
        cli_json_put(doc, "epoch", epoch ? cli_json_u64(epoch) : json_null());
        if (!accepted)
            cli_json_put(doc, "reason", cli_json_str(reason));
        cli_json_emit("watch", doc);
    } else if (accepted) {
        printf("accepted epoch %llu\n", (unsigned long long)epoch);
    } else {
        printf("rejected%s%.0llu: ", epoch ? " epoch " : "", (unsigned long long)epoch);
        cli_print_name(stdout, reason);
        putchar('\n');
    }
    fflush(stdout);
    atomic_fetch_add(&seen, 1);
}

int cmd_watch(int argc, char **argv)
{
    const char *key = NULL;
    uint64_t count = 0, seconds = 0;
    cli_etcd o = {0};
    static int json;
    int c;
    while ((c = cli_getopt("watch", argc, argv, options, cmd_watch_usage)) != -1) {
        if (c >= CLI_OPT_ETCD && c < CLI_OPT_ETCD_END) {
            if (cli_etcd_option("watch", c, optarg, &o))
                return CLI_USAGE;
            continue;
        }
        switch (c) {
        case OPT_KEY:
            key = optarg;
            break;
        case OPT_COUNT:
            if (cli_parse_u64("watch", "--count", optarg, 1, UINT32_MAX, &count))
                return CLI_USAGE;
            break;
        case OPT_SECONDS:
            if (cli_parse_u64("watch", "--seconds", optarg, 1, 86400 * 365, &seconds))
                return CLI_USAGE;
            break;
        case OPT_JSON:
            json = 1;
            break;
        default:
            return c == CLI_OPT_HELP ? CLI_OK : CLI_USAGE;
        }
    }
    if (optind < argc) {
        cli_usage_error("watch", "unexpected '%s' (watch takes no operands)", argv[optind]);
        return CLI_USAGE;
    }
    if (!o.urls || !key || !*key) {
        cli_usage_error("watch", "--etcd and --key are required");
        return CLI_USAGE;
    }
    double start = cli_now();
    /* the first read may take all of S, not more */
    if (seconds && (!o.timeout || o.timeout > seconds * 1000))
        o.timeout = seconds * 1000;
    placer_etcd_config *cfg;
    int rc = cli_etcd_config("watch", &o, &cfg);
    if (rc)
        return rc;
    /* One read first, so that refused credentials end the command with
     * their reason instead of a follower retrying them for ever. */
    placer_snapshot *first = NULL;
    char why[300] = "";
    int err = placer_etcd_fetch_ex(cfg, key, &first, why, sizeof why);
    placer_snapshot_free(first);
    /* Whether any etcd member answered during the run: the first read, an
     * open watch stream, or an event says so. (PLACER_EFORMAT at the first
     * read may be a server that is not etcd at all; a bad snapshot etcd
     * served shows as a rejection of the follower's.) */
    int reached = err != PLACER_EUNAVAIL && err != PLACER_EFORMAT;
    if (err && err != PLACER_EMISSING && err != PLACER_EAUTH) {
        fprintf(stderr, "placer watch: first read: %s: ", placer_strerror(err));
        cli_print_name(stderr, *why ? why : "-");
        fprintf(stderr, "; following anyway\n");
    }
    if (err == PLACER_EAUTH) {
        fprintf(stderr, "placer watch: %s: ", placer_strerror(err));
        cli_print_name(stderr, why);
        fputc('\n', stderr);
        placer_etcd_config_free(cfg);
        return CLI_FAILURE;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    placer_follower *f;
    err = placer_follower_start_ex(cfg, key, NULL, on_event, &json, &f);
    placer_etcd_config_free(cfg);
    if (err) {
        fprintf(stderr, "placer watch: %s\n", placer_strerror(err));
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    while (!interrupted && (!count || (uint64_t)atomic_load(&seen) < count) &&
           (!seconds || cli_now() - start < (double)seconds)) {
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
        if (!reached) {
            placer_follower_status now = {.size = sizeof now};
            placer_follower_status_get(f, &now);
            reached = now.watching || now.accepted || now.rejected;
        }
    }
    placer_follower_status st = {.size = sizeof st};
    placer_follower_status_get(f, &st);
    placer_follower_stop(f);
    reached = reached || st.watching || st.accepted || st.rejected;
    fprintf(stderr, "placer watch: %llu accepted, %llu rejected, serving epoch %llu",
            (unsigned long long)st.accepted, (unsigned long long)st.rejected,
            (unsigned long long)st.epoch);
    if (*st.last_error) {
        fprintf(stderr, "; last error: ");
        cli_print_name(stderr, st.last_error);
    }
    fputc('\n', stderr);
    if (!st.accepted && st.rejected)
        return CLI_BADINPUT;
    if (!reached) {
        fprintf(stderr, "placer watch: %s\n", placer_strerror(PLACER_EUNAVAIL));
        return CLI_FAILURE;
    }
    return CLI_OK;
}
