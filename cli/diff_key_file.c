/*
 * diff_key_file.c -- see diff_key_file.h. The keys are the user's, so the
 * figures are exact for them: no interval.
 */
#include "diff_key_file.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct move_pair {
    uint32_t from, to;
} move_pair;

typedef struct tally {
    uint64_t keys, moved, unplaced;
    move_pair *p;
    size_t np, cap;
} tally;

static int write_moved(FILE *f, int json, const char *k, size_t n, const char *from, const char *to)
{
    if (json) {
        json_t *o = cli_json_doc();
        cli_json_put_key(o, k, n);
        cli_json_put(o, "from", cli_json_str(from));
        cli_json_put(o, "to", cli_json_str(to));
        char *line = json_dumps(o, JSON_COMPACT);
        json_decref(o);
        if (!line)
            return -1;
        fputs(line, f);
        free(line);
    } else {
        cli_print_text(f, k, n);
        fputc('\t', f);
        cli_print_name(f, from);
        fputc('\t', f);
        cli_print_name(f, to);
    }
    return fputc('\n', f) == EOF ? -1 : 0;
}

static int one_key(const placer_snapshot *a, const placer_snapshot *b, const char *k, size_t n,
                   FILE *out, int json, tally *t)
{
    int oa = placer_lookup(a, k, n), ob = placer_lookup(b, k, n);
    if (oa < 0 || ob < 0) {
        t->unplaced++; /* an imported map's missing owner, in either */
        return 0;
    }
    t->keys++;
    const char *from = placer_node_id(a, (uint32_t)oa), *to = placer_node_id(b, (uint32_t)ob);
    if (!strcmp(from, to))
        return 0;
    t->moved++;
    if (t->np == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        move_pair *p = realloc(t->p, cap * sizeof *p);
        if (!p)
            return -1;
        t->p = p, t->cap = cap;
    }
    t->p[t->np++] = (move_pair){(uint32_t)oa, (uint32_t)ob};
    return out ? write_moved(out, json, k, n, from, to) : 0;
}

static int by_pair(const void *x, const void *y)
{
    const move_pair *a = x, *b = y;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    return (a->to > b->to) - (a->to < b->to);
}

static int by_share(const void *x, const void *y)
{
    const placer_diff_pair *a = x, *b = y;
    if (a->share != b->share)
        return a->share > b->share ? -1 : 1;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    return (a->to > b->to) - (a->to < b->to);
}

static int fill(const placer_snapshot *a, const placer_snapshot *b, tally *t, placer_diff_report *r)
{
    size_t size = r->size;
    *r = (placer_diff_report){.size = size, .keys = t->keys, .unplaced = t->unplaced};
    double n = (double)t->keys;
    r->moved = (double)t->moved / n;
    r->low95 = r->high95 = r->moved; /* exact for these keys */
    r->gives = calloc((size_t)placer_node_count(a) + 1, sizeof *r->gives);
    r->receives = calloc((size_t)placer_node_count(b) + 1, sizeof *r->receives);
    r->pairs = malloc((t->np + 1) * sizeof *r->pairs);
    if (!r->gives || !r->receives || !r->pairs)
        return -1;
    if (t->np) /* qsort takes no NULL, even for no elements */
        qsort(t->p, t->np, sizeof *t->p, by_pair);
    for (size_t i = 0; i < t->np; i++) {
        if (r->npairs && r->pairs[r->npairs - 1].from == t->p[i].from &&
            r->pairs[r->npairs - 1].to == t->p[i].to)
            r->pairs[r->npairs - 1].share += 1 / n;
        else
            r->pairs[r->npairs++] = (placer_diff_pair){t->p[i].from, t->p[i].to, 1 / n};
        r->gives[t->p[i].from] += 1 / n;
        r->receives[t->p[i].to] += 1 / n;
    }
    qsort(r->pairs, r->npairs, sizeof *r->pairs, by_share);
    return 0;
}

int cli_diff_key_file(const placer_snapshot *a, const placer_snapshot *b, const char *path,
                      FILE *moved, int json, placer_diff_report *r)
{
    char *text;
    size_t len;
    int rc = cli_read_file("diff", path, &text, &len);
    if (rc)
        return rc;
    tally t = {0};
    int err = 0;
    for (size_t at = 0; !err && at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        err = one_key(a, b, text + at, end - at, moved, json, &t);
        at = end + 1;
    }
    free(text);
    if (!err && !t.keys) {
        fprintf(stderr, "placer diff: no keys to compare%s\n",
                t.unplaced ? " (none has an owner in both snapshots)" : "");
        free(t.p);
        return CLI_BADINPUT;
    }
    if (!err)
        err = fill(a, b, &t, r);
    free(t.p);
    if (err) {
        cli_diff_key_file_free(r);
        fprintf(stderr, "placer diff: %s\n",
                moved && ferror(moved) ? "cannot write the moved keys" : placer_strerror(PLACER_ENOMEM));
        return CLI_FAILURE;
    }
    return CLI_OK;
}

void cli_diff_key_file_free(placer_diff_report *r)
{
    free(r->gives);
    free(r->receives);
    free(r->pairs);
    r->gives = r->receives = NULL;
    r->pairs = NULL;
    r->npairs = 0;
}
