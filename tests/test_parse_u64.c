/*
 * test_parse_u64.c -- placer_parse_u64, the one strict number parser of
 * membership files and the command line: what it reads, what it refuses
 * (and why), against strtoull's leniencies (" -1", "0777", "+5").
 */
#include <string.h>

#include "check.h"
#include "placer.h"
#include "placer_control.h"

static int parse(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    return placer_parse_u64(text, text ? strlen(text) : 0, min, max, out);
}

int main(void)
{
    uint64_t v = 42;
    CHECK_EQ(parse("0", 0, 10, &v), 0);
    CHECK_EQ(v, 0);
    CHECK_EQ(parse("18446744073709551615", 0, UINT64_MAX, &v), 0);
    CHECK_EQ(v, UINT64_MAX);
    CHECK_EQ(parse("0xffffffffffffffff", 0, UINT64_MAX, &v), 0);
    CHECK_EQ(v, UINT64_MAX);
    CHECK_EQ(parse("0XaB", 0, UINT64_MAX, &v), 0);
    CHECK_EQ(v, 0xab);
    /* Only the len bytes are read: "12" of "123". */
    CHECK_EQ(placer_parse_u64("123", 2, 0, 100, &v), 0);
    CHECK_EQ(v, 12);

    /* Refused forms leave *out alone. */
    const char *bad_form[] = {"", " 1", "1 ", "-1", " -1", "+5", "0777", "00", "0x", "0xg",
                              "1e3", "12a", "\t-2", "0b1"};
    for (size_t i = 0; i < sizeof bad_form / sizeof *bad_form; i++) {
        v = 7;
        int err = parse(bad_form[i], 0, UINT64_MAX, &v);
        CHECK_EQ(err, PLACER_EFORMAT);
        CHECK_EQ(v, 7);
        CHECK(strlen(placer_parse_u64_reason(bad_form[i], strlen(bad_form[i]), err)) > 0);
    }
    CHECK_EQ(parse(NULL, 0, 1, &v), PLACER_EFORMAT);
    CHECK(strstr(placer_parse_u64_reason("-1", 2, PLACER_EFORMAT), "sign") != NULL);
    CHECK(strstr(placer_parse_u64_reason("0777", 4, PLACER_EFORMAT), "leading zero") != NULL);

    /* Out of range: past 2^64-1 (also when a digit follows), and [min, max]. */
    CHECK_EQ(parse("18446744073709551616", 0, UINT64_MAX, &v), PLACER_ERANGE);
    CHECK_EQ(parse("0x10000000000000000", 0, UINT64_MAX, &v), PLACER_ERANGE);
    CHECK_EQ(parse("99999999999999999999x", 0, UINT64_MAX, &v), PLACER_EFORMAT);
    CHECK_EQ(parse("0", 1, 10, &v), PLACER_ERANGE);
    CHECK_EQ(parse("11", 1, 10, &v), PLACER_ERANGE);
    CHECK_EQ(v, 7);
    CHECK(strstr(placer_parse_u64_reason("11", 2, PLACER_ERANGE), "range") != NULL);
    return check_done("parse_u64");
}
