/* cmd_watch.c -- `placer watch --etcd URLS --key KEY`: follow the
 * snapshots published under KEY, printing each epoch accepted or rejected
 * and why. */
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "cli.h"

void cmd_watch_usage(FILE *out)
{
    fprintf(out,
            "usage: placer watch --etcd URLS --key KEY [--count N] [--seconds S]\n"
            "\n"
            "Follow the snapshots under KEY as a router does: read the current one, then watch\n"
            "for new ones; each is fetched, verified and offered to a router, and a line says\n"
            "whether it was accepted or rejected and why (a bad, partial or older snapshot is\n"
            "rejected; the last good one keeps serving). Stops after N snapshots were seen or\n"
            "S seconds (default: run until interrupted).\n"
            "\n"
            "  --etcd URLS     comma-separated etcd client URLs\n"
            "  --key KEY       the key snapshots live under\n"
            "  --count N       stop after N snapshots accepted or rejected\n"
            "  --seconds S     stop after S seconds\n");
}

static atomic_int seen;
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void on_event(void *ctx, uint64_t epoch, int accepted, const char *reason)
{
    (void)ctx;
    if (accepted)
        printf("accepted epoch %llu\n", (unsigned long long)epoch);
    else
        printf("rejected%s%.0llu: %s\n", epoch ? " epoch " : "", (unsigned long long)epoch, reason);
    fflush(stdout);
    atomic_fetch_add(&seen, 1);
}

int cmd_watch(int argc, char **argv)
{
    const char *urls = NULL, *key = NULL;
    uint64_t count = 0, seconds = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--etcd") && i + 1 < argc)
            urls = argv[++i];
        else if (!strcmp(argv[i], "--key") && i + 1 < argc)
            key = argv[++i];
        else if (!strcmp(argv[i], "--count") && i + 1 < argc) {
            if (cli_parse_u64("watch", "--count", argv[++i], 1, UINT32_MAX, &count))
                return CLI_USAGE;
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            if (cli_parse_u64("watch", "--seconds", argv[++i], 1, 86400 * 365, &seconds))
                return CLI_USAGE;
        } else {
            fprintf(stderr, "placer watch: unexpected '%s'\n", argv[i]);
            cmd_watch_usage(stderr);
            return CLI_USAGE;
        }
    }
    if (!urls || !key || !*key) {
        fprintf(stderr, "placer watch: --etcd and --key are required\n");
        cmd_watch_usage(stderr);
        return CLI_USAGE;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    placer_follower *f;
    int err = placer_follower_start(urls, key, NULL, on_event, NULL, &f);
    if (err) {
        fprintf(stderr, "placer watch: %s\n", placer_strerror(err));
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_USAGE;
    }
    double start = cli_now();
    while (!interrupted && (!count || (uint64_t)atomic_load(&seen) < count) &&
           (!seconds || cli_now() - start < (double)seconds)) {
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    placer_follower_status st;
    placer_follower_status_get(f, &st);
    placer_follower_stop(f);
    fprintf(stderr, "placer watch: %llu accepted, %llu rejected, serving epoch %llu%s%s\n",
            (unsigned long long)st.accepted, (unsigned long long)st.rejected,
            (unsigned long long)st.epoch, *st.last_error ? "; last error: " : "", st.last_error);
    return CLI_OK;
}
