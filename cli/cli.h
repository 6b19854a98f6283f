/*
 * cli.h -- what the subcommands of `placer` share. Each subcommand lives in
 * its own cmd_*.c and is listed once in main.c's table.
 *
 * Exit codes: 0 ok, 1 usage error, 2 bad input (a file or value placer
 * cannot accept), 3 a failure of the machine (out of memory).
 */
#ifndef PLACER_CLI_H
#define PLACER_CLI_H

#include <stdint.h>
#include <stdio.h>

#define CLI_OK 0
#define CLI_USAGE 1
#define CLI_BADINPUT 2
#define CLI_FAILURE 3

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
    void (*usage)(FILE *out);
} cli_command;

int cmd_demo(int argc, char **argv);
void cmd_demo_usage(FILE *out);
int cmd_version(int argc, char **argv);
void cmd_version_usage(FILE *out);

/* True when argv holds -h or --help. */
int cli_wants_help(int argc, char **argv);

/* Parse an unsigned decimal (or 0x hex) integer in [min, max]. Returns 0 and
 * sets *out, or prints "placer <cmd>: <what>: ..." to stderr and returns -1. */
int cli_parse_u64(const char *cmd, const char *what, const char *text, uint64_t min, uint64_t max,
                  uint64_t *out);

/* Seconds on a monotonic clock. */
double cli_now(void);

#endif
