#!/usr/bin/env bash
# test_python_venv.sh SOURCE_ROOT BUILD_DIR PLACER -- python/README.md's
# offline route, as written: a venv that sees the system's packages (numpy,
# setuptools), `pip install --no-build-isolation --no-index ./python` (no
# package index is needed or asked), then the module imported from outside
# the source tree, its answer checked against the placer command. The
# install runs on a copy of python/, so pip's build leftovers (build/,
# placer.egg-info) never land in the source tree.
set -euo pipefail
src=$1 build=$(cd "$2" && pwd) placer=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if ! /usr/bin/python3 -c 'import ensurepip, numpy, setuptools' 2>/dev/null; then
    echo "SKIP: python3-venv, python3-numpy or python3-setuptools missing (scripts/setup.sh)"
    exit 77
fi
mkdir "$dir/src" && cp -r "$src/python" "$dir/src/python"
rm -rf "$dir/src/python/build" "$dir/src/python/"*.egg-info
cd "$dir/src"
/usr/bin/python3 -m venv --system-site-packages "$dir/V"
"$dir/V/bin/pip" install --quiet --no-build-isolation --no-index ./python
cd "$dir"
got=$(PLACER_LIBRARY_PATH="$build/engine:$build/control" "$dir/V/bin/python" -c '
import sys, placer
assert placer.__file__.startswith(sys.argv[1] + "/V/"), placer.__file__
s = placer.build({"strategy": "ring", "vnodes": 64, "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]})
s.save("m.snap")
print(s.lookup("user:42"))
' "$dir")
want=$("$placer" lookup "$dir/m.snap" user:42 | cut -f2)
[ "$got" = "$want" ] || { echo "FAIL: the venv's module says $got, the command $want"; exit 1; }
echo "test_python_venv: ok (user:42 -> $got, with PLACER_LIBRARY_PATH)"
# Without PLACER_LIBRARY_PATH: the module finds an installed libplacer
# (the linker's path, or meson's default prefix), and where there is none
# it names the variable it needs (meson test sets LD_LIBRARY_PATH to the
# build tree: unset, as a user has it); without the command on PATH, the call
# that needs it names PLACER_CLI.
installed=0
if ldconfig -p 2>/dev/null | grep -q 'libplacer\.so\.1 ' ||
   ls /usr/local/lib/*/libplacer.so.1 /usr/local/lib/libplacer.so.1 >/dev/null 2>&1; then
    installed=1
fi
if out=$(env -u PLACER_LIBRARY_PATH -u LD_LIBRARY_PATH "$dir/V/bin/python" -c 'import placer; print(placer.version())' 2>&1); then
    [ "$installed" = 1 ] || { echo "FAIL: imported without PLACER_LIBRARY_PATH or an installed libplacer: $out"; exit 1; }
    echo "test_python_venv: ok (the installed libplacer $out found without PLACER_LIBRARY_PATH)"
else
    [ "$installed" = 0 ] || { echo "FAIL: libplacer is installed, yet the venv's module says: $out"; exit 1; }
    grep -q 'set PLACER_LIBRARY_PATH' <<<"$out" ||
        { echo "FAIL: the import error does not name PLACER_LIBRARY_PATH: $out"; exit 1; }
    echo "test_python_venv: ok (no installed libplacer: the import error names PLACER_LIBRARY_PATH)"
fi
out=$(env -u PLACER_CLI PATH=/nonexistent PLACER_LIBRARY_PATH="$build/engine:$build/control" \
      "$dir/V/bin/python" -c 'import placer._cli as c; c.command()' 2>&1) &&
    { echo "FAIL: found a placer command with an empty PATH: $out"; exit 1; }
grep -q 'PLACER_CLI' <<<"$out" || { echo "FAIL: the missing command's error does not name PLACER_CLI: $out"; exit 1; }
echo "test_python_venv: ok (no placer on PATH: the error names PLACER_CLI)"
