/* cmd_version.c -- `placer version`: version, CPU features, chosen kernels. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "placer.h"

void cmd_version_usage(FILE *out)
{
    fprintf(out,
            "usage: placer version [--json]\n"
            "\n"
            "Print placer's version, the CPU features detected at run time (cpuid and\n"
            "xgetbv) and the kernel chosen for each job.\n"
            "\n"
            "  --json   one JSON object instead of text\n");
}

static const struct {
    unsigned bit;
    const char *name;
} features[] = {
    {PLACER_CPU_SSE42, "sse4.2"},   {PLACER_CPU_PCLMUL, "pclmul"},
    {PLACER_CPU_AVX2, "avx2"},      {PLACER_CPU_AVX512, "avx512"},
    {PLACER_CPU_ARM_CRC, "arm-crc"}, {PLACER_CPU_ARM_NEON, "neon"},
};

int cmd_version(int argc, char **argv)
{
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else {
            fprintf(stderr, "placer version: unknown option '%s'\n", argv[i]);
            cmd_version_usage(stderr);
            return CLI_USAGE;
        }
    }
    unsigned f = placer_cpu_features();
    const char *crc = placer_kernel_name(PLACER_KERNEL_CRC32C);
    const char *hash = placer_kernel_name(PLACER_KERNEL_HASH64);
    const char *search = placer_kernel_name(PLACER_KERNEL_SEARCH);
    const char *crc32 = placer_kernel_name(PLACER_KERNEL_CRC32);
    const char *hrw = placer_kernel_name(PLACER_KERNEL_RENDEZVOUS);
    if (json) {
        printf("{\"version\":\"%s\",\"cpu_features\":[", placer_version_string());
        int first = 1;
        for (size_t i = 0; i < sizeof features / sizeof features[0]; i++)
            if (f & features[i].bit) {
                printf("%s\"%s\"", first ? "" : ",", features[i].name);
                first = 0;
            }
        printf("],\"kernels\":{\"crc32c\":\"%s\",\"hash64\":\"%s\",\"search\":\"%s\","
               "\"crc32\":\"%s\",\"rendezvous\":\"%s\"}}\n",
               crc, hash, search, crc32, hrw);
        return CLI_OK;
    }
    printf("placer %s\n", placer_version_string());
    printf("cpu features:");
    int any = 0;
    for (size_t i = 0; i < sizeof features / sizeof features[0]; i++)
        if (f & features[i].bit) {
            printf(" %s", features[i].name);
            any = 1;
        }
    printf("%s\n", any ? "" : " (none used by placer)");
    printf("kernels: crc32c=%s hash64=%s search=%s crc32=%s rendezvous=%s\n", crc, hash, search,
           crc32, hrw);
    return CLI_OK;
}
