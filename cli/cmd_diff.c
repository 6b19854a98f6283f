/* cmd_diff.c -- `placer diff OLD.snap NEW.snap`: how much of the key space
 * changes owner, next to the least any placement could move, per node and
 * as ranges. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff_buckets.h"
#include "diff_sampled.h"

void cmd_diff_usage(FILE *out)
{
    fprintf(out,
            "usage: placer diff [OPTIONS] OLD.snap NEW.snap\n"
            "\n"
            "The fraction of keys whose owner changes (nodes matched by id), next to the\n"
            "ideal: the least any placement must move to give every node its new weight\n"
            "share (the sum of the shares nodes gain). Per node, the share of keys it\n"
            "gives away and receives. For ring, partitions and Maglev the moves are exact\n"
            "ranges of the hash space (lo, hi] (\"placer_diff\"); jump and rendezvous have\n"
            "no ranges and are sampled at evenly spaced positions: 2^20, fewer when a\n"
            "rendezvous snapshot has many nodes (every lookup scores every node: 128 at\n"
            "100,000 nodes), the count and the 95%% confidence interval printed. Two\n"
            "snapshots of one bucket strategy (jump, memento, anchor, dx, jumpback,\n"
            "binomial) also get the fraction their buckets say should move: buckets\n"
            "removed, added and given to another node, each in use holding an equal share.\n"
            "Snapshots that hash keys differently (a compat snapshot and a placer ring, two\n"
            "compat modes, two seeds) are compared by keys: each key of a sample looked up\n"
            "in both, the moved fraction with the sample size and a 95%% interval (100,000\n"
            "generated keys unless --key-file or --sample says otherwise).\n"
            "\n"
            "When NEW is in transition (a node joining or draining), what its transition\n"
            "will move besides: the share of keys going from their owner to their next\n"
            "owner (placer_diff_transition; sampled for jump and rendezvous), each\n"
            "owner -> next owner pair, and per node the share it gives and receives.\n"
            "\n"
            "  --ranges N        list the first N moved ranges (default 0)\n"
            "  --key-file PATH   compare by the keys of PATH, one a line (any snapshots)\n"
            "  --sample N        compare by N generated keys, \"key:\" and 16 hex digits of\n"
            "                    a fixed pseudo-random sequence (any snapshots)\n"
            "  --json       print everything as one JSON object\n"
            "  -h, --help   this help\n");
}

/* Nodes of a snapshot sorted by id, to find one by id in O(log n): diff
 * matches every node of one snapshot in the other, 100,000 of them too. */
typedef struct id_index {
    const placer_snapshot *s;
    uint32_t *order;
} id_index;

static const placer_snapshot *sorting; /* qsort has no context argument */

static int by_id(const void *x, const void *y)
{
    return strcmp(placer_node_id(sorting, *(const uint32_t *)x),
                  placer_node_id(sorting, *(const uint32_t *)y));
}

static int index_ids(id_index *ix, const placer_snapshot *s)
{
    uint32_t n = placer_node_count(s);
    ix->s = s;
    ix->order = malloc(((size_t)n + 1) * sizeof *ix->order);
    if (!ix->order)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        ix->order[i] = i;
    sorting = s;
    qsort(ix->order, n, sizeof *ix->order, by_id);
    return 0;
}

/* Index of node id in ix's snapshot, or -1 (ids are unique). */
static int find_id(const id_index *ix, const char *id)
{
    size_t lo = 0, hi = placer_node_count(ix->s);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(placer_node_id(ix->s, ix->order[mid]), id);
        if (!c)
            return (int)ix->order[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The weight of the nodes that own keys now (all but joining ones). */
static double placed_weight(const placer_snapshot *s)
{
    double W = 0;
    for (uint32_t j = 0; j < placer_node_count(s); j++)
        W += placer_node_state(s, j) != PLACER_NODE_JOINING ? placer_node_weight(s, j) : 0;
    return W;
}

static double weight_share(const placer_snapshot *s, double W, uint32_t i)
{
    return placer_node_state(s, i) != PLACER_NODE_JOINING ? placer_node_weight(s, i) / W : 0;
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
            if (!(gives[i] > 0 || gets[i] > 0))
                continue;
            cli_print_name(stdout, id);
            printf("%*s %9.4f%% %9.4f%%\n", (int)(24 > strlen(id) ? 24 - strlen(id) : 0), "",
                   100 * gives[i], 100 * gets[i]);
        }
    }
    free(pairs), free(gives), free(gets);
    return 0;
}

enum { OPT_RANGES = 256, OPT_JSON, OPT_KEY_FILE, OPT_SAMPLE };

static const struct option options[] = {
    {"ranges", required_argument, NULL, OPT_RANGES},
    {"json", no_argument, NULL, OPT_JSON},
    {"key-file", required_argument, NULL, OPT_KEY_FILE},
    {"sample", required_argument, NULL, OPT_SAMPLE},
    CLI_HELP_OPTION,
    {0},
};

int cmd_diff(int argc, char **argv)
{
    uint64_t show = 0;
    int json = 0, c;
    cli_diff_sample by_keys = {NULL, 0, 0};
    while ((c = cli_getopt("diff", argc, argv, options, cmd_diff_usage)) != -1) {
        if (c == OPT_KEY_FILE) {
            by_keys.key_file = optarg;
        } else if (c == OPT_SAMPLE) {
            if (cli_parse_u64("diff", "--sample", optarg, 1, 100000000, &by_keys.generated))
                return CLI_USAGE;
        } else if (c == OPT_RANGES) {
            if (cli_parse_u64("diff", "--ranges", optarg, 0, UINT32_MAX, &show))
                return CLI_USAGE;
        } else if (c == OPT_JSON) {
            json = 1;
        } else {
            return c == CLI_OPT_HELP ? CLI_OK : CLI_USAGE;
        }
    }
    if (argc - optind != 2) {
        cli_usage_error("diff", "two snapshot files, OLD and NEW");
        return CLI_USAGE;
    }
    if (by_keys.key_file && by_keys.generated) {
        cli_usage_error("diff", "--key-file or --sample, not both");
        return CLI_USAGE;
    }
    const char *paths[2] = {argv[optind], argv[optind + 1]};
    placer_snapshot *a = NULL, *b = NULL;
    int rc = cli_load_snapshot("diff", paths[0], &a);
    if (!rc)
        rc = cli_load_snapshot("diff", paths[1], &b);
    if (rc) {
        placer_snapshot_free(a);
        return rc;
    }
    uint32_t na = placer_node_count(a), nb = placer_node_count(b);
    double *out_of = calloc(na, sizeof *out_of), *into = calloc(nb, sizeof *into);
    id_index ia = {a, NULL}, ib = {b, NULL};
    if (index_ids(&ia, a) || index_ids(&ib, b)) {
        free(out_of);
        free(into);
        out_of = into = NULL; /* reported as out of memory below */
    }
    placer_move *m = NULL;
    size_t count = 0;
    double moved = 0;
    int exact = 0;
    uint32_t samples = 0;
    cli_bucket_diff bd;
    int buckets = 0;
    int err = !out_of || !into ? PLACER_ENOMEM
              : by_keys.key_file || by_keys.generated ? PLACER_EINVAL
                                                      : placer_diff(a, b, &m, &count);
    if (err == PLACER_EINVAL) {
        /* keys hashed differently (or a sample asked for): diff_sampled.c */
        by_keys.json = json;
        if (!by_keys.key_file && !by_keys.generated)
            by_keys.generated = CLI_DIFF_DEFAULT_SAMPLE;
        rc = cli_diff_sampled(a, b, &by_keys);
        placer_snapshot_free(a);
        placer_snapshot_free(b);
        free(out_of), free(into), free(ia.order), free(ib.order);
        return rc;
    }
    if (!err) {
        exact = 1;
        moved = placer_moves_coverage(m, count);
        err = placer_moves_shares(a, b, m, count, out_of, into);
    } else if (err == PLACER_ENOTSUP) {
        /* no ranges: evenly spaced positions, as many as a bounded amount
         * of work allows (2^20, fewer with many rendezvous nodes) */
        samples = cli_sample_size(a, b, 1u << 20);
        uint64_t step = UINT64_MAX / samples + 1; /* 2^64 / samples */
        err = 0;
        for (uint32_t i = 0; i < samples; i++) {
            uint64_t h = (uint64_t)i * step + step / 2;
            int oa = placer_lookup_hash(a, h), ob = placer_lookup_hash(b, h);
            if (oa < 0 || ob < 0)
                continue;
            if (strcmp(placer_node_id(a, (uint32_t)oa), placer_node_id(b, (uint32_t)ob))) {
                out_of[oa] += 1.0 / samples;
                into[ob] += 1.0 / samples;
                moved += 1.0 / samples;
            }
        }
        buckets = cli_diff_buckets(a, b, &bd);
        if (buckets < 0)
            err = PLACER_ENOMEM;
    }
    if (err) {
        fprintf(stderr, "placer diff: %s%s\n", placer_strerror(err),
                err == PLACER_EINVAL ? " (the snapshots hash keys differently: seed or key hash)" : "");
        placer_snapshot_free(a);
        placer_snapshot_free(b);
        free(out_of), free(into), free(ia.order), free(ib.order);
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    /* ideal: what the new weight shares require */
    double ideal = 0, Wa = placed_weight(a), Wb = placed_weight(b);
    for (uint32_t j = 0; j < nb; j++) {
        int i = find_id(&ia, placer_node_id(b, j));
        double gain = weight_share(b, Wb, j) - (i >= 0 ? weight_share(a, Wa, (uint32_t)i) : 0);
        ideal += gain > 0 ? gain : 0;
    }
    json_t *doc = json ? cli_json_doc() : NULL, *nodes = json ? json_array() : NULL;
    if (json) {
        cli_json_put(doc, "moved", cli_json_num(moved));
        cli_json_put(doc, "ideal", cli_json_num(ideal));
        cli_json_put(doc, "exact", json_boolean(exact));
        if (!exact) {
            cli_json_put(doc, "sample_size", json_integer(samples));
            cli_json_put(doc, "confidence95", cli_json_num(cli_confidence95(moved, samples)));
        }
        cli_json_put(doc, "ranges", cli_json_u64(count));
        if (buckets > 0) {
            json_t *o = json_object();
            cli_json_put(o, "expected", cli_json_num(bd.expected));
            cli_json_put(o, "old", json_integer(bd.old_buckets));
            cli_json_put(o, "new", json_integer(bd.new_buckets));
            cli_json_put(o, "removed", json_integer(bd.removed));
            cli_json_put(o, "added", json_integer(bd.added));
            cli_json_put(o, "reassigned", json_integer(bd.reassigned));
            cli_json_put(doc, "buckets", o);
        }
    } else {
        if (exact)
            printf("moved: %.4f%% of keys (exact ranges); ideal %.4f%%", 100 * moved, 100 * ideal);
        else
            printf("moved: %.4f%% of keys (sampled at %u positions, +/-%.4f%% at 95%% "
                   "confidence); ideal %.4f%%",
                   100 * moved, samples, 100 * cli_confidence95(moved, samples), 100 * ideal);
        if (ideal > 0)
            printf(", %.2fx the ideal", moved / ideal);
        if (buckets > 0)
            printf("\nexpected from the buckets: %.4f%% of keys (%u -> %u buckets in use: %u removed, "
                   "%u added, %u given to another node)",
                   100 * bd.expected, bd.old_buckets, bd.new_buckets, bd.removed, bd.added,
                   bd.reassigned);
        printf("\n%-24s %10s %10s\n", "node", "gives", "receives");
    }
    for (uint32_t pass = 0; pass < 2; pass++) {
        /* a's nodes (with what b's same id receives), then nodes only in b */
        uint32_t n = pass ? nb : na;
        for (uint32_t i = 0; i < n; i++) {
            const char *id = pass ? placer_node_id(b, i) : placer_node_id(a, i);
            if (pass && find_id(&ia, id) >= 0)
                continue;
            int j = pass ? (int)i : find_id(&ib, id);
            double give = pass ? 0 : out_of[i], get = j >= 0 ? into[j] : 0;
            if (json) {
                json_t *o = json_object();
                cli_json_put(o, "id", cli_json_str(id));
                cli_json_put(o, "gives", cli_json_num(give));
                cli_json_put(o, "receives", cli_json_num(get));
                cli_json_append(nodes, o);
            } else if (give > 0 || get > 0) {
                cli_print_name(stdout, id);
                printf("%*s %9.4f%% %9.4f%%\n", (int)(24 > strlen(id) ? 24 - strlen(id) : 0), "",
                       100 * give, 100 * get);
            }
        }
    }
    json_t *first = json ? json_array() : NULL;
    for (size_t r = 0; r < count && r < show; r++) {
        const char *from = m[r].from == PLACER_NO_NODE ? "-" : placer_node_id(a, m[r].from);
        const char *to = m[r].to == PLACER_NO_NODE ? "-" : placer_node_id(b, m[r].to);
        if (json) {
            /* hash positions are 64-bit: decimal strings, exact everywhere */
            char lo[24], hi[24];
            snprintf(lo, sizeof lo, "%llu", (unsigned long long)m[r].lo);
            snprintf(hi, sizeof hi, "%llu", (unsigned long long)m[r].hi);
            json_t *o = json_object();
            cli_json_put(o, "lo", json_string(lo));
            cli_json_put(o, "hi", json_string(hi));
            cli_json_put(o, "from", cli_json_str(from));
            cli_json_put(o, "to", cli_json_str(to));
            cli_json_append(first, o);
        } else {
            printf("(%016llx, %016llx] ", (unsigned long long)m[r].lo, (unsigned long long)m[r].hi);
            cli_print_name(stdout, from);
            printf(" -> ");
            cli_print_name(stdout, to);
            printf("\n");
        }
    }
    int out_rc = CLI_OK;
    if (json) {
        cli_json_put(doc, "nodes", nodes);
        cli_json_put(doc, "first_ranges", first);
    } else if (exact) {
        printf("%zu moved range%s%s\n", count, count == 1 ? "" : "s",
               count > show ? " (--ranges N lists them)" : "");
    }
    int terr = placer_snapshot_in_transition(b) ? transition_report(b, paths[1], doc) : 0;
    if (terr) {
        fprintf(stderr, "placer diff: %s: its transition: %s\n", paths[1], placer_strerror(terr));
        json_decref(doc);
        out_rc = terr == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    } else if (json) {
        out_rc = cli_json_emit("diff", doc);
    }
    placer_moves_free(m);
    free(out_of);
    free(into);
    free(ia.order);
    free(ib.order);
    placer_snapshot_free(a);
    placer_snapshot_free(b);
    return out_rc;
}
