/*
 * kafka_describe.c -- `kafka-topics.sh --describe` text into one topic's
 * partitions (kafka_describe.h gives the format). One pass over the lines;
 * each line is cut at its tabs into "Name: value" fields. Only the topic
 * asked for is stored; every other line is still checked, so a damaged
 * file is refused wherever the damage is.
 */
#include "kafka_describe.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "import_messages.h"
#include "placer_control.h"

typedef struct span {
    const char *s;
    size_t n;
} span;

typedef struct parser {
    plc_imp_msgs msgs;
    plc_kafka_desc *out;
    const char *want;       /* the topic asked for, or NULL */
    size_t line;
    /* the topic whose partition lines are being read */
    char cur[PLC_KAFKA_TOPIC_MAX + 1];
    int in_topic, selected, found;
    uint32_t count, next;   /* its PartitionCount, the partition expected next */
    size_t cap;             /* room in out->replica */
} parser;

static int fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = plc_imp_failv(&p->msgs, NULL, p->line, fmt, ap);
    va_end(ap);
    return rc;
}

/* A span for a message: escaped, cut to 64 bytes' worth. */
static const char *show(span w, char *buf, size_t n)
{
    placer_escape(buf, n, w.s, w.n < 64 ? w.n : 64);
    return buf;
}

static int is(span w, const char *lit)
{
    return w.n == strlen(lit) && !memcmp(w.s, lit, w.n);
}

/* The next tab-separated field of *rest into name and value ("Name: value");
 * 0 when there is none left, -1 when the field has no ": ". */
static int next_field(span *rest, span *name, span *value)
{
    if (!rest->n)
        return 0;
    const char *tab = memchr(rest->s, '\t', rest->n);
    span f = {rest->s, tab ? (size_t)(tab - rest->s) : rest->n};
    rest->s += f.n + (tab ? 1 : 0);
    rest->n -= f.n + (tab ? 1 : 0);
    for (size_t i = 0; i + 1 < f.n; i++)
        if (f.s[i] == ':' && f.s[i + 1] == ' ') {
            *name = (span){f.s, i};
            *value = (span){f.s + i + 2, f.n - i - 2};
            return 1;
        }
    if (f.n && f.s[f.n - 1] == ':') { /* "Isr:" would not occur; "Configs: " always has its space */
        *name = (span){f.s, f.n - 1};
        *value = (span){f.s + f.n, 0};
        return 1;
    }
    *name = f;
    return -1;
}

/* A decimal as Java prints an int: no sign, no leading zero, <= max. */
static long long decimal(span v, long long max)
{
    if (!v.n || v.n > 10 || (v.n > 1 && v.s[0] == '0'))
        return -1;
    long long x = 0;
    for (size_t i = 0; i < v.n; i++) {
        if (v.s[i] < '0' || v.s[i] > '9')
            return -1;
        x = x * 10 + (v.s[i] - '0');
    }
    return x <= max ? x : -1;
}

static int topic_name(parser *p, span v, char out[PLC_KAFKA_TOPIC_MAX + 1])
{
    char b[300];
    if (!v.n || v.n > PLC_KAFKA_TOPIC_MAX)
        return fail(p, "topic name \"%s\" is not 1 to %u bytes", show(v, b, sizeof b),
                    PLC_KAFKA_TOPIC_MAX);
    for (size_t i = 0; i < v.n; i++) {
        char c = v.s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return fail(p, "topic name \"%s\" holds a byte Kafka refuses (ASCII letters, "
                           "digits, '.', '_' and '-' only)", show(v, b, sizeof b));
    }
    memcpy(out, v.s, v.n);
    out[v.n] = '\0';
    return 0;
}

/* A comma-separated list of broker ids (maybe empty) checked; when ids is
 * not NULL, stored there (room for PLC_KAFKA_DESC_MAX_LIST) with their
 * number in *n. */
static int broker_list(parser *p, span name, span v, int32_t *ids, uint32_t *n)
{
    char b[100], c[100];
    uint32_t k = 0;
    int32_t local[PLC_KAFKA_DESC_MAX_LIST];
    if (!ids)
        ids = local;
    size_t at = 0;
    while (v.n && at <= v.n) {
        const char *comma = memchr(v.s + at, ',', v.n - at);
        span w = {v.s + at, comma ? (size_t)(comma - (v.s + at)) : v.n - at};
        long long id = decimal(w, INT32_MAX);
        if (id < 0)
            return fail(p, "%s: \"%s\" is not a broker id (0 to 2147483647)",
                        show(name, c, sizeof c), show(w, b, sizeof b));
        if (k == PLC_KAFKA_DESC_MAX_LIST)
            return fail(p, "%s lists more than %u brokers", show(name, c, sizeof c),
                        PLC_KAFKA_DESC_MAX_LIST);
        for (uint32_t j = 0; j < k; j++)
            if (ids[j] == (int32_t)id)
                return fail(p, "%s lists broker %lld twice", show(name, c, sizeof c), id);
        ids[k++] = (int32_t)id;
        if (!comma)
            break;
        at += w.n + 1;
        if (at == v.n)
            return fail(p, "%s ends with a comma", show(name, c, sizeof c));
    }
    if (n)
        *n = k;
    return 0;
}

static int finish_topic(parser *p)
{
    if (p->in_topic && p->next < p->count)
        return fail(p, "topic \"%s\" ends after %u of its %u partitions (the partitions of "
                       "an unfiltered --describe are all listed)", p->cur, p->next, p->count);
    p->in_topic = 0;
    return 0;
}

static int header(parser *p, span rest)
{
    span name, value;
    char b[100];
    int err = finish_topic(p);
    if (err)
        return err;
    if (next_field(&rest, &name, &value) != 1 || !is(name, "Topic"))
        return fail(p, "a topic line starts with \"Topic: \"");
    if ((err = topic_name(p, value, p->cur)))
        return err;
    long long count = -1, rf = -1;
    int configs = 0;
    while (!configs) {
        int got = next_field(&rest, &name, &value);
        if (got == 0)
            break;
        if (got < 0)
            return fail(p, "\"%s\" is not a field (Name: value)", show(name, b, sizeof b));
        if (is(name, "PartitionCount")) {
            if ((count = decimal(value, PLACER_MAX_PARTITIONS)) < 1)
                return fail(p, "PartitionCount \"%s\" is not 1 to %u", show(value, b, sizeof b),
                            PLACER_MAX_PARTITIONS);
        } else if (is(name, "ReplicationFactor")) {
            if ((rf = decimal(value, PLC_KAFKA_DESC_MAX_LIST)) < 0)
                return fail(p, "ReplicationFactor \"%s\" is not 0 to %u",
                            show(value, b, sizeof b), PLC_KAFKA_DESC_MAX_LIST);
        } else if (is(name, "Configs")) {
            configs = 1; /* the rest of the line: values may hold anything */
        }
        /* TopicId and fields of later versions: nothing placer needs */
    }
    if (count < 0 || rf < 0)
        return fail(p, "topic \"%s\" has no %s", p->cur,
                    count < 0 ? "PartitionCount" : "ReplicationFactor");
    int wanted = p->want ? !strcmp(p->want, p->cur) : p->out->ntopics == 0;
    if (!p->want && p->out->ntopics > 0)
        return fail(p, "a second topic (\"%s\" after \"%s\"): name the one to read", p->cur,
                    p->out->topic);
    p->out->ntopics++;
    if (wanted && p->found)
        return fail(p, "topic \"%s\" is described twice", p->cur);
    p->in_topic = 1;
    p->selected = wanted;
    p->count = (uint32_t)count;
    p->next = 0;
    if (wanted) {
        plc_kafka_desc *d = p->out;
        p->found = 1;
        memcpy(d->topic, p->cur, sizeof d->topic);
        d->partitions = (uint32_t)count;
        d->replication = (uint32_t)rf;
        d->leader = placer_mem_calloc((size_t)count, sizeof *d->leader);
        d->first = placer_mem_calloc((size_t)count + 1, sizeof *d->first);
        if (!d->leader || !d->first)
            return PLACER_ENOMEM;
    }
    return 0;
}

static int store(parser *p, long long leader, const int32_t *ids, uint32_t n)
{
    plc_kafka_desc *d = p->out;
    if (d->nreplica + n > p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        while (cap < d->nreplica + n)
            cap *= 2;
        int32_t *r = placer_mem_realloc(d->replica, cap * sizeof *r);
        if (!r)
            return PLACER_ENOMEM;
        d->replica = r;
        p->cap = cap;
    }
    memcpy(d->replica + d->nreplica, ids, n * sizeof *ids);
    d->leader[p->next] = (int32_t)leader;
    d->first[p->next] = (uint32_t)d->nreplica;
    d->nreplica += n;
    d->first[p->next + 1] = (uint32_t)d->nreplica;
    return 0;
}

static int partition_line(parser *p, span rest)
{
    span name, value;
    char b[100], t[PLC_KAFKA_TOPIC_MAX + 1];
    int err;
    if (next_field(&rest, &name, &value) != 1 || !is(name, "Topic"))
        return fail(p, "a partition line starts with \"\\tTopic: \"");
    if ((err = topic_name(p, value, t)))
        return err;
    if (!p->in_topic)
        return fail(p, "partition of topic \"%s\" before its topic line (describe without "
                       "the --under-replicated-partitions-like filters)", t);
    if (strcmp(t, p->cur))
        return fail(p, "partition of topic \"%s\" under topic \"%s\"", t, p->cur);
    long long part = -1, leader = -2;
    int32_t ids[PLC_KAFKA_DESC_MAX_LIST];
    uint32_t nids = 0;
    int have_replicas = 0, have_isr = 0;
    for (;;) {
        int got = next_field(&rest, &name, &value);
        if (got == 0)
            break;
        if (got < 0)
            return fail(p, "\"%s\" is not a field (Name: value)", show(name, b, sizeof b));
        if (is(name, "Partition")) {
            if ((part = decimal(value, INT32_MAX)) < 0)
                return fail(p, "Partition \"%s\" is not a partition number",
                            show(value, b, sizeof b));
        } else if (is(name, "Leader")) {
            if (is(value, "none"))
                leader = -1;
            else if ((leader = decimal(value, INT32_MAX)) < 0)
                return fail(p, "Leader \"%s\" is not a broker id or \"none\"",
                            show(value, b, sizeof b));
        } else if (is(name, "Replicas")) {
            if ((err = broker_list(p, name, value, ids, &nids)))
                return err;
            if (!nids)
                return fail(p, "partition %lld lists no replicas", part);
            have_replicas = 1;
        } else if (is(name, "Isr")) {
            if ((err = broker_list(p, name, value, NULL, NULL)))
                return err;
            have_isr = 1;
        } else if (is(name, "Adding Replicas") || is(name, "Removing Replicas") ||
                   ((is(name, "Elr") || is(name, "LastKnownElr")) && !is(value, "N/A"))) {
            if ((err = broker_list(p, name, value, NULL, NULL)))
                return err;
        }
        /* Elr: N/A, MarkedForDeletion and fields of later versions: nothing to read */
    }
    if (part < 0 || leader == -2 || !have_replicas || !have_isr)
        return fail(p, "a partition line needs Partition, Leader, Replicas and Isr");
    if (part >= p->count)
        return fail(p, "partition %lld past the topic's %u partitions", part, p->count);
    if (part != p->next)
        return fail(p, "partition %lld where %u was expected (the tool lists them in order, "
                       "each once)", part, p->next);
    if (p->selected && (err = store(p, leader, ids, nids)))
        return err;
    p->next++;
    return 0;
}

static int parse(parser *p, const char *text, size_t len)
{
    size_t at = 0;
    while (at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        span l = {text + at, nl ? (size_t)(nl - (text + at)) : len - at};
        at += l.n + 1;
        p->line++;
        if (l.n && l.s[l.n - 1] == '\r')
            l.n--;
        if (!l.n)
            continue;
        if (memchr(l.s, '\0', l.n))
            return fail(p, "a NUL byte in the text");
        int err;
        if (l.s[0] == '\t')
            err = partition_line(p, (span){l.s + 1, l.n - 1});
        else if (l.n >= 7 && !memcmp(l.s, "Topic: ", 7))
            err = header(p, l);
        else {
            char b[100];
            err = fail(p, "\"%s\" is neither a topic line (\"Topic: ...\") nor a partition "
                          "line (\"\\tTopic: ...\")", show(l, b, sizeof b));
        }
        if (err)
            return err;
    }
    p->line = 0;
    int err = finish_topic(p);
    if (err)
        return err;
    if (!p->found) {
        char b[300];
        if (p->want)
            return fail(p, "no topic \"%s\" in the text (it describes %u topic%s)",
                        shown(p->want, b, sizeof b), p->out->ntopics,
                        p->out->ntopics == 1 ? "" : "s");
        return fail(p, "no topic in the text");
    }
    return 0;
}

int plc_kafka_describe_parse(const char *text, size_t len, const char *topic,
                             plc_kafka_desc *out, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!out || (!text && len))
        return PLACER_ENULL;
    memset(out, 0, sizeof *out);
    parser p = {.out = out, .want = topic};
    p.msgs.why = why;
    p.msgs.why_len = why_len;
    int err = parse(&p, text ? text : "", len);
    if (err) {
        plc_kafka_desc_free(out);
        if (err == PLACER_ENOMEM && why && why_len)
            snprintf(why, why_len, "out of memory");
    }
    return err;
}

void plc_kafka_desc_free(plc_kafka_desc *d)
{
    if (!d)
        return;
    placer_mem_free(d->leader);
    placer_mem_free(d->first);
    placer_mem_free(d->replica);
    memset(d, 0, sizeof *d);
}
