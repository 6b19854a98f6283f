#!/usr/bin/env bash
# test_cli_lookup_writes.sh PLACER -- `placer lookup` writes its answers
# through a 64 KiB buffer: at most one write() to standard output per
# 64 KiB of output (plus the last, partial one), for --json and for text,
# not one a key. strace counts the calls (skipped, 77, without strace or
# when ptrace is not permitted, as in some containers).
set -u
placer=$1
command -v strace >/dev/null || { echo "strace not installed: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
strace -o /dev/null true 2>/dev/null || { echo "ptrace not permitted: skipped"; exit 77; }

cat >"$dir/m.json" <<'JSON'
{"strategy": "ring", "replicas": 3, "nodes": [
 {"id": "a", "zone": "z1", "address": "10.0.0.1:11211"},
 {"id": "b", "zone": "z2", "address": "10.0.0.2:11211"},
 {"id": "c", "zone": "z3", "address": "10.0.0.3:11211"},
 {"id": "d", "zone": "z1", "address": "10.0.0.4:11211"}]}
JSON
"$placer" build "$dir/m.json" -o "$dir/m.snap" >/dev/null || { echo "FAIL: build"; exit 1; }
seq -f 'user:%.0f' 1 20000 >"$dir/keys"
fail=0
for mode in --json text; do
  args=()
  [ "$mode" = --json ] && args=(--json)
  # LeakSanitizer cannot run under ptrace: an ASan build leaves it out here
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -e trace=write -o "$dir/trace" "$placer" lookup "${args[@]}" "$dir/m.snap" \
    <"$dir/keys" >"$dir/out" || { echo "FAIL: lookup $mode"; fail=1; continue; }
  bytes=$(stat -c %s "$dir/out")
  lines=$(wc -l <"$dir/out")
  writes=$(grep -cE '^([0-9]+ +)?write\(1,' "$dir/trace")
  allowed=$(( bytes / 65536 + 1 ))
  echo "lookup $mode: $lines lines, $bytes bytes, $writes writes (at most $allowed)"
  if [ "$lines" -ne 20000 ]; then echo "FAIL: $mode: $lines lines, not 20000"; fail=1; fi
  if [ "$writes" -gt "$allowed" ]; then echo "FAIL: $mode: $writes writes"; fail=1; fi
  if [ "$writes" -lt 2 ]; then echo "FAIL: $mode: $writes writes: strace saw none?"; fail=1; fi
done
exit $fail
