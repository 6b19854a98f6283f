/*
 * safe_write.c -- the files the command writes (snapshots, membership
 * documents, plots): never half a file, never the good file lost to a
 * failed write, never anything but a regular file replaced. The target is
 * checked first (cli_output_check): "-" is standard output; a symlink is
 * followed to the path it names (a chain of them too, and not one planted
 * in a sticky directory by another user: the kernel's protected_symlinks
 * rule, which a rename would otherwise step around); what is there must be
 * a regular file or nothing, and not a file this run read (the same inode:
 * `build m.json -o m.json` would destroy its input). A device, FIFO,
 * socket or directory is refused before anything is written: renaming a
 * file over /dev/null would replace the system's. Then the classic
 * sequence on the resolved path: mkstemp in its directory (same file
 * system, so rename is atomic; O_EXCL, so no symlink or existing file is
 * opened), write, fsync, chmod to what a plain create would give, a last
 * look that the target is still a regular file or nothing, rename over
 * it, fsync the directory so the rename itself survives a crash.
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

/* The files this run read (cli_note_input), by inode: no output may be
 * one of them. A command reads a handful. */
enum { MAX_INPUTS = 16 };
static struct {
    dev_t dev;
    ino_t ino;
} inputs[MAX_INPUTS];
static unsigned ninputs;
static int stdout_written; /* an output went to standard output ("-") */

void cli_note_input(int fd)
{
    struct stat st;
    if (ninputs < MAX_INPUTS && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        inputs[ninputs].dev = st.st_dev;
        inputs[ninputs++].ino = st.st_ino;
    }
}

void cli_note_input_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd >= 0) {
        cli_note_input(fd);
        close(fd);
    }
}

FILE *cli_report_stream(void)
{
    return stdout_written ? stderr : stdout;
}

static int is_input(const struct stat *st)
{
    for (unsigned i = 0; i < ninputs; i++)
        if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino)
            return 1;
    return 0;
}

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO"
         : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* A symlink another user planted in a sticky directory others may write
 * (/tmp): the kernel would not follow it for us (protected_symlinks). */
static int planted(const char *link, const struct stat *ls)
{
    struct stat ds;
    char *dir = dir_of(link);
    int bad = dir && stat(dir, &ds) == 0 && (ds.st_mode & S_ISVTX) && (ds.st_mode & S_IWOTH) &&
              ls->st_uid != geteuid() && ls->st_uid != ds.st_uid;
    free(dir);
    return bad;
}

/* The link at `link` read and made a path (relative: to its directory). */
static char *link_target(const char *link, size_t size)
{
    size_t cap = size ? size + 1 : 4096;
    char *text = malloc(cap);
    ssize_t n = text ? readlink(link, text, cap) : -1;
    if (n < 0 || (size_t)n >= cap) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    if (text[0] == '/' || !strchr(link, '/'))
        return text;
    char *dir = dir_of(link), *full = dir ? malloc(strlen(dir) + (size_t)n + 2) : NULL;
    if (full)
        sprintf(full, "%s/%s", dir, text);
    free(dir);
    free(text);
    return full;
}

static void say(const char *cmd, const char *path, const char *via, const char *what,
                const char *why)
{
    fprintf(stderr, "placer %s: ", cmd);
    cli_print_name(stderr, path);
    if (via && strcmp(via, path)) {
        fprintf(stderr, " -> ");
        cli_print_name(stderr, via);
    }
    fprintf(stderr, ": %s%s\n", what, why);
}

/* path resolved as the file's header says into *out (a new string), or
 * NULL after saying why. */
static int resolve(const char *cmd, const char *path, char **out)
{
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0) {
            if (errno == ENOENT) { /* a new path */
                *out = cur;
                return CLI_OK;
            }
            say(cmd, path, cur, strerror(errno), "");
            free(cur);
            return CLI_FAILURE;
        }
        if (!S_ISLNK(st.st_mode)) {
            const char *why = !S_ISREG(st.st_mode) ? kind_of(st.st_mode)
                            : is_input(&st) ? "an input of this command" : NULL;
            if (!why) {
                *out = cur;
                return CLI_OK;
            }
            say(cmd, path, cur, why,
                is_input(&st) ? ": refused (it would be destroyed), nothing written"
                              : ", not a regular file: refused, nothing written");
            free(cur);
            return CLI_USAGE;
        }
        const char *why = hops == 40 ? "too many levels of symbolic links"
                        : planted(cur, &st) ? "refused: a symlink another user owns in a "
                                              "sticky directory (not followed, nothing written)"
                                            : NULL;
        if (why) {
            say(cmd, path, cur, why, "");
            free(cur);
            return CLI_USAGE;
        }
        char *next = link_target(cur, (size_t)st.st_size);
        if (!next)
            say(cmd, path, cur, "cannot read the symlink: ", strerror(errno ? errno : ENOMEM));
        free(cur);
        cur = next;
        if (!cur)
            return CLI_FAILURE;
    }
    fprintf(stderr, "placer %s: out of memory\n", cmd);
    return CLI_FAILURE;
}

int cli_output_check(const char *cmd, const char *path)
{
    if (!strcmp(path, "-"))
        return CLI_OK;
    char *target = NULL;
    int rc = resolve(cmd, path, &target);
    free(target);
    return rc;
}

static int write_stdout(const char *cmd, const void *buf, size_t len)
{
    errno = 0;
    if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0) {
        fprintf(stderr, "placer %s: standard output: write error%s%s\n", cmd, errno ? ": " : "",
                errno ? strerror(errno) : "");
        return CLI_FAILURE;
    }
    stdout_written = 1;
    return CLI_OK;
}

int cli_write_file_mode(const char *cmd, const char *shown, const void *buf, size_t len,
                        mode_t mode)
{
    if (!strcmp(shown, "-"))
        return write_stdout(cmd, buf, len);
    char *path = NULL;
    int rc = resolve(cmd, shown, &path);
    if (rc)
        return rc;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char *dir = dir_of(path);
    size_t cap = (dir ? strlen(dir) : 0) + strlen(base) + 16;
    char *tmp = dir ? malloc(cap) : NULL;
    if (!tmp) {
        fprintf(stderr, "placer %s: out of memory\n", cmd);
        free(dir);
        free(path);
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
    struct stat st; /* still a regular file (not an input) or nothing */
    if (!err && lstat(path, &st) == 0 && (!S_ISREG(st.st_mode) || is_input(&st)))
        err = EEXIST, step = "replaced by something not a file to replace";
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
        cli_print_name(stderr, shown);
        fprintf(stderr, ": %s: %s%s\n", step, strerror(err),
                made || fd < 0 ? " (the file was left as it was)" : "");
    }
    free(tmp);
    free(dir);
    free(path);
    return err ? CLI_FAILURE : CLI_OK;
}

int cli_write_file(const char *cmd, const char *path, const void *buf, size_t len)
{
    return cli_write_file_mode(cmd, path, buf, len, 0666);
}
