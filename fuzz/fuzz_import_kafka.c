/*
 * fuzz_import_kafka.c -- arbitrary bytes as `kafka-topics.sh --describe`
 * text (plc_kafka_describe_parse): by the first byte, topic "t" or the only
 * one the text describes. Never a crash, a leak or undefined behaviour; a
 * refusal is PLACER_EFORMAT with a reason; what is accepted is whole: the
 * topic's PartitionCount partitions, in order, each with at least one
 * replica and a leader that is a broker id or none.
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
    }
    plc_kafka_desc_free(&d);
    return 0;
}
