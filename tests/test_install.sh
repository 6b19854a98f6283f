#!/usr/bin/env bash
# tests/test_install.sh BUILD_DIR -- what an embedder does: meson install
# into a scratch prefix, then compile and run a program against the
# installed header, pkg-config file and shared library.
set -euo pipefail
build=$1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
DESTDIR="$dest" meson install -C "$build" --quiet >/dev/null
pc=$(dirname "$(find "$dest" -name placer.pc | head -1)")
libdir=$(dirname "$(find "$dest" -name 'libplacer.so' | head -1)")
prefix_in_pc=$(PKG_CONFIG_PATH="$pc" pkg-config --variable=prefix placer)
cat >"$dest/embed.c" <<'C'
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
# The .pc file names the final prefix; point the compiler at the staged copy.
cflags=$(PKG_CONFIG_PATH="$pc" pkg-config --define-prefix --cflags placer 2>/dev/null ||
    PKG_CONFIG_PATH="$pc" pkg-config --cflags placer)
cc -std=c11 -Wall -Werror "$dest/embed.c" -I"$dest$prefix_in_pc/include" $cflags \
    -L"$libdir" -lplacer -o "$dest/embed"
LD_LIBRARY_PATH="$libdir" "$dest/embed" | grep -qE '^owner (a|b)$'
test -x "$dest$prefix_in_pc/bin/placer"
echo "test_install: 1 passed, 0 failed"
