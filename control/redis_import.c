/*
 * redis_import.c -- the text of Redis Cluster's CLUSTER NODES into a
 * membership document ("compat": "redis"), then a snapshot.
 *
 * One line a node: id, ip:port@cport[,hostname], flags, master id or "-",
 * ping-sent, pong-recv, config-epoch, link-state, then a master's slots
 * ("N", "N-M"). As Redis routes (cluster.c), a slot belongs to the master
 * that lists it: the "[N->-id]" and "[N-<-id]" markers of a slot being
 * migrated or imported change no owner until CLUSTER SETSLOT NODE, so they
 * are skipped. Replicas (flag "slave" or "replica") follow their master in
 * the partition map's replica columns, in the order of the text; nodes in
 * "handshake" are not members yet and are left out. The epoch is the
 * largest config-epoch. Every slot must have exactly one master; any line
 * placer cannot read is refused with its number.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compat_import.h"
#include "control_alloc.h"
#include "placer_control.h"

#define SLOTS 16384u
#define ID_LEN 40u   /* CLUSTER_NAMELEN */
#define FIELDS 8u    /* before the slots */

typedef struct rn {
    json_t *ids;       /* node ids, in the text's order */
    json_t *addresses; /* "ip:port" of each */
    json_t *masters;   /* "-" or the master's id, of each */
    json_t *index;     /* id -> position */
    json_t *lines;     /* line number of each */
    uint32_t owner[SLOTS]; /* position + 1 of each slot's master; 0: none */
    uint64_t epoch;
    char *why;
    size_t why_len;
} rn;

static int fail(rn *r, size_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(rn *r, size_t line, const char *fmt, ...)
{
    if (r->why && r->why_len) {
        char raw[512]; /* quotes the text's fields: escaped (placer_escape) */
        int n = line ? snprintf(raw, sizeof raw, "line %zu: ", line) : 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw + n, sizeof raw - (size_t)n, fmt, ap);
        va_end(ap);
        placer_escape(r->why, r->why_len, raw, strlen(raw));
    }
    return PLACER_EFORMAT;
}

typedef struct field {
    const char *s;
    size_t n;
} field;

static int is_id(field f)
{
    if (f.n != ID_LEN)
        return 0;
    for (size_t i = 0; i < f.n; i++)
        if (!strchr("0123456789abcdef", f.s[i]) || !f.s[i])
            return 0;
    return 1;
}

/* Decimal digits up to max; -1 when not. */
static long long number(const char *s, size_t n, long long max)
{
    long long v = 0;
    if (!n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        int d = s[i] - '0';
        if (v > (max - d) / 10) /* v * 10 + d > max, asked without overflowing */
            return -1;
        v = v * 10 + d;
    }
    return v;
}

static int has_flag(field flags, const char *name)
{
    size_t k = strlen(name);
    for (size_t i = 0; i < flags.n;) {
        size_t e = i;
        while (e < flags.n && flags.s[e] != ',')
            e++;
        if (e - i == k && !memcmp(flags.s + i, name, k))
            return 1;
        i = e + 1;
    }
    return 0;
}

/* "ip:port@cport[,hostname]" -> "ip:port" (n bytes at s). */
static int address(field f, size_t *n)
{
    size_t end = 0;
    while (end < f.n && f.s[end] != '@' && f.s[end] != ',')
        end++;
    size_t colon = end;
    while (colon > 0 && f.s[colon - 1] != ':')
        colon--;
    if (colon == 0 || number(f.s + colon, end - colon, 65535) < 0)
        return -1;
    for (size_t i = 0; i < end; i++)
        if (f.s[i] < 0x21 || f.s[i] > 0x7e)
            return -1; /* ip, or a name: printable ASCII */
    *n = end;
    return 0;
}

/* A master's slot field: "N" or "N-M" owned; "[...]" markers skipped. */
static int slot_field(rn *r, size_t line, field f, uint32_t me, const char *id)
{
    if (f.n >= 2 && f.s[0] == '[' && f.s[f.n - 1] == ']')
        return 0;
    size_t dash = 0;
    while (dash < f.n && f.s[dash] != '-')
        dash++;
    long long a = number(f.s, dash, SLOTS - 1);
    long long b = dash < f.n ? number(f.s + dash + 1, f.n - dash - 1, SLOTS - 1) : a;
    if (a < 0 || b < a)
        return fail(r, line, "\"%.*s\": expected a slot or a range of slots from 0 to %u",
                    (int)(f.n > 40 ? 40 : f.n), f.s, SLOTS - 1);
    for (long long s = a; s <= b; s++) {
        if (r->owner[s]) {
            json_t *other = json_array_get(r->lines, r->owner[s] - 1);
            return fail(r, line, "slot %lld of %s is also claimed on line %lld", s, id,
                        (long long)json_integer_value(other));
        }
        r->owner[s] = me + 1;
    }
    return 0;
}

static int read_line(rn *r, size_t line, const char *s, size_t n)
{
    field f[FIELDS];
    size_t nf = 0, i = 0;
    while (i < n && nf < FIELDS) {
        while (i < n && s[i] == ' ')
            i++;
        size_t start = i;
        while (i < n && s[i] != ' ')
            i++;
        if (i > start)
            f[nf++] = (field){s + start, i - start};
    }
    if (nf == 0)
        return 0; /* a blank line */
    if (nf < FIELDS)
        return fail(r, line, "expected id, address, flags, master, ping-sent, pong-recv, "
                             "config-epoch, link-state, then slots (CLUSTER NODES)");
    if (!is_id(f[0]))
        return fail(r, line, "the node id must be 40 lowercase hex digits");
    if (has_flag(f[2], "handshake"))
        return 0; /* not a member yet: its id is a placeholder */
    int master = has_flag(f[2], "master"), replica = has_flag(f[2], "slave") || has_flag(f[2], "replica");
    if (master == replica)
        return fail(r, line, "flags \"%.*s\": expected master or slave", (int)(f[2].n > 60 ? 60 : f[2].n),
                    f[2].s);
    if (master ? !(f[3].n == 1 && f[3].s[0] == '-') : !is_id(f[3]))
        return fail(r, line, "%s", master ? "a master's master field must be \"-\""
                                          : "a replica's master field must be its master's id");
    long long cepoch = number(f[6].s, f[6].n, (long long)(~0ull >> 1));
    if (number(f[4].s, f[4].n, (long long)(~0ull >> 1)) < 0 ||
        number(f[5].s, f[5].n, (long long)(~0ull >> 1)) < 0 || cepoch < 0)
        return fail(r, line, "ping-sent, pong-recv and config-epoch must be integers");
    size_t alen;
    if (address(f[1], &alen))
        return fail(r, line, "the address must be ip:port@cport (printable ASCII, a port up to "
                             "65535)");
    if (alen > PLACER_MAX_ID_LEN)
        return fail(r, line, "an address longer than placer's %u bytes", PLACER_MAX_ID_LEN);
    char id[ID_LEN + 1];
    memcpy(id, f[0].s, ID_LEN);
    id[ID_LEN] = '\0';
    const json_t *dup = json_object_get(r->index, id);
    if (dup)
        return fail(r, line, "node %s is also on line %lld", id,
                    (long long)json_integer_value(json_array_get(r->lines, (size_t)json_integer_value(dup))));
    size_t me = json_array_size(r->ids);
    if (me >= PLACER_MAX_NODES)
        return fail(r, line, "more than %u nodes", PLACER_MAX_NODES);
    if (json_array_append_new(r->ids, json_string(id)) ||
        json_array_append_new(r->addresses, json_stringn(f[1].s, alen)) ||
        json_array_append_new(r->masters, json_stringn(f[3].s, f[3].n)) ||
        json_array_append_new(r->lines, json_integer((json_int_t)line)) ||
        json_object_set_new(r->index, id, json_integer((json_int_t)me)))
        return PLACER_ENOMEM;
    if ((uint64_t)cepoch > r->epoch)
        r->epoch = (uint64_t)cepoch;
    /* the slots, after the eight fields */
    while (i < n) {
        while (i < n && s[i] == ' ')
            i++;
        size_t start = i;
        while (i < n && s[i] != ' ')
            i++;
        if (i == start)
            continue;
        field sf = {s + start, i - start};
        int err = replica && !(sf.s[0] == '[')
                      ? fail(r, line, "replica %s lists slots (only masters own slots)", id)
                      : slot_field(r, line, sf, (uint32_t)me, id);
        if (err)
            return err;
    }
    return 0;
}

/* Each master's replicas, in the text's order: replicas[m] (a JSON array
 * of ids per master position). Returns the most any master has. */
static int attach_replicas(rn *r, json_t *replicas, size_t *most)
{
    size_t n = json_array_size(r->ids);
    *most = 0;
    for (size_t i = 0; i < n; i++)
        if (json_array_append_new(replicas, json_array()))
            return PLACER_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *m = json_string_value(json_array_get(r->masters, i));
        if (!strcmp(m, "-"))
            continue;
        size_t line = (size_t)json_integer_value(json_array_get(r->lines, i));
        const json_t *at = json_object_get(r->index, m);
        if (!at)
            return fail(r, line, "replica of %s, a node not in the text", m);
        size_t mi = (size_t)json_integer_value(at);
        if (strcmp(json_string_value(json_array_get(r->masters, mi)), "-"))
            return fail(r, line, "replica of %s, which is a replica itself", m);
        json_t *list = json_array_get(replicas, mi);
        if (json_array_append(list, json_array_get(r->ids, i)))
            return PLACER_ENOMEM;
        if (json_array_size(list) > PLACER_MAX_REPLICAS - 1)
            return fail(r, line, "master %s has more than %u replicas (placer keeps %u copies)", m,
                        PLACER_MAX_REPLICAS - 1, PLACER_MAX_REPLICAS);
        if (json_array_size(list) > *most)
            *most = json_array_size(list);
    }
    return 0;
}

static int document(rn *r, json_t *doc)
{
    if (!json_array_size(r->ids))
        return fail(r, 0, "no nodes (expected the text of CLUSTER NODES)");
    json_t *replicas = json_array(), *nodes = json_array(), *slots = json_array();
    size_t most;
    int err = replicas && nodes && slots ? attach_replicas(r, replicas, &most) : PLACER_ENOMEM;
    for (size_t i = 0; !err && i < json_array_size(r->ids); i++) {
        json_t *node = json_pack("{sOsO}", "id", json_array_get(r->ids, i), "address",
                                 json_array_get(r->addresses, i));
        if (!node || json_array_append_new(nodes, node))
            err = PLACER_ENOMEM;
    }
    for (uint32_t s = 0; !err && s < SLOTS;) {
        uint32_t e = s;
        while (e + 1 < SLOTS && r->owner[e + 1] == r->owner[s])
            e++;
        if (!r->owner[s]) {
            err = fail(r, 0, s == e ? "slot %u has no master (CLUSTER NODES of a complete "
                                      "cluster lists every slot)"
                                    : "slots %u to %u have no master (CLUSTER NODES of a "
                                      "complete cluster lists every slot)",
                       s, e);
            break;
        }
        size_t m = r->owner[s] - 1;
        json_t *row = json_pack("[IIO]", (json_int_t)s, (json_int_t)e, json_array_get(r->ids, m));
        if (!row || json_array_extend(row, json_array_get(replicas, m)) ||
            json_array_append_new(slots, row))
            err = PLACER_ENOMEM;
        s = e + 1;
    }
    if (!err && (json_object_set_new(doc, "compat", json_string("redis")) ||
                 json_object_set_new(doc, "epoch", json_integer((json_int_t)r->epoch)) ||
                 json_object_set(doc, "nodes", nodes) || json_object_set(doc, "slots", slots)))
        err = PLACER_ENOMEM;
    json_decref(replicas);
    json_decref(nodes);
    json_decref(slots);
    return err;
}

int placer_redis_membership(const char *text, size_t len, char **json, size_t *json_len,
                            char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!text || !json)
        return PLACER_ENULL;
    rn *r = placer_mem_calloc(1, sizeof *r);
    if (!r)
        return PLACER_ENOMEM;
    r->why = why;
    r->why_len = why_len;
    r->ids = json_array();
    r->addresses = json_array();
    r->masters = json_array();
    r->lines = json_array();
    r->index = json_object();
    json_t *doc = json_object();
    int err = r->ids && r->addresses && r->masters && r->lines && r->index && doc ? 0 : PLACER_ENOMEM;
    size_t line = 0;
    for (size_t i = 0; !err && i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        line++;
        size_t n = e - i;
        if (n && text[i + n - 1] == '\r')
            n--;
        if (memchr(text + i, '\0', n))
            err = fail(r, line, "holds a NUL byte (expected the text of CLUSTER NODES)");
        else
            err = read_line(r, line, text + i, n);
        i = e + 1;
    }
    if (!err)
        err = document(r, doc);
    if (!err)
        err = plc_ctl_dump_membership(doc, json, json_len);
    json_decref(doc);
    json_decref(r->ids);
    json_decref(r->addresses);
    json_decref(r->masters);
    json_decref(r->lines);
    json_decref(r->index);
    placer_mem_free(r);
    return err;
}

int placer_redis_import(const char *text, size_t len, placer_snapshot **out, char *why,
                        size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!out)
        return PLACER_ENULL;
    char *doc = NULL;
    size_t doc_len = 0;
    int err = placer_redis_membership(text, len, &doc, &doc_len, why, why_len);
    return plc_ctl_import_doc(err, doc, doc_len, "the cluster's membership", 0, 0, out, why,
                              why_len);
}
