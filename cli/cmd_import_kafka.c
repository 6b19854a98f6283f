/* cmd_import_kafka.c -- `placer import-kafka DESCRIBE.txt --topic T -o
 * FILE.snap`: a topic as `kafka-topics.sh --describe` prints it into a
 * snapshot that sends each key to the partition the producer's partitioner
 * chooses, with that partition's leader and replicas. */

#include <stdio.h>

#include "cli.h"

void cmd_import_kafka_usage(FILE *out)
{
    fprintf(out,
            "usage: placer import-kafka [OPTIONS] DESCRIBE.txt [--topic T] -o FILE.snap\n"
            "\n"
            "Import a Kafka topic from the text kafka-topics.sh --describe prints (Kafka\n"
            "3.x; kafka-topics.sh --bootstrap-server B --describe --topic T > DESCRIBE.txt):\n"
            "its partitions, each led by its leader with its replicas, become a partitions\n"
            "snapshot whose keys go to partitions as the producer's partitioner sends them\n"
            "(librdkafka 2.0's, bit for bit; \"compat\": \"kafka\", docs/COMPAT.md). Brokers\n"
            "are named by their id. A partition with Leader: none has no owner (placer\n"
            "lookup prints \"-\"). DESCRIBE.txt may be - for standard input.\n"
            "\n"
            "  -o, --output FILE        where to write the snapshot\n"
            "  --topic T                the topic to import (default: the only one the text\n"
            "                           describes)\n"
            "  --partitioner P          murmur2_random (the default: the Java client's for\n"
            "                           keyed records), murmur2, consistent_random\n"
            "                           (librdkafka's default), consistent, fnv1a_random, fnv1a\n"
            "  --epoch N                the snapshot's epoch (default 0)\n"
            "  --membership-out FILE    also write the membership file (JSON) the topic makes:\n"
            "                           `placer build FILE` gives the same snapshot (with it,\n"
            "                           -o may be left out)\n"
            "  --json                   print the summary as JSON\n"
            "  -h, --help               this help\n");
}

int cli_kafka_snapshot(const placer_snapshot *s)
{
    return placer_snapshot_compat(s) == PLACER_COMPAT_KAFKA;
}

static const struct option options[] = {
    CLI_IMPORT_OPTIONS,
    {"topic", required_argument, NULL, CLI_OPT_IMPORT_POOL},
    {"partitioner", required_argument, NULL, CLI_OPT_IMPORT_PARTITIONER},
    {0},
};

/* An unknown --partitioner, said as the library's refusals are. */
static int unknown_partitioner(const cli_import *im, char *why, size_t why_len)
{
    if (!im->partitioner || placer_compat_has_key_hash(PLACER_COMPAT_KAFKA, im->partitioner))
        return 0;
    snprintf(why, why_len, "--partitioner %s: librdkafka's are murmur2, murmur2_random, "
             "consistent, consistent_random, fnv1a, fnv1a_random", im->partitioner);
    return PLACER_EFORMAT;
}

static int membership(const cli_import *im, const char *text, size_t len, char **doc,
                      size_t *doc_len, char *why, size_t why_len)
{
    int err = unknown_partitioner(im, why, why_len);
    return err ? err : placer_kafka_membership(text, len, im->pool, im->partitioner, doc, doc_len, why,
                                   why_len);
}

static int import(const cli_import *im, const char *text, size_t len, placer_snapshot **out,
                  char *why, size_t why_len)
{
    int err = unknown_partitioner(im, why, why_len);
    return err ? err
               : placer_kafka_import(text, len, im->pool, im->partitioner, im->epoch, out, why,
                                     why_len);
}

int cmd_import_kafka(int argc, char **argv)
{
    static const cli_importer imp = {"import-kafka", "the topic's membership", NULL, 0,
                                     options, cmd_import_kafka_usage, membership, import};
    return cli_import_run(&imp, argc, argv);
}
