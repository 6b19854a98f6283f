"""Files written as the placer command writes them (cli/safe_write.c):
never half a file, never through a planted symlink, never world-readable
when the snapshot is keyed. A temporary file is created beside the target
(same file system: the rename is atomic) with O_EXCL | O_NOFOLLOW, so no
existing file or symlink is opened; it gets mode & ~umask (0600 for a keyed
snapshot, whatever the umask allows beyond it: nothing), is written and
fsynced, then renamed over the target (a symlink there is replaced, not
followed), and the directory is fsynced so the rename survives a crash."""
import os
import secrets


def write_file(path, data, mode=0o666):
    path = os.fspath(path)
    directory, base = os.path.split(path)
    directory = directory or "."
    mask = os.umask(0)
    os.umask(mask)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(directory, ".%s.%s" % (base, secrets.token_hex(6)))
        try:
            fd = os.open(tmp, flags, 0o600)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError("cannot create a temporary file beside %s" % path)
    try:
        try:
            os.fchmod(fd, mode & ~mask)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    dfd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
