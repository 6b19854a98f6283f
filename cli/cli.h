/*
 * cli.h -- what the subcommands of `placer` share. Each subcommand lives in
 * its own cmd_*.c and is listed once in main.c's table.
 *
 * Exit codes: 0 ok, 1 usage error, 2 bad input (a file or value placer
 * cannot accept), 3 a failure of the machine (out of memory).
 */
#ifndef PLACER_CLI_H
#define PLACER_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "placer_control.h"

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

int cmd_build(int argc, char **argv);
void cmd_build_usage(FILE *out);
int cmd_lookup(int argc, char **argv);
void cmd_lookup_usage(FILE *out);
int cmd_stats(int argc, char **argv);
void cmd_stats_usage(FILE *out);
int cmd_diff(int argc, char **argv);
void cmd_diff_usage(FILE *out);
int cmd_verify(int argc, char **argv);
void cmd_verify_usage(FILE *out);
int cmd_publish(int argc, char **argv);
void cmd_publish_usage(FILE *out);
int cmd_watch(int argc, char **argv);
void cmd_watch_usage(FILE *out);
int cmd_simulate(int argc, char **argv);
void cmd_simulate_usage(FILE *out);
int cmd_import_couchbase(int argc, char **argv);
void cmd_import_couchbase_usage(FILE *out);

/* True when argv holds -h or --help. */
int cli_wants_help(int argc, char **argv);

/* Parse an unsigned decimal (or 0x hex) integer in [min, max]. Returns 0 and
 * sets *out, or prints "placer <cmd>: <what>: ..." to stderr and returns -1. */
int cli_parse_u64(const char *cmd, const char *what, const char *text, uint64_t min, uint64_t max,
                  uint64_t *out);

/* The whole of a file ("-": standard input) into *buf (free() it) and
 * *len, NUL-terminated for convenience. Returns CLI_OK, or prints
 * "placer CMD: PATH: reason" and returns CLI_BADINPUT (or CLI_FAILURE when
 * out of memory). */
int cli_read_file(const char *cmd, const char *path, char **buf, size_t *len);

/* Write len bytes to path through a temporary file and a rename, so that
 * readers never see half a file. Returns CLI_OK or prints why and returns
 * CLI_FAILURE. */
int cli_write_file(const char *cmd, const char *path, const void *buf, size_t len);

/* Read and decode a snapshot file. Returns CLI_OK, or prints the error and
 * the decoder's reason and returns CLI_BADINPUT / CLI_FAILURE. */
int cli_load_snapshot(const char *cmd, const char *path, placer_snapshot **out);

/* Encode s and write it to path (cli_write_file). */
int cli_save_snapshot(const char *cmd, const char *path, const placer_snapshot *s);

/* s as a JSON string literal (quotes and escapes) on out. */
void cli_json_string(FILE *out, const char *s);

/* A node's share of each key in s: exact for the range strategies (ring,
 * partitions with placer's hash, Maglev), counted over partitions for
 * Couchbase hashing, over buckets for jump, and measured at 2^16 evenly
 * spaced positions for rendezvous. share[] has placer_node_count(s)
 * entries. Returns 1 when the shares are measured (sampled), 0 when
 * exact, -1 when out of memory. */
int cli_node_shares(const placer_snapshot *s, double *share);

/* The arguments of a command that takes one file and --json: CLI_OK, or
 * CLI_USAGE after printing why and the usage. */
int cli_file_and_json(const char *cmd, int argc, char **argv, void (*usage)(FILE *),
                      const char **path, int *json);

/* Seconds on a monotonic clock. */
double cli_now(void);

#endif
