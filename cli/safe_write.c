/*
 * safe_write.c -- the files the command writes (snapshots, plots): never
 * half a file, never through a symlink someone planted, never the good
 * file lost to a failed write. The classic sequence: mkstemp in the target's
 * directory (same file system, so rename is atomic; O_EXCL, so no symlink or
 * existing file is opened), write, fsync, chmod to what a plain create would
 * give, rename over the target (a symlink at the target is replaced, not
 * followed), fsync the directory so the rename itself survives a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* path's directory ("." when it has none) into a new string. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

int cli_write_file_mode(const char *cmd, const char *path, const void *buf, size_t len,
                        mode_t mode)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char *dir = dir_of(path);
    size_t cap = (dir ? strlen(dir) : 0) + strlen(base) + 16;
    char *tmp = dir ? malloc(cap) : NULL;
    if (!tmp) {
        fprintf(stderr, "placer %s: out of memory\n", cmd);
        free(dir);
        return CLI_FAILURE;
    }
    snprintf(tmp, cap, "%s/.%s.XXXXXX", dir, base);
    const char *step = "cannot create a temporary file beside it";
    int fd = mkstemp(tmp), err = 0, made = fd >= 0;
    if (fd < 0)
        err = errno;
    /* mkstemp makes 0600; a plain create would give mode & ~umask */
    mode_t mask = umask(0);
    umask(mask);
    if (!err && fchmod(fd, mode & ~mask) != 0)
        err = errno, step = "chmod";
    if (!err && write_all(fd, buf, len) != 0)
        err = errno ? errno : EIO, step = "write";
    if (!err && fsync(fd) != 0)
        err = errno, step = "fsync";
    if (fd >= 0 && close(fd) != 0 && !err)
        err = errno, step = "close";
    if (!err && rename(tmp, path) != 0)
        err = errno, step = "rename";
    if (!err) {
        made = 0; /* the temporary file is now path */
        int dfd = open(dir, O_RDONLY | O_DIRECTORY);
        if (dfd < 0 || fsync(dfd) != 0)
            err = errno, step = "fsync of its directory";
        if (dfd >= 0)
            close(dfd);
    }
    if (made)
        unlink(tmp);
    if (err) {
        fprintf(stderr, "placer %s: ", cmd);
        cli_print_name(stderr, path);
        fprintf(stderr, ": %s: %s%s\n", step, strerror(err),
                made || fd < 0 ? " (the file was left as it was)" : "");
    }
    free(tmp);
    free(dir);
    return err ? CLI_FAILURE : CLI_OK;
}

int cli_write_file(const char *cmd, const char *path, const void *buf, size_t len)
{
    return cli_write_file_mode(cmd, path, buf, len, 0666);
}
