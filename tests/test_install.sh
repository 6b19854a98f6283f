#!/usr/bin/env bash
# tests/test_install.sh BUILD_DIR -- what an embedder does: meson install
# into a scratch prefix, then build against the installed headers,
# pkg-config files and libraries, with pkg-config only:
#   1. a lookup-only program, dynamic (pkg-config --libs placer);
#   2. the same, static (pkg-config --static --libs placer, libplacer.a);
#   3. a control-plane program (pkg-config --libs placer-control);
# and the installed libplacer.so needs no curl, jansson or jemalloc.
set -euo pipefail
build=$1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
passed=0
DESTDIR="$dest" meson install -C "$build" --quiet >/dev/null
pc=$(dirname "$(find "$dest" -name placer.pc | head -1)")
test -f "$pc/placer-control.pc"
libdir=$(dirname "$(find "$dest" -name 'libplacer.so' | head -1)")
test -f "$libdir/libplacer.a"
test -f "$libdir/libplacer-control.so"
# The man pages (placer(1) and one a command) and the licence with the docs.
mandir=$(dirname "$(find "$dest" -name placer.1 | head -1)")
case $mandir in */share/man/man1) ;; *) echo "test_install: placer.1 not under share/man/man1" >&2; exit 1 ;; esac
test "$(ls "$mandir"/placer-*.1 | wc -l)" -ge 11
test -f "$(find "$dest" -path '*/share/doc/placer/LICENSE' | head -1)"
prefix=$(PKG_CONFIG_PATH="$pc" pkg-config --variable=prefix placer)
# The .pc files name the final prefix; point pkg-config at the staged copy.
export PKG_CONFIG_PATH="$pc"
export PKG_CONFIG_SYSROOT_DIR="$dest"
# Not the copy some earlier install left in the real prefix:
pkg-config --cflags placer | grep -qF -- "-I$dest" || { echo "test_install: pkg-config ignores PKG_CONFIG_SYSROOT_DIR" >&2; exit 1; }

cat >"$dest/lookup.c" <<'C'
#include <placer.h>
#include <stdio.h>
int main(void)
{
    placer_builder *b = placer_builder_new();
    placer_snapshot *s = NULL;
    placer_builder_add_node(b, "a", "z1", 1.0);
    placer_builder_add_node(b, "b", "z2", 1.0);
    if (placer_builder_build(b, 1, &s) != 0)
        return 1;
    int owner = placer_lookup(s, "user:1", 6);
    printf("owner %s\n", placer_node_id(s, (unsigned)owner));
    placer_snapshot_free(s);
    placer_builder_free(b);
    return owner < 0;
}
C
cat >"$dest/control.c" <<'C'
#include <placer_control.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    const char *doc = "{\"strategy\": \"ring\", \"nodes\": [{\"id\": \"a\"}, {\"id\": \"b\"}]}";
    placer_builder *b = NULL;
    uint64_t epoch = 0;
    char why[256];
    if (placer_membership_parse(doc, strlen(doc), "m.json", &b, &epoch, why, sizeof why) < 0) {
        fprintf(stderr, "%s\n", why);
        return 1;
    }
    placer_snapshot *s = NULL;
    if (placer_builder_build(b, 1, &s) != 0)
        return 1;
    printf("owner %s\n", placer_node_id(s, (unsigned)placer_lookup(s, "user:1", 6)));
    placer_snapshot_free(s);
    placer_builder_free(b);
    return 0;
}
C

# 1. lookup-only, dynamic
cc -std=c11 -Wall -Werror "$dest/lookup.c" $(pkg-config --cflags placer) \
    -o "$dest/lookup_dynamic" $(pkg-config --libs placer)
LD_LIBRARY_PATH="$libdir" "$dest/lookup_dynamic" | grep -qE '^owner (a|b)$'
passed=$((passed + 1))

# 2. lookup-only, static: libplacer.a and what --static names, nothing else
cc -std=c11 -Wall -Werror "$dest/lookup.c" $(pkg-config --cflags placer) \
    -o "$dest/lookup_static" -Wl,-Bstatic -lplacer -Wl,-Bdynamic \
    $(pkg-config --static --libs placer | sed 's/-lplacer\b//')
if readelf -d "$dest/lookup_static" | grep -q 'libplacer'; then
    echo "test_install: the static program still needs libplacer.so" >&2
    exit 1
fi
"$dest/lookup_static" | grep -qE '^owner (a|b)$'
passed=$((passed + 1))

# 3. control plane: membership file -> snapshot
cc -std=c11 -Wall -Werror "$dest/control.c" $(pkg-config --cflags placer-control) \
    -o "$dest/control" $(pkg-config --libs placer-control)
LD_LIBRARY_PATH="$libdir" "$dest/control" | grep -qE '^owner (a|b)$'
passed=$((passed + 1))

# 4. the data plane's library needs none of the control plane's libraries
needed=$(readelf -d "$libdir/libplacer.so" | grep NEEDED)
if grep -qiE 'curl|jansson|jemalloc' <<<"$needed"; then
    echo "test_install: libplacer.so needs: $needed" >&2
    exit 1
fi
passed=$((passed + 1))

# 5. the Python module, installed beside them where the system interpreter
# imports from (python/meson.build), imported from outside the source tree
pyinit=$(find "$dest" -path '*/placer/__init__.py' | head -1)
if [ -n "$pyinit" ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    site=$(dirname "$(dirname "$pyinit")")
    /usr/bin/python3 -c "import sys; sys.exit(0 if '${site#"$dest"}' in sys.path else 1)" || {
        echo "test_install: the module went to ${site#"$dest"}, not on /usr/bin/python3's path" >&2
        exit 1
    }
    grep -qF "LIBDIR = \"${libdir#"$dest"}\"" "$site/placer/_paths.py"
    (cd "$dest" && PYTHONPATH="$site" PLACER_LIBRARY_PATH="$libdir" PYTHONDONTWRITEBYTECODE=1 \
        /usr/bin/python3 -c '
import sys, placer
from placer import _native_reader
assert placer.__file__.startswith(sys.argv[1]), placer.__file__
# the per-key extension, installed beside the module and found there
assert _native_reader.native.__file__.startswith(sys.argv[1]), _native_reader.native
s = placer.build({"strategy": "ring", "nodes": [{"id": "a"}, {"id": "b"}]})
print("python owner", s.lookup("user:1"), placer.__version__)
' "$dest") | grep -qE '^python owner (a|b) '
    passed=$((passed + 1))
fi

test -x "$dest$prefix/bin/placer"
test -f "$dest$prefix/include/placer_control.h"
echo "test_install: $passed passed, 0 failed"
