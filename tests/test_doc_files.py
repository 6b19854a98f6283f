#!/usr/bin/env python3
"""tests/test_doc_files.py SOURCE_ROOT DOC... -- the documents name files
that exist: every `path/file.ext` they mention (a C file or header, a
script, a meson.build) is that path under the source root, and every bare
`file.ext` is some file of the tree (placeholders such as `NAME_build.c`
or `*_build.c` aside). A renamed or moved file then fails
here until the document follows it.

Before the documents, the check runs on a made-up text naming a missing
file and must report it: so it can fail.
"""
import os
import re
import sys

NAME = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.(?:c|h|cc|py|sh|build|supp))(?![\w/])")
SKIP = ("build-", ".git")


def tree(root):
    paths, bases = set(), set()
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(SKIP)]
        for f in files:
            rel = os.path.relpath(os.path.join(d, f), root)
            paths.add(rel)
            bases.add(f)
    return paths, bases


def missing(text, paths, bases):
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        for name in NAME.findall(line):
            name = name[2:] if name.startswith("./") else name
            if "/" in name:
                # a path: relative to the root, or to a folder of it (simd/x.c)
                ok = name in paths or any(p.endswith("/" + name) for p in paths)
            else:
                ok = name in bases
            # placeholders: NAME_build.c, *_build.c
            placeholder = "NAME" in name or os.path.basename(name).startswith("_")
            if not ok and not placeholder:
                out.append((n, name))
    return out


def main():
    root, docs = sys.argv[1], sys.argv[2:]
    paths, bases = tree(root)
    probe = missing("see `engine/no_such_file.c` and `gone.h`, and engine/core/builder.c",
                    paths, bases)
    if [m for _, m in probe] != ["engine/no_such_file.c", "gone.h"]:
        print("FAIL: the check itself found %r" % probe)
        return 1
    bad = 0
    for doc in docs:
        for n, name in missing(open(doc, encoding="utf-8").read(), paths, bases):
            print("FAIL: %s:%d names %s, which does not exist" % (os.path.relpath(doc, root), n, name))
            bad += 1
    if bad:
        return 1
    print("test_doc_files: every file %s names exists" % ", ".join(os.path.relpath(d, root) for d in docs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
