#!/usr/bin/env bash
# tests/test_docs_installed.sh BUILD_DIR SOURCE_ROOT -- every document that
# README.md and the man pages (cli/man/*.1) name is installed: the paths they
# give (docs/COMPAT.md, bench/RESULTS.md, docs/simulate-120-nodes.svg, ...)
# are looked for under share/doc/placer of a staged install (meson install
# --destdir into a scratch directory), at the same relative path.
set -uo pipefail
build=$1 root=$2
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
if ! meson install -C "$build" --no-rebuild --destdir "$dest" --quiet >"$dest.log" 2>&1; then
    echo "test_docs_installed: meson install failed:" >&2; cat "$dest.log" >&2; rm -f "$dest.log"; exit 1
fi
rm -f "$dest.log"
docdir=$(find "$dest" -type d -path '*/share/doc/placer' | head -1)
[ -n "$docdir" ] || { echo "test_docs_installed: no share/doc/placer in the install" >&2; exit 1; }
# The documents named: a path under one of the repository's folders ending
# in .md or .svg, README.md and LICENSE themselves.
named=$(cat "$root/README.md" "$root"/cli/man/*.1 |
    grep -oE '(\b(docs|bench|fuzz|python)/[A-Za-z0-9_.-]+\.(md|svg)\b|\bREADME\.md\b|\bLICENSE\b)' | sort -u)
n=0 missing=0
for doc in $named; do
    n=$((n + 1))
    # a name the sources do not have is a broken reference, not an install gap
    [ -e "$root/$doc" ] || { echo "test_docs_installed: $doc is named but is not in the repository" >&2; missing=$((missing + 1)); continue; }
    [ -f "$docdir/$doc" ] || { echo "test_docs_installed: $doc is named but not installed under share/doc/placer" >&2; missing=$((missing + 1)); }
done
[ "$n" -ge 8 ] || { echo "test_docs_installed: only $n documents found named (the grep is broken?)" >&2; exit 1; }
echo "test_docs_installed: $n documents named, $missing missing"
[ "$missing" -eq 0 ]
