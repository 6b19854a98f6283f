/* cmd_diff.c -- `placer diff OLD.snap NEW.snap`: what a change moves, and
 * how that is known (placer_diff_measure, or the keys of a file), next to
 * the least any placement could move: from -> to pairs, every node, the
 * moved ranges, the moved keys of a file; and what NEW's transition will
 * move. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff_buckets.h"
#include "diff_key_file.h"
#include "diff_print.h"

void cmd_diff_usage(FILE *out)
{
    fprintf(out,
            "usage: placer diff [OPTIONS] OLD.snap NEW.snap\n"
            "\n"
            "The fraction of keys whose owner changes (nodes matched by id), next to the\n"
            "ideal: the least any placement must move to give every node its new weight\n"
            "share (the sum of the shares nodes gain). The first line says how it is known:\n"
            "  exact ranges       ring, partitions, Maglev and the programs' rings, placing\n"
            "                     keys at the same positions: ranges of the hash space\n"
            "  exact: all N values of the key hash counted\n"
            "                     the same program hash of at most 16 bits (nginx's plain\n"
            "                     hash, the 15-bit crc32, Couchbase, Redis' slots), every\n"
            "                     value once; two hash %% n tables over a 32-bit hash\n"
            "                     (twemproxy modula, haproxy map-based, two Kafka\n"
            "                     topics of one partitioner whatever their partition\n"
            "                     counts) by residues of their period lcm(n, m), up\n"
            "                     to 2^26 of them\n"
            "  sampled            anything else (jump, rendezvous and the other bucket\n"
            "                     strategies, different modes, hashes or seeds): 100,000\n"
            "                     generated keys (\"key:\" and 16 hex digits), fewer but at\n"
            "                     least 16,384 for large rendezvous snapshots, each looked\n"
            "                     up in both as each snapshot hashes it, with the 95%%\n"
            "                     interval (Wilson's)\n"
            "Then the from -> to pairs, largest first (the full matrix when neither\n"
            "snapshot has more than 8 nodes), and every node with the share of keys it\n"
            "gives away and receives. Two snapshots of one bucket strategy (jump,\n"
            "memento, anchor, dx, jumpback, binomial) also get the fraction their buckets\n"
            "say should move: buckets removed, added and given to another node.\n"
            "\n"
            "When NEW is in transition (a node joining or draining), what its transition\n"
            "will move besides: the share of keys going from their owner to their next\n"
            "owner (placer_diff_transition; sampled for jump and rendezvous), each\n"
            "owner -> next owner pair, and per node the share it gives and receives.\n"
            "\n"
            "  --pairs N          list the N largest from -> to pairs (default 20)\n"
            "  --ranges N         list the first N moved ranges (default 0)\n"
            "  --key-file PATH    compare by the keys of PATH, one a line, each looked up\n"
            "                     in both: the figures are exact for those keys\n"
            "  --moved-keys OUT   with --key-file: write each key that moves to OUT, a line\n"
            "                     each: key, old owner, new owner, tab-separated, escaped\n"
            "                     as `placer lookup` escapes them (with --json: one JSON\n"
            "                     object a line, \"key\" or \"key_base64\", \"from\", \"to\")\n"
            "  --sample N         sample N generated keys, even where diff could count\n"
            "  --replicas R       what each node must receive for its new replica sets of R\n"
            "                     (1 .. 64): per node, the share of keys whose set gains it\n"
            "                     and whose set drops it; sets compared as sets of node ids,\n"
            "                     so a reordering of the same members moves nothing (sampled\n"
            "                     by generated keys, --sample N of them)\n"
            "  --json             print everything as one JSON object\n"
            "  -h, --help         this help\n");
}

/* ---- what NEW's transition will move (owner -> next owner) ---- */

/* One owner -> next owner pair and the share of keys it moves. */
typedef struct handoff_pair {
    uint32_t from, to;
    double share;
} handoff_pair;

static int by_pair(const void *x, const void *y)
{
    const handoff_pair *a = x, *b = y;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    return (a->to > b->to) - (a->to < b->to);
}

/* The transition's moves as pairs (summed, sorted by from then to) and per
 * node shares: exact from placer_diff_transition's ranges, or sampled at
 * evenly spaced positions where there are none (jump, rendezvous).
 * *samples is 0 when exact. Returns 0 or a PLACER_E* error. */
static int transition_moves(const placer_snapshot *s, handoff_pair **pairs_out, size_t *npairs,
                            double *gives, double *gets, double *moved, uint32_t *samples)
{
    uint32_t n = placer_node_count(s);
    placer_move *m = NULL;
    size_t count = 0;
    handoff_pair *p = NULL;
    size_t np = 0;
    *moved = 0;
    *samples = 0;
    int err = placer_diff_transition(s, &m, &count);
    if (!err) {
        p = count ? malloc(count * sizeof *p) : NULL;
        if (count && !p) {
            placer_moves_free(m);
            return PLACER_ENOMEM;
        }
        for (size_t i = 0; i < count; i++) {
            placer_move one = m[i];
            p[np++] = (handoff_pair){one.from, one.to, placer_moves_coverage(&one, 1)};
        }
        *moved = placer_moves_coverage(m, count);
        err = placer_moves_shares(s, s, m, count, gives, gets);
        placer_moves_free(m);
    } else if (err == PLACER_ENOTSUP) {
        uint32_t k = cli_sample_size(s, NULL, 1u << 20);
        uint64_t step = UINT64_MAX / k + 1; /* 2^64 / k */
        p = malloc((size_t)k * sizeof *p);
        if (!p)
            return PLACER_ENOMEM;
        err = 0;
        for (uint32_t i = 0; i < k; i++) {
            uint32_t owner, next;
            if (placer_lookup_hash_handoff(s, (uint64_t)i * step + step / 2, &owner, &next) ||
                owner == next || owner >= n || next >= n)
                continue;
            p[np++] = (handoff_pair){owner, next, 1.0 / k};
            gives[owner] += 1.0 / k;
            gets[next] += 1.0 / k;
            *moved += 1.0 / k;
        }
        *samples = k;
    }
    if (err) {
        free(p);
        return err;
    }
    qsort(p, np, sizeof *p, by_pair);
    size_t w = 0;
    for (size_t r = 0; r < np; r++) {
        if (w && p[w - 1].from == p[r].from && p[w - 1].to == p[r].to)
            p[w - 1].share += p[r].share;
        else
            p[w++] = p[r];
    }
    *pairs_out = p;
    *npairs = w;
    return 0;
}

static const char *node_or_dash(const placer_snapshot *s, uint32_t node)
{
    return node < placer_node_count(s) ? placer_node_id(s, node) : "-";
}

/* The transition of s (NEW) in text, or as doc["transition"]. Returns 0
 * or a PLACER_E* error (nothing printed then). */
static int transition_report(const placer_snapshot *s, const char *path, json_t *doc)
{
    uint32_t n = placer_node_count(s);
    double *gives = calloc(n ? n : 1, sizeof *gives), *gets = calloc(n ? n : 1, sizeof *gets);
    handoff_pair *pairs = NULL;
    size_t np = 0;
    double moved = 0;
    uint32_t samples = 0;
    int err = gives && gets ? transition_moves(s, &pairs, &np, gives, gets, &moved, &samples)
                            : PLACER_ENOMEM;
    if (err) {
        free(gives), free(gets);
        return err;
    }
    if (doc) {
        json_t *t = json_object(), *ps = json_array(), *nodes = json_array();
        cli_json_put(t, "moved", cli_json_num(moved));
        cli_json_put(t, "exact", json_boolean(!samples));
        if (samples) {
            cli_json_put(t, "sample_size", json_integer(samples));
            cli_json_put(t, "confidence95", cli_json_num(cli_confidence95(moved, samples)));
        }
        for (size_t r = 0; r < np; r++) {
            json_t *o = json_object();
            cli_json_put(o, "from", cli_json_str(node_or_dash(s, pairs[r].from)));
            cli_json_put(o, "to", cli_json_str(node_or_dash(s, pairs[r].to)));
            cli_json_put(o, "share", cli_json_num(pairs[r].share));
            cli_json_append(ps, o);
        }
        for (uint32_t i = 0; i < n; i++) {
            json_t *o = json_object();
            cli_json_put(o, "id", cli_json_str(placer_node_id(s, i)));
            cli_json_put(o, "gives", cli_json_num(gives[i]));
            cli_json_put(o, "receives", cli_json_num(gets[i]));
            cli_json_append(nodes, o);
        }
        cli_json_put(t, "pairs", ps);
        cli_json_put(t, "nodes", nodes);
        cli_json_put(doc, "transition", t);
    } else {
        printf("transition of ");
        cli_print_name(stdout, path);
        if (samples)
            printf(": moves %.4f%% of keys from their owner to their next owner (sampled at %u "
                   "positions, +/-%.4f%% at 95%% confidence)\n",
                   100 * moved, samples, 100 * cli_confidence95(moved, samples));
        else
            printf(": moves %.4f%% of keys from their owner to their next owner (exact ranges)\n",
                   100 * moved);
        for (size_t r = 0; r < np; r++) {
            printf("  ");
            cli_print_name(stdout, node_or_dash(s, pairs[r].from));
            printf(" -> ");
            cli_print_name(stdout, node_or_dash(s, pairs[r].to));
            printf(" %.4f%%\n", 100 * pairs[r].share);
        }
        printf("%-24s %10s %10s\n", "node", "gives", "receives");
        for (uint32_t i = 0; i < n; i++) {
            const char *id = placer_node_id(s, i);
            cli_print_name(stdout, id);
            printf("%*s %9.4f%% %9.4f%%\n", (int)(24 > strlen(id) ? 24 - strlen(id) : 0), "",
                   100 * gives[i], 100 * gets[i]);
        }
    }
    free(pairs), free(gives), free(gets);
    return 0;
}

enum { OPT_RANGES = 256, OPT_PAIRS, OPT_JSON, OPT_KEY_FILE, OPT_MOVED_KEYS, OPT_SAMPLE, OPT_REPLICAS };

static const struct option options[] = {
    {"ranges", required_argument, NULL, OPT_RANGES},
    {"pairs", required_argument, NULL, OPT_PAIRS},
    {"json", no_argument, NULL, OPT_JSON},
    {"key-file", required_argument, NULL, OPT_KEY_FILE},
    {"moved-keys", required_argument, NULL, OPT_MOVED_KEYS},
    {"sample", required_argument, NULL, OPT_SAMPLE},
    {"replicas", required_argument, NULL, OPT_REPLICAS},
    CLI_HELP_OPTION,
    {0},
};

typedef struct diff_args {
    uint64_t show_ranges, show_pairs, sample, replicas;
    const char *key_file, *moved_keys;
    int json;
} diff_args;

static int parse(int argc, char **argv, diff_args *o)
{
    int c;
    while ((c = cli_getopt("diff", argc, argv, options, cmd_diff_usage)) != -1) {
        if (c == OPT_KEY_FILE) {
            o->key_file = optarg;
        } else if (c == OPT_MOVED_KEYS) {
            o->moved_keys = optarg;
        } else if (c == OPT_SAMPLE) {
            if (cli_parse_u64("diff", "--sample", optarg, 1, 100000000, &o->sample))
                return CLI_USAGE;
        } else if (c == OPT_REPLICAS) {
            if (cli_parse_u64("diff", "--replicas", optarg, 1, 64, &o->replicas))
                return CLI_USAGE;
        } else if (c == OPT_RANGES || c == OPT_PAIRS) {
            if (cli_parse_u64("diff", c == OPT_RANGES ? "--ranges" : "--pairs", optarg, 0,
                              UINT32_MAX, c == OPT_RANGES ? &o->show_ranges : &o->show_pairs))
                return CLI_USAGE;
        } else if (c == OPT_JSON) {
            o->json = 1;
        } else {
            return c == CLI_OPT_HELP ? CLI_OK : CLI_USAGE;
        }
    }
    if (argc - optind != 2) {
        cli_usage_error("diff", "two snapshot files, OLD and NEW");
        return CLI_USAGE;
    }
    if (o->key_file && o->sample) {
        cli_usage_error("diff", "--key-file or --sample, not both");
        return CLI_USAGE;
    }
    if (o->moved_keys && !o->key_file) {
        cli_usage_error("diff", "--moved-keys writes the moved keys of a --key-file");
        return CLI_USAGE;
    }
    return -1;
}

/* The report: from the key file, or measured by the library (the ranges
 * too when placer_diff has them). Returns a CLI_* status. */
static int measure(const placer_snapshot *a, const placer_snapshot *b, const diff_args *o,
                   placer_diff_report *r, placer_move **m, size_t *nm)
{
    if (o->key_file) {
        /* the moved keys gathered in memory, then written as every output
         * is (cli_write_file: never over an input, a device or a FIFO) */
        char *buf = NULL;
        size_t len = 0;
        FILE *out = NULL;
        int rc = o->moved_keys ? cli_output_check("diff", o->moved_keys) : CLI_OK;
        if (!rc && o->moved_keys && !(out = open_memstream(&buf, &len))) {
            fprintf(stderr, "placer diff: %s\n", placer_strerror(PLACER_ENOMEM));
            rc = CLI_FAILURE;
        }
        if (!rc)
            rc = cli_diff_key_file(a, b, o->key_file, out, o->json, r);
        if (out && fclose(out) && !rc) {
            fprintf(stderr, "placer diff: %s\n", placer_strerror(PLACER_ENOMEM));
            cli_diff_key_file_free(r);
            rc = CLI_FAILURE;
        }
        if (out && !rc && (rc = cli_write_file("diff", o->moved_keys, buf, len)))
            cli_diff_key_file_free(r);
        free(buf);
        return rc;
    }
    int err = placer_diff_measure(a, b, o->sample, o->sample ? PLACER_DIFF_FORCE_SAMPLE : 0, r);
    if (!err && !o->sample && placer_diff(a, b, m, nm))
        *m = NULL, *nm = 0;
    if (err) {
        fprintf(stderr, "placer diff: %s\n", placer_strerror(err));
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    return CLI_OK;
}

int cmd_diff(int argc, char **argv)
{
    diff_args o = {.show_pairs = 20};
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    const char *paths[2] = {argv[optind], argv[optind + 1]};
    placer_snapshot *a = NULL, *b = NULL;
    rc = cli_load_snapshot("diff", paths[0], &a);
    if (!rc)
        rc = cli_load_snapshot("diff", paths[1], &b);
    if (rc) {
        placer_snapshot_free(a);
        return rc;
    }
    placer_diff_report r = {.size = sizeof r};
    placer_move *m = NULL;
    size_t nm = 0;
    rc = measure(a, b, &o, &r, &m, &nm);
    if (rc) {
        placer_snapshot_free(a);
        placer_snapshot_free(b);
        return rc;
    }
    cli_bucket_diff bd;
    int buckets = cli_diff_buckets(a, b, &bd);
    cli_diff_out out = {a, b, &r, o.key_file, buckets > 0 ? &bd : NULL, m, nm, o.show_ranges,
                        o.show_pairs};
    json_t *doc = o.json ? cli_json_doc() : NULL;
    int err = buckets < 0 || cli_diff_print(&out, doc) ? PLACER_ENOMEM : 0;
    if (!err && o.replicas) {
        placer_diff_report rr = {.size = sizeof rr};
        err = placer_diff_replicas(a, b, (uint32_t)o.replicas, o.sample, &rr);
        if (!err && cli_diff_print_replicas(a, b, (uint32_t)o.replicas, &rr, doc))
            err = PLACER_ENOMEM;
        placer_diff_report_release(&rr);
    }
    if (!err && placer_snapshot_in_transition(b)) {
        err = transition_report(b, paths[1], doc);
        if (err)
            fprintf(stderr, "placer diff: %s: its transition: %s\n", paths[1], placer_strerror(err));
    } else if (err) {
        fprintf(stderr, "placer diff: %s\n", placer_strerror(err));
    }
    if (err) {
        json_decref(doc);
        rc = err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    } else if (doc) {
        rc = cli_json_emit("diff", doc);
    }
    if (o.key_file)
        cli_diff_key_file_free(&r);
    else
        placer_diff_report_release(&r);
    placer_moves_free(m);
    placer_snapshot_free(a);
    placer_snapshot_free(b);
    return rc;
}
