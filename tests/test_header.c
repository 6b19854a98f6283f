/* test_header.c -- placer.h and placer_control.h compile on their own as
 * C11 (dav1d's header test) and the shared libraries export what they
 * declare. */
#include "placer.h"
#include "placer_control.h"

#include <stdio.h>
#include <string.h>

#include "check.h"

int main(void)
{
    placer_builder *b = placer_builder_new();
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_add_node(b, "only", "z", 1.0), 0);
    CHECK_EQ(placer_builder_build(b, 5, &s), 0);
    CHECK_EQ(placer_lookup(s, "k", 1), 0);
    CHECK_EQ(placer_snapshot_epoch(s), 5);
    CHECK_EQ(placer_crc32c(0, "123456789", 9), 0xE3069283);
    CHECK(strlen(placer_version_string()) >= 5);
    {
        char v[32];
        unsigned n = placer_version_number();
        snprintf(v, sizeof v, "%u.%u.%u", n / 10000, n / 100 % 100, n % 100);
        CHECK(strcmp(v, placer_version_string()) == 0);
        CHECK_EQ(n, PLACER_VERSION_NUMBER);
    }
    placer_snapshot_free(s);
    /* the strategies' declarations, through the shared library */
    CHECK_EQ(placer_builder_set_strategy(b, PLACER_PARTITIONS), 0);
    CHECK_EQ(placer_builder_set_partitions(b, 1024), 0);
    CHECK_EQ(placer_builder_set_key_hash(b, PLACER_HASH_COUCHBASE), 0);
    CHECK_EQ(placer_builder_build(b, 6, &s), 0);
    CHECK_EQ(placer_partition(s, "hello", 5), 528);
    placer_snapshot_free(s);
    const char *cfg = "{\"vBucketServerMap\": {\"serverList\": [\"a:1\"], \"numReplicas\": 0, "
                      "\"vBucketMap\": [[0]]}}";
    CHECK_EQ(placer_couchbase_import(cfg, strlen(cfg), &s), 0);
    CHECK_EQ(placer_partition(s, "foo", 3), 0);
    placer_snapshot_free(s);
    CHECK_EQ(placer_crc32(0, "123456789", 9), 0xCBF43926);
    CHECK_EQ(placer_jump_hash(256, 1024), 520);
    placer_builder_free(b);
    return check_done("test_header_c");
}
