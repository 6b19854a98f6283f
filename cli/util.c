/* util.c -- small helpers shared by the subcommands. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#include <fcntl.h>
#include <unistd.h>

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_read_file(const char *cmd, const char *path, char **buf, size_t *len)
{
    char name[512]; /* the path as messages show it */
    cli_escaped(name, sizeof name, path);
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "placer %s: %s: %s\n", cmd, name, strerror(errno));
        return CLI_BADINPUT;
    }
    cli_note_input(fileno(f));
    size_t cap = 1 << 16, n = 0, got;
    char *b = malloc(cap + 1);
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *bigger = cap < ((size_t)1 << 40) ? realloc(b, 2 * cap + 1) : NULL;
            if (!bigger) {
                free(b);
                b = NULL;
                break;
            }
            b = bigger;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    if (f != stdin)
        fclose(f);
    if (!b) {
        fprintf(stderr, "placer %s: %s: out of memory\n", cmd, name);
        return CLI_FAILURE;
    }
    if (bad) {
        fprintf(stderr, "placer %s: %s: read error\n", cmd, name);
        free(b);
        return CLI_BADINPUT;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return CLI_OK;
}

int cli_load_snapshot(const char *cmd, const char *path, placer_snapshot **out)
{
    char *buf;
    size_t len;
    int rc = cli_read_file(cmd, path, &buf, &len);
    if (rc)
        return rc;
    char why[256];
    int err = placer_snapshot_decode_ex(buf, len, out, why, sizeof why);
    free(buf);
    if (err) {
        char name[512];
        fprintf(stderr, "placer %s: %s: %s%s%s\n", cmd, cli_escaped(name, sizeof name, path),
                placer_strerror(err), *why ? ": " : "", why);
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    return CLI_OK;
}

int cli_save_snapshot(const char *cmd, const char *path, const placer_snapshot *s)
{
    void *buf;
    size_t len;
    if (placer_snapshot_encode(s, &buf, &len)) {
        fprintf(stderr, "placer %s: out of memory\n", cmd);
        return CLI_FAILURE;
    }
    /* A keyed snapshot holds its secret (docs/FORMAT.md): owner-only. */
    int keyed = placer_snapshot_key_hash(s) == PLACER_HASH_SIPHASH13;
    int rc = cli_write_file_mode(cmd, path, buf, len, keyed ? 0600 : 0666);
    placer_buffer_free(buf);
    return rc;
}

placer_strategy_traits cli_strategy_traits(int strategy)
{
    placer_strategy_traits t = {.size = sizeof t};
    placer_strategy_describe(strategy, &t); /* an unknown id: every field 0 */
    return t;
}

/* What one lookup costs, in node scorings: rendezvous scores every node of
 * the placement (PLACER_TRAIT_SCANS_NODES); the others descend a tree or
 * index a table. */
static double lookup_cost(const placer_snapshot *s)
{
    unsigned traits = cli_strategy_traits(placer_snapshot_strategy(s)).traits;
    return traits & PLACER_TRAIT_SCANS_NODES ? (double)placer_node_count(s) + 64 : 64;
}

uint32_t cli_sample_size(const placer_snapshot *a, const placer_snapshot *b, uint32_t most)
{
    double cost = lookup_cost(a) + (b ? lookup_cost(b) : 0);
    double fit = CLI_SAMPLE_BUDGET / cost;
    uint32_t n = most;
    while (n > CLI_SAMPLE_LEAST && (double)n > fit)
        n >>= 1;
    return n;
}

double cli_confidence95(double p, uint32_t n)
{
    /* normal approximation to the binomial; at least the half-width of
     * one sample, so that p = 0 or 1 does not claim certainty */
    double w = 1.959964 * sqrt(p * (1 - p) / n);
    return w > 1.0 / n ? w : 1.0 / n;
}

int cli_node_shares(const placer_snapshot *s, double *share)
{
    uint32_t nodes = placer_node_count(s), n = placer_token_count(s);
    unsigned traits = cli_strategy_traits(placer_snapshot_strategy(s)).traits;
    for (uint32_t i = 0; i < nodes; i++)
        share[i] = 0;
    uint64_t tok, prev = 0;
    uint32_t o;
    if (!(traits & (PLACER_TRAIT_RANGES | PLACER_TRAIT_BUCKETS))) { /* owners scattered */
        uint32_t samples = cli_sample_size(s, NULL, 1u << 16);
        uint64_t step = UINT64_MAX / samples + 1; /* 2^64 / samples: a power of two */
        for (uint32_t i = 0; i < samples; i++) {
            int w = placer_lookup_hash(s, (uint64_t)i * step + step / 2);
            if (w >= 0)
                share[w] += 1.0 / samples;
        }
        return (int)samples;
    }
    if ((traits & PLACER_TRAIT_BUCKETS) || placer_snapshot_key_hash(s) == PLACER_HASH_COUCHBASE) {
        for (uint32_t i = 0; i < n; i++)
            if (placer_token_at(s, i, &tok, &o) == 0 && o < nodes)
                share[o] += 1.0 / n;
        return 0;
    }
    /* Ranges: token i owns (token i-1, token i]; the first also the wrap. */
    for (uint32_t i = 0; i < n; i++) {
        placer_token_at(s, i, &tok, &o);
        double width = i ? (double)(tok - prev) : (double)tok + 1.0;
        if (o < nodes)
            share[o] += width / 18446744073709551616.0;
        prev = tok;
    }
    /* rings wrap: the first token also owns what lies past the last (a
     * compat ring's too; a compat table's last range ends at 2^64 - 1) */
    if (traits & PLACER_TRAIT_WRAPS) {
        placer_token_at(s, 0, &tok, &o);
        share[o] += (double)(UINT64_MAX - prev) / 18446744073709551616.0;
    }
    return 0;
}

int cli_file_and_json(const char *cmd, int argc, char **argv, void (*usage)(FILE *),
                      const char **path, int *json)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 256},
        CLI_HELP_OPTION,
        {0},
    };
    *path = NULL;
    *json = 0;
    int c;
    while ((c = cli_getopt(cmd, argc, argv, opts, usage)) != -1) {
        if (c == 256)
            *json = 1;
        else
            return c == CLI_OPT_HELP ? CLI_OPT_HELP : CLI_USAGE;
    }
    if (optind == argc) {
        cli_usage_error(cmd, "no snapshot file");
        return CLI_USAGE;
    }
    if (argc - optind > 1) {
        cli_usage_error(cmd, "one snapshot file only ('%s' is extra)", argv[optind + 1]);
        return CLI_USAGE;
    }
    *path = argv[optind];
    return CLI_OK;
}
