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
            "  --json       one JSON object instead of text\n"
            "  -h, --help   this help\n");
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
    static const struct option options[] = {
        {"json", no_argument, NULL, 256},
        CLI_HELP_OPTION,
        {0},
    };
    int json = 0, c;
    while ((c = cli_getopt("version", argc, argv, options, cmd_version_usage)) != -1) {
        if (c == 256)
            json = 1;
        else
            return c == CLI_OPT_HELP ? CLI_OK : CLI_USAGE;
    }
    if (optind < argc) {
        cli_usage_error("version", "unexpected '%s' (version takes no operands)", argv[optind]);
        return CLI_USAGE;
    }
    unsigned f = placer_cpu_features();
    /* Every kernel family of the dispatch table, by its PLACER_KERNEL_* job. */
    static const struct {
        int job;
        const char *name;
    } jobs[] = {
        {PLACER_KERNEL_CRC32C, "crc32c"},       {PLACER_KERNEL_HASH64, "hash64"},
        {PLACER_KERNEL_SEARCH, "search"},       {PLACER_KERNEL_CRC32, "crc32"},
        {PLACER_KERNEL_RENDEZVOUS, "rendezvous"}, {PLACER_KERNEL_SIPHASH13, "siphash13"},
        {PLACER_KERNEL_MD5, "md5"},             {PLACER_KERNEL_BYTEHASH, "bytehash"},
        {PLACER_KERNEL_CRC_BATCH, "crc_batch"},
    };
    const size_t njobs = sizeof jobs / sizeof jobs[0];
    if (json) {
        json_t *doc = cli_json_doc(), *cpu = json_array(), *kernels = json_object();
        cli_json_put(doc, "version", json_string(placer_version_string()));
        for (size_t i = 0; i < sizeof features / sizeof features[0]; i++)
            if (f & features[i].bit)
                cli_json_append(cpu, json_string(features[i].name));
        cli_json_put(doc, "cpu_features", cpu);
        for (size_t i = 0; i < njobs; i++)
            cli_json_put(kernels, jobs[i].name, json_string(placer_kernel_name(jobs[i].job)));
        cli_json_put(doc, "kernels", kernels);
        return cli_json_emit("version", doc);
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
    printf("kernels:");
    for (size_t i = 0; i < njobs; i++)
        printf(" %s=%s", jobs[i].name, placer_kernel_name(jobs[i].job));
    printf("\n");
    return CLI_OK;
}
