/*
 * test_escape.c -- placer_escape, the one escaping of input quoted in
 * messages and text output: every byte against a plain per-byte reference,
 * snprintf's contract (the whole length returned, NUL always written), and
 * cuts that never leave half an escape.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "placer_control.h"

/* The rule, byte by byte: control bytes and DEL as \xNN, backslash as \\. */
static size_t reference(char *out, const unsigned char *s, size_t n)
{
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < 0x20 || s[i] == 0x7f)
            at += (size_t)sprintf(out + at, "\\x%02x", s[i]);
        else if (s[i] == '\\')
            out[at++] = '\\', out[at++] = '\\';
        else
            out[at++] = (char)s[i];
    }
    out[at] = '\0';
    return at;
}

int main(void)
{
    unsigned char all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (unsigned char)i;
    static char want[4 * 256 + 1], got[4 * 256 + 1];
    size_t n = reference(want, all, 256);
    CHECK_EQ(placer_escape(got, sizeof got, all, 256), n);
    CHECK(strcmp(got, want) == 0);
    CHECK_EQ(placer_escape(NULL, 0, all, 256), n); /* measuring only */
    CHECK_EQ(placer_escape(got, sizeof got, "\x1b]0;t\x07", 6), strlen("\\x1b]0;t\\x07"));
    CHECK(strcmp(got, "\\x1b]0;t\\x07") == 0);
    /* every cut: a prefix of the whole made of whole escapes, NUL-ended */
    for (size_t cap = 1; cap <= n + 1; cap++) {
        char buf[4 * 256 + 1];
        memset(buf, 'Z', sizeof buf);
        size_t r = placer_escape(buf, cap, all, 256);
        size_t len = strlen(buf);
        CHECK_ALL(r == n && len < cap && memcmp(buf, want, len) == 0, "a cut is a prefix");
        /* the prefix ends on an escape's boundary: escaping fewer bytes gives it */
        size_t k = 0, at = 0;
        char one[5];
        while (k < 256 && at + reference(one, all + k, 1) <= len)
            at += reference(one, all + k++, 1);
        CHECK_ALL(at == len, "a cut ends between escapes");
    }
    CHECK_EQ(placer_escape(got, 1, "abc", 3), 3);
    CHECK_EQ(got[0], '\0');
    CHECK_EQ(placer_escape(got, sizeof got, NULL, 0), 0);
    return check_done("escape");
}
