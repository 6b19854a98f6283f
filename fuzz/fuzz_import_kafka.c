/*
 * fuzz_import_kafka.c -- arbitrary bytes as `kafka-topics.sh --describe`
 * text (plc_kafka_describe_parse): by the first byte, topic "t" or the only
 * one the text describes. Never a crash, a leak or undefined behaviour; a
 * refusal is PLACER_EFORMAT with a reason; what is accepted is whole: the
 * topic's PartitionCount partitions, in order, each with at least one
 * replica and a leader that is a broker id or none; and its membership
 * document (placer_kafka_membership) parses and builds, unless a partition
 * names more brokers than the partition map holds.
 */
#include "../control/kafka_describe.h"
#include "fuzz.h"
#include "placer_control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *topic = data[0] & 1 ? NULL : "t";
    plc_kafka_desc d;
    char why[512];
    int err = plc_kafka_describe_parse((const char *)data + 1, size - 1, topic, &d, why,
                                       sizeof why);
    FUZZ_ASSERT(err == 0 || err == PLACER_EFORMAT || err == PLACER_ENOMEM);
    FUZZ_ASSERT(strlen(why) < sizeof why);
    FUZZ_ASSERT(err != PLACER_EFORMAT || (why[0] && d.leader == NULL && d.replica == NULL));
    if (!err) {
        FUZZ_ASSERT(d.partitions >= 1 && d.partitions <= PLACER_MAX_PARTITIONS);
        FUZZ_ASSERT(!topic || !strcmp(d.topic, topic));
        FUZZ_ASSERT(d.first[0] == 0 && d.first[d.partitions] == d.nreplica);
        for (uint32_t p = 0; p < d.partitions; p++) {
            FUZZ_ASSERT(d.first[p] < d.first[p + 1]);
            FUZZ_ASSERT(d.first[p + 1] - d.first[p] <= PLC_KAFKA_DESC_MAX_LIST);
            FUZZ_ASSERT(d.leader[p] >= -1);
        }
        for (size_t i = 0; i < d.nreplica; i++)
            FUZZ_ASSERT(d.replica[i] >= 0);
        char *doc = NULL;
        size_t doc_len = 0;
        int got = placer_kafka_membership((const char *)data + 1, size - 1, topic,
                                          data[0] & 2 ? "consistent_random" : NULL, &doc,
                                          &doc_len, why, sizeof why);
        FUZZ_ASSERT(got == 0 || got == PLACER_ENOMEM ||
                    (got == PLACER_EFORMAT && strstr(why, "partition map holds")));
        if (!got) {
            placer_builder *b = NULL;
            uint64_t epoch = 0;
            int parsed = placer_membership_parse(doc, doc_len, "import", &b, &epoch, why,
                                                 sizeof why);
            FUZZ_ASSERT(parsed >= 0 || parsed == PLACER_ENOMEM);
            if (parsed >= 0) {
                placer_snapshot *s = NULL;
                int built = placer_builder_build(b, epoch, &s);
                FUZZ_ASSERT(built == 0 || built == PLACER_ENOMEM);
                placer_snapshot_free(s);
            }
            placer_builder_free(b);
        }
        placer_mem_free(doc);
    }
    plc_kafka_desc_free(&d);
    return 0;
}
