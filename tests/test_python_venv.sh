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
echo "test_python_venv: ok (user:42 -> $got)"
