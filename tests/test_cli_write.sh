#!/usr/bin/env bash
# test_cli_write.sh PLACER -- the files the command writes (build -o,
# import-couchbase -o, simulate --plot) are crash-safe and hijack-safe: a
# symlink planted at the target is replaced, never followed; a failed write
# (file size limit, read-only directory) leaves the good file as it was and
# no temporary file behind; the mode is what a plain create gives under the
# umask.
set -u
placer=$(realpath "$1")
dir=$(mktemp -d)
trap 'chmod -R u+w "$dir"; rm -rf "$dir"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

printf '{"strategy": "ring", "vnodes": 256, "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}\n' >"$dir/m.json"
sim=("$placer" simulate --nodes 6 --keys 2000 --vnodes 1,4 --strategies ring,jump --no-timing --quiet)

# A symlink planted at the target: replaced by the new file, the victim untouched.
echo "precious" >"$dir/victim.txt"
ln -s "$dir/victim.txt" "$dir/target.snap"
"$placer" build "$dir/m.json" -o "$dir/target.snap" >/dev/null
check '[ "$(cat "$dir/victim.txt")" = precious ]' "build followed a symlink at the target"
check '[ -f "$dir/target.snap" ] && [ ! -L "$dir/target.snap" ]' "the target is not a regular file"
check '"$placer" verify "$dir/target.snap" >/dev/null' "the new snapshot does not verify"
ln -s "$dir/victim.txt" "$dir/plot.svg"
"${sim[@]}" --plot "$dir/plot.svg" >/dev/null
check '[ "$(cat "$dir/victim.txt")" = precious ] && [ ! -L "$dir/plot.svg" ] && grep -q "<svg" "$dir/plot.svg"' \
    "simulate --plot followed a symlink"
# The old predictable temporary name (OUT.tmp.PID) is not used either.
ln -s "$dir/victim.txt" "$dir/t2.snap.tmp.$$"
sh -c "ln -sf '$dir/victim.txt' '$dir/t2.snap.tmp.'\$\$; exec '$placer' build '$dir/m.json' -o '$dir/t2.snap'" >/dev/null
check '[ "$(cat "$dir/victim.txt")" = precious ]' "build wrote through OUT.tmp.PID"

# A failed write: the good file stays, no temporary file is left, exit 3.
"$placer" build "$dir/m.json" -o "$dir/good.snap" >/dev/null
cp "$dir/good.snap" "$dir/good.copy"
sed 's/"vnodes": 256/"vnodes": 1024/' "$dir/m.json" >"$dir/big.json"
(ulimit -f 8; exec "$placer" build "$dir/big.json" -o "$dir/good.snap") >/dev/null 2>"$dir/err"
rc=$?
check '[ $rc -eq 3 ]' "a write past the size limit: exit $rc, not 3"
check 'grep -q "File too large" "$dir/err"' "the failed write is not explained"
check 'cmp -s "$dir/good.snap" "$dir/good.copy"' "a failed build clobbered the good file"
"${sim[@]}" --plot "$dir/good.svg" >/dev/null
cp "$dir/good.svg" "$dir/good.svg.copy"
(ulimit -f 2; exec "${sim[@]}" --plot "$dir/good.svg") >/dev/null 2>&1
rc=$?
check '[ $rc -eq 3 ]' "a plot past the size limit: exit $rc, not 3"
check 'cmp -s "$dir/good.svg" "$dir/good.svg.copy"' "a failed plot clobbered the good one"
check '[ -z "$(ls -A "$dir" | grep "^\.")" ]' "temporary files left behind: $(ls -A "$dir" | grep '^\.' | tr '\n' ' ')"

# A read-only directory: exit 3, named, nothing changed.
mkdir "$dir/ro"
cp "$dir/good.snap" "$dir/ro/x.snap"
chmod a-w "$dir/ro"
if [ "$(id -u)" -ne 0 ]; then
    "$placer" build "$dir/m.json" -o "$dir/ro/x.snap" >/dev/null 2>"$dir/err"
    rc=$?
    check '[ $rc -eq 3 ] && grep -q "ro/x.snap" "$dir/err"' "a read-only directory is not exit 3 with the path"
    check 'cmp -s "$dir/ro/x.snap" "$dir/good.snap"' "the file in the read-only directory changed"
fi
chmod u+w "$dir/ro"
"$placer" build "$dir/m.json" -o "$dir/none/x.snap" >/dev/null 2>"$dir/err"
rc=$?
check '[ $rc -eq 3 ] && grep -q "none/x.snap" "$dir/err"' "a missing directory is not exit 3 with the path"

# The mode a plain create gives under the umask.
(umask 022; "$placer" build "$dir/m.json" -o "$dir/m022.snap" >/dev/null)
(umask 077; "$placer" build "$dir/m.json" -o "$dir/m077.snap" >/dev/null)
(umask 027; "${sim[@]}" --plot "$dir/p027.svg" >/dev/null)
check '[ "$(stat -c %a "$dir/m022.snap")" = 644 ]' "umask 022 does not give 644"
check '[ "$(stat -c %a "$dir/m077.snap")" = 600 ]' "umask 077 does not give 600"
check '[ "$(stat -c %a "$dir/p027.svg")" = 640 ]' "umask 027 does not give 640"
# A name without a directory part is written in the current directory.
(cd "$dir" && "$placer" build m.json -o here.snap >/dev/null)
check '[ -f "$dir/here.snap" ]' "a bare file name"

echo "test_cli_write: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
