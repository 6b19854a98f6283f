/* import_messages.c -- see import_messages.h. */
#include <stdio.h>
#include <string.h>

#include "import_messages.h"
#include "placer_control.h"

/* The place prefix into out (n bytes); its length, or -1. */
static int where(char *out, size_t n, const char *file, size_t line)
{
    if (file)
        return snprintf(out, n, "%s:%zu: ", file, line);
    return line ? snprintf(out, n, "line %zu: ", line) : (n ? (out[0] = '\0', 0) : 0);
}

int plc_imp_failv(plc_imp_msgs *m, const char *file, size_t line, const char *fmt, va_list ap)
{
    if (m->why && m->why_len) {
        int n = where(m->why, m->why_len, file, line);
        if (n >= 0 && (size_t)n < m->why_len)
            vsnprintf(m->why + n, m->why_len - (size_t)n, fmt, ap);
    }
    return PLACER_EFORMAT;
}

void plc_imp_notev(plc_imp_msgs *m, const char *file, size_t line, const char *fmt, va_list ap)
{
    size_t cap = sizeof m->notes;
    if (m->notes_at + 16 >= cap)
        return;
    if (m->notes_at) {
        memcpy(m->notes + m->notes_at, "; ", 3);
        m->notes_at += 2;
    }
    int n = where(m->notes + m->notes_at, cap - m->notes_at, file, line);
    if (n < 0 || (size_t)n >= cap - m->notes_at) {
        m->notes[m->notes_at] = '\0';
        return;
    }
    m->notes_at += (size_t)n;
    n = vsnprintf(m->notes + m->notes_at, cap - m->notes_at, fmt, ap);
    m->notes_at = n < 0 ? m->notes_at : m->notes_at + (size_t)n >= cap ? cap - 1
                                                                        : m->notes_at + (size_t)n;
}

long long plc_imp_decimal(const char *s, long long max)
{
    long long v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
        if (v > max)
            return -1;
    }
    return v;
}
