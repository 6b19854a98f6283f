/*
 * strict_number.h -- unsigned integers from text, strictly: decimal, or hex
 * after "0x"; no sign, no whitespace, no octal (no leading zero but "0"
 * itself), range-checked. strtoull accepts " -1" as 2^64-1 and "0777" as
 * 511; a placement must not.
 */
#ifndef PLACER_STRICT_NUMBER_H
#define PLACER_STRICT_NUMBER_H

#include <stddef.h>
#include <stdint.h>

/* The len bytes at text as an integer in [min, max] into *out.
 * Returns 0; PLACER_EFORMAT when the text is not a number of that form
 * (empty, a sign, a space, a leading zero, a non-digit, "0x" alone);
 * PLACER_ERANGE when it is one but lies outside [min, max] (including past
 * 2^64-1). *out is written only on success. Pure: any thread. */
int plc_parse_u64(const char *text, size_t len, uint64_t min, uint64_t max, uint64_t *out);

/* A short English reason for a plc_parse_u64 error (static string). */
const char *plc_parse_u64_reason(const char *text, size_t len, int err);

#endif
