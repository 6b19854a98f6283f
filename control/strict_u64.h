/*
 * strict_u64.h -- unsigned integers from the strings of a membership file
 * (and an etcd manifest), strictly: decimal, or hex after "0x"; no sign, no
 * whitespace, no leading zero but "0" itself (so never octal), range-
 * checked. strtoull accepts " -1" as 2^64-1 and "0777" as 511; a placement
 * must not. (The command line has the same rules in cli/: one parser each
 * side of the library boundary.)
 */
#ifndef PLC_CONTROL_STRICT_U64_H
#define PLC_CONTROL_STRICT_U64_H

#include <stddef.h>
#include <stdint.h>

/* The len bytes at text as an integer in [0, max] into *out. Returns 0, or
 * -1 with *reason (a static English phrase) set and *out untouched. */
int plc_ctl_parse_u64(const char *text, size_t len, uint64_t max, uint64_t *out,
                      const char **reason);

#endif
