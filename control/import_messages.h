/*
 * import_messages.h -- what the configuration-file importers
 * (haproxy_import.c, nginx_import.c) say and how: an error names where it
 * is ("FILE:LINE: " or "line N: "), notes on what was left out gather in
 * one buffer ("; " between them, cut where it is full), words from the
 * file are shown escaped, and decimal numbers are read strictly. Two short
 * helpers every parser of them calls often are inline here: shown(), eq().
 */
#ifndef PLC_CONTROL_IMPORT_MESSAGES_H
#define PLC_CONTROL_IMPORT_MESSAGES_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "placer_control.h"

#define PLC_IMP_NOTES_MAX 1024

typedef struct plc_imp_msgs {
    char *why;              /* the caller's buffer for the error (may be NULL) */
    size_t why_len;
    char notes[PLC_IMP_NOTES_MAX];
    size_t notes_at;
} plc_imp_msgs;

/* Where a message is: "FILE:LINE: " when file is not NULL, else
 * "line LINE: " when line is not 0, else nothing. */

/* Write the error (where, then fmt) into m->why; returns PLACER_EFORMAT. */
int plc_imp_failv(plc_imp_msgs *m, const char *file, size_t line, const char *fmt, va_list ap);

/* Add a note (where, then fmt); a note that does not fit is cut. */
void plc_imp_notev(plc_imp_msgs *m, const char *file, size_t line, const char *fmt, va_list ap);

/* The decimal number s (digits only, at least one) when it is at most
 * max, else -1. */
long long plc_imp_decimal(const char *s, long long max);

/* A word for a message, escaped as placer_escape escapes (control bytes
 * as \xNN, a backslash doubled), cut to what fits out (n bytes). */
static inline const char *shown(const char *w, char *out, size_t n)
{
    placer_escape(out, n, w, strlen(w));
    return out;
}

static inline int eq(const char *a, const char *b)
{
    return !strcmp(a, b);
}

#endif
