/*
 * secret_file.c -- the 128-bit placement secret, read from a file and from
 * nowhere else (a command line is visible to every user of the machine in
 * /proc and lands in shell histories).
 *
 * The file holds exactly 16 raw bytes, or 32 hex digits optionally followed
 * by one newline. Like ssh with a private key, placer refuses a file that
 * its group or others may read or write, and a path that is not a regular
 * file (a symlink's target is checked, not the link). The file is opened
 * with O_NONBLOCK and checked before anything is read, so a FIFO (or a
 * device) is refused at once instead of blocking until a writer comes.
 * The bytes read are wiped from the buffer before it is freed.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static int hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* 16 raw bytes, or 32 hex digits and at most one trailing newline. */
static int parse_secret(const unsigned char *buf, size_t n, unsigned char secret[16])
{
    if (n == 16) {
        memcpy(secret, buf, 16);
        return 0;
    }
    if (n == 33 && buf[32] == '\n')
        n = 32;
    if (n != 32)
        return -1;
    for (int i = 0; i < 16; i++) {
        int hi = hex_value(buf[2 * i]), lo = hex_value(buf[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        secret[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

int cli_read_secret(const char *cmd, const char *path, unsigned char secret[16])
{
    char name[256]; /* the path as messages show it (cli_escaped) */
    cli_escaped(name, sizeof name, path);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        fprintf(stderr, "placer %s: --secret-file %s: %s\n", cmd, name, strerror(errno));
        return CLI_BADINPUT;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "placer %s: --secret-file %s: not a regular file\n", cmd, name);
        close(fd);
        return CLI_BADINPUT;
    }
    cli_note_input(fd);
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        fprintf(stderr,
                "placer %s: --secret-file %s: group or others may access it (mode %03o); "
                "chmod 600 it\n",
                cmd, name, (unsigned)(st.st_mode & 0777));
        close(fd);
        return CLI_BADINPUT;
    }
    unsigned char buf[40];
    size_t n = 0;
    ssize_t got;
    while (n < sizeof buf && (got = read(fd, buf + n, sizeof buf - n)) != 0) {
        if (got < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "placer %s: --secret-file %s: %s\n", cmd, name, strerror(errno));
            close(fd);
            explicit_bzero(buf, sizeof buf);
            return CLI_BADINPUT;
        }
        n += (size_t)got;
    }
    close(fd);
    int bad = parse_secret(buf, n, secret);
    explicit_bzero(buf, sizeof buf);
    if (bad) {
        fprintf(stderr,
                "placer %s: --secret-file %s: expected 16 raw bytes or 32 hex digits "
                "(and one newline)\n",
                cmd, name);
        return CLI_BADINPUT;
    }
    return CLI_OK;
}

void cli_why_no_secret(const char *text, size_t len, char *out, size_t cap)
{
    json_t *root = json_loadb(text, len, 0, NULL);
    const char *program = json_string_value(json_object_get(root, "compat"));
    const char *hash = json_string_value(json_object_get(root, "key_hash"));
    char p[64], h[64];
    cli_escaped(p, sizeof p, program ? program : "");
    cli_escaped(h, sizeof h, hash ? hash : "couchbase");
    if (program)
        snprintf(out, cap, "compat \"%s\" takes no secret (its placement must match %s's own, "
                           "which hashes keys unkeyed)", p, p);
    else
        snprintf(out, cap, "key_hash \"%s\" takes no secret (it must match Couchbase's SDKs)", h);
    json_decref(root);
}
