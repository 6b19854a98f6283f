/*
 * key_lines.c -- standard input one line at a time with a length cap, for
 * lookup. getline grows its buffer to the longest line: a 2 GiB line of
 * keys took 8.4 GB once JSON was built from it. Here a line past the cap is
 * skipped (read through to its newline in fixed chunks) and reported as
 * such, so memory stays at one buffer whatever the input. Lines may hold
 * NUL bytes (the caller decides what they mean).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CHUNK ((size_t)1 << 20)

int cli_lines_open(cli_lines *r, FILE *f, size_t max)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->max = max;
    r->cap = (max + 2 > CHUNK ? max + 2 : CHUNK);
    r->buf = malloc(r->cap);
    return r->buf ? 0 : -1;
}

void cli_lines_close(cli_lines *r)
{
    free(r->buf);
    r->buf = NULL;
}

/* More bytes after buf[start..end), moved to the front first; 0 at the end
 * of the input or on an error (r->err). One byte is kept for a NUL. */
static size_t fill(cli_lines *r)
{
    if (r->start) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    size_t got = r->eof ? 0 : fread(r->buf + r->end, 1, r->cap - 1 - r->end, r->f);
    if (!got) {
        r->eof = 1;
        r->err = ferror(r->f) != 0;
    }
    r->end += got;
    return got;
}

int cli_lines_next(cli_lines *r, char **line, size_t *len)
{
    int skipping = 0;
    for (;;) {
        char *at = r->buf + r->start;
        char *nl = memchr(at, '\n', r->end - r->start);
        if (nl) {
            r->start = (size_t)(nl + 1 - r->buf);
            if (skipping || (size_t)(nl - at) > r->max)
                return CLI_LINE_TOO_LONG;
            *nl = '\0';
            *line = at, *len = (size_t)(nl - at);
            return CLI_LINE;
        }
        if (r->end - r->start > r->max) {
            skipping = 1; /* drop what is here; read on to the newline */
            r->start = r->end = 0;
        }
        if (!fill(r)) {
            if (r->err)
                return CLI_LINE_ERROR;
            if (skipping)
                return CLI_LINE_TOO_LONG;
            if (r->end == r->start)
                return CLI_LINE_END;
            /* a last line without its newline */
            at = r->buf + r->start;
            *len = r->end - r->start;
            at[*len] = '\0';
            *line = at;
            r->start = r->end;
            return CLI_LINE;
        }
    }
}
