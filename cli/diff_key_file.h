/*
 * diff_key_file.h -- `placer diff --key-file PATH`: every key of a file
 * looked up in both snapshots (as each hashes it), the moved count exact
 * for that file, in the shape of placer_diff_report, and with
 * --moved-keys the keys that move, their old and new owners.
 */
#ifndef PLACER_CLI_DIFF_KEY_FILE_H
#define PLACER_CLI_DIFF_KEY_FILE_H

#include <stdio.h>

#include "placer.h"

/* Fill *r (method 0: by a key file; gives, receives and pairs malloc'd:
 * cli_diff_key_file_free) from the keys of path, one a line; write each
 * moved key to moved (when not NULL): "key<TAB>old<TAB>new" escaped as
 * `placer lookup` escapes, or with json one JSON object a line ("key" or
 * "key_base64", "from", "to"). Returns a CLI_* status (said on stderr). */
int cli_diff_key_file(const placer_snapshot *a, const placer_snapshot *b, const char *path,
                      FILE *moved, int json, placer_diff_report *r);
void cli_diff_key_file_free(placer_diff_report *r);

#endif
