/*
 * test_kafka_describe.c -- `kafka-topics.sh --describe` text read as Kafka
 * 3.x prints it (tests/data/kafka-describe-*.txt, in TopicCommand's exact
 * format: Kafka 3.0's lines and 3.7's with Elr), and every damaged form of
 * it refused with a line number, never a crash: each truncation and each
 * byte replaced by a tab, comma, digit, letter, newline or NUL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../control/kafka_describe.h"
#include "check.h"
#include "placer_control.h"

static char *slurp(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", TEST_DATA, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    static char buf[1 << 16];
    *len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    char *out = malloc(*len + 1);
    memcpy(out, buf, *len);
    out[*len] = '\0';
    return out;
}

static int replicas_are(const plc_kafka_desc *d, uint32_t p, const char *want)
{
    char got[256] = "";
    size_t at = 0;
    for (uint32_t i = d->first[p]; i < d->first[p + 1]; i++)
        at += (size_t)snprintf(got + at, sizeof got - at, i > d->first[p] ? ",%d" : "%d",
                               d->replica[i]);
    if (strcmp(got, want))
        fprintf(stderr, "partition %u: replicas %s, want %s\n", p, got, want);
    return !strcmp(got, want);
}

static void test_kafka30(void)
{
    size_t len;
    char *text = slurp("kafka-describe-3.0.txt", &len);
    plc_kafka_desc d;
    char why[512];
    CHECK_EQ(plc_kafka_describe_parse(text, len, NULL, &d, why, sizeof why), 0);
    CHECK(!strcmp(d.topic, "orders"));
    CHECK_EQ(d.ntopics, 1);
    CHECK_EQ(d.partitions, 6);
    CHECK_EQ(d.replication, 3);
    CHECK_EQ(d.leader[0], 1);
    CHECK_EQ(d.leader[4], 2);
    CHECK(replicas_are(&d, 0, "1,2,3"));
    CHECK(replicas_are(&d, 5, "3,1,2"));
    CHECK_EQ(d.nreplica, 18);
    plc_kafka_desc_free(&d);
    CHECK_EQ(plc_kafka_describe_parse(text, len, "orders", &d, why, sizeof why), 0);
    plc_kafka_desc_free(&d);
    free(text);
}

static void test_kafka37(void)
{
    size_t len;
    char *text = slurp("kafka-describe-3.7.txt", &len);
    plc_kafka_desc d;
    char why[512];
    CHECK_EQ(plc_kafka_describe_parse(text, len, "clicks", &d, why, sizeof why), 0);
    CHECK_EQ(d.partitions, 3);
    CHECK_EQ(d.ntopics, 3);
    CHECK_EQ(d.leader[1], -1); /* Leader: none */
    CHECK(replicas_are(&d, 1, "3,1"));
    plc_kafka_desc_free(&d);
    CHECK_EQ(plc_kafka_describe_parse(text, len, "orders", &d, why, sizeof why), 0);
    CHECK_EQ(d.partitions, 4);
    CHECK_EQ(d.leader[1], 3);
    CHECK(replicas_are(&d, 1, "2,3,4")); /* being reassigned: Kafka's whole list */
    CHECK(replicas_are(&d, 3, "2,1"));
    plc_kafka_desc_free(&d);
    CHECK_EQ(plc_kafka_describe_parse(text, len, "__consumer_offsets", &d, why, sizeof why), 0);
    CHECK_EQ(d.partitions, 1);
    plc_kafka_desc_free(&d);
    /* no topic named: the text holds three */
    CHECK_EQ(plc_kafka_describe_parse(text, len, NULL, &d, why, sizeof why), PLACER_EFORMAT);
    CHECK(strstr(why, "line 5: a second topic") != NULL);
    CHECK(d.leader == NULL && d.partitions == 0);
    CHECK_EQ(plc_kafka_describe_parse(text, len, "nope", &d, why, sizeof why), PLACER_EFORMAT);
    CHECK(strstr(why, "no topic \"nope\"") && strstr(why, "3 topics"));
    /* CRLF line ends read the same */
    char *crlf = malloc(2 * len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n')
            crlf[n++] = '\r';
        crlf[n++] = text[i];
    }
    CHECK_EQ(plc_kafka_describe_parse(crlf, n, "orders", &d, why, sizeof why), 0);
    CHECK(replicas_are(&d, 2, "3,1"));
    plc_kafka_desc_free(&d);
    free(crlf);
    free(text);
}

typedef struct bad_case {
    const char *text;
    const char *why; /* a part of the reason, with its line */
} bad_case;

static const bad_case bad[] = {
    {"Topic: t\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: \n"
     "\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n",
     "topic \"t\" ends after 1 of its 2 partitions"},
    {"Topic: t\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: \n"
     "\tTopic: t\tPartition: 1\tLeader: 1\tReplicas: 1\tIsr: 1\n",
     "line 2: partition 1 where 0 was expected"},
    {"Topic: t\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
     "\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n"
     "\tTopic: t\tPartition: 1\tLeader: 1\tReplicas: 1\tIsr: 1\n",
     "line 3: partition 1 past the topic's 1 partitions"},
    {"\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n", "line 1: partition of topic"},
    {"Topic: t\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
     "\tTopic: u\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n",
     "line 2: partition of topic \"u\" under topic \"t\""},
    {"Topic: t\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
     "\tTopic: t\tPartition: 0\tLeader: x\tReplicas: 1\tIsr: 1\n",
     "line 2: Leader \"x\" is not a broker id"},
    {"Topic: t\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
     "\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1,1\tIsr: 1\n",
     "line 2: Replicas lists broker 1 twice"},
    {"Topic: t\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
     "\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1,\tIsr: 1\n",
     "line 2: Replicas ends with a comma"},
    {"Topic: t\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
     "\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: \tIsr: 1\n",
     "line 2: partition 0 lists no replicas"},
    {"Topic: t\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
     "\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 2147483648\tIsr: 1\n",
     "is not a broker id (0 to 2147483647)"},
    {"Topic: t\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
     "\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1\n",
     "line 2: a partition line needs Partition, Leader, Replicas and Isr"},
    {"Topic: t\tPartitionCount: 65537\tReplicationFactor: 1\tConfigs: \n",
     "line 1: PartitionCount \"65537\" is not 1 to 65536"},
    {"Topic: t\tPartitionCount: 0\tReplicationFactor: 1\tConfigs: \n", "is not 1 to 65536"},
    {"Topic: t\tPartitionCount: 01\tReplicationFactor: 1\tConfigs: \n", "is not 1 to 65536"},
    {"Topic: t\tReplicationFactor: 1\tConfigs: \n", "line 1: topic \"t\" has no PartitionCount"},
    {"Topic: a b\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n",
     "line 1: topic name \"a b\" holds a byte Kafka refuses"},
    {"Topic: \tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n",
     "line 1: topic name \"\" is not 1 to 249 bytes"},
    {"Topic: t\tPartitionCount\tReplicationFactor: 1\tConfigs: \n",
     "line 1: \"PartitionCount\" is not a field"},
    {"\n\nWARN something\n", "line 3: \"WARN something\" is neither a topic line"},
    {"Topic: t\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
     "\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n"
     "Topic: t\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n",
     "line 3: topic \"t\" is described twice"},
    {"", "no topic \"t\" in the text (it describes 0 topics)"},
    {"Topic: t\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n\tTopic: t\0\n",
     "line 2: a NUL byte"},
};

static void test_bad(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t len = strlen(bad[i].text);
        if (strstr(bad[i].why, "NUL"))
            len += 2;
        plc_kafka_desc d;
        char why[512];
        int rc = plc_kafka_describe_parse(bad[i].text, len, "t", &d, why, sizeof why);
        CHECK_EQ(rc, PLACER_EFORMAT);
        if (!strstr(why, bad[i].why))
            fprintf(stderr, "case %zu: \"%s\", want \"%s\"\n", i, why, bad[i].why);
        CHECK(strstr(why, bad[i].why) != NULL);
        CHECK(d.leader == NULL && d.first == NULL && d.replica == NULL);
    }
}

/* Every prefix and every byte replaced: 0 or EFORMAT with a reason, and
 * what is accepted is whole (offsets ascending, leaders -1 or ids). */
static void test_damaged(void)
{
    size_t len;
    char *text = slurp("kafka-describe-3.7.txt", &len);
    char *copy = malloc(len);
    static const char subs[] = {'\t', ',', '7', 'x', '\n', '\0', ' ', ':'};
    long accepted = 0, refused = 0;
    for (size_t at = 0; at <= len; at++) {
        for (size_t s = 0; s <= sizeof subs; s++) {
            size_t n = s == sizeof subs ? at : len;
            if (s == sizeof subs) {
                memcpy(copy, text, at); /* a prefix */
            } else {
                if (at == len)
                    continue;
                memcpy(copy, text, len);
                copy[at] = subs[s];
            }
            plc_kafka_desc d;
            char why[512] = "x";
            int rc = plc_kafka_describe_parse(copy, n, "orders", &d, why, sizeof why);
            CHECK_ALL(rc == 0 || (rc == PLACER_EFORMAT && why[0]), "a damaged text's verdict");
            if (rc == 0) {
                accepted++;
                int whole = d.first[0] == 0 && d.first[d.partitions] == d.nreplica;
                for (uint32_t p = 0; p < d.partitions; p++)
                    whole &= d.first[p] < d.first[p + 1] && d.leader[p] >= -1;
                CHECK_ALL(whole, "an accepted damaged text's partitions");
            } else {
                refused++;
            }
            plc_kafka_desc_free(&d);
        }
    }
    printf("damaged texts: %ld accepted, %ld refused\n", accepted, refused);
    CHECK(refused > accepted);
    free(copy);
    free(text);
}

int main(void)
{
    test_kafka30();
    test_kafka37();
    test_bad();
    test_damaged();
    return check_done("kafka_describe");
}
