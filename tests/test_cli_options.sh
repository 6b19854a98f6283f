#!/usr/bin/env bash
# test_cli_options.sh PLACER COUCHBASE_CONFIG -- the conventions every
# command keeps: getopt_long options (--opt VALUE, --opt=VALUE, "--"), a
# usage error as one line that points at --help (exit 1), strict numbers,
# JSON that parses and carries "format": 1, keys that are not UTF-8 as
# "key_base64", NUL bytes in keys refused (exit 2), --hex keys, and control
# characters escaped in text output.
set -u
placer=$1 couchbase=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$dir/out err=$dir/err
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
run() { # WANT_EXIT DESCRIPTION -- CMD...: stdout in $out, stderr in $err
    local want=$1 what=$2; shift 3
    "$@" >"$out" 2>"$err"; local got=$?
    if [ "$got" -eq "$want" ]; then ok; else bad "$what: exit $got, want $want"; cat "$out" "$err" >&2; fi
}
# Every line of $out is a JSON object with "format": 1.
json_lines() {
    if python3 -c '
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
assert lines, "no output"
for line in lines:
    doc = json.loads(line)
    assert doc.get("format") == 1, "no format 1: " + line[:80]
' "$out" 2>"$dir/py"; then ok; else bad "$1: not JSON lines with format 1: $(cat "$dir/py")"; head -c 400 "$out" >&2; fi
}

printf '{"strategy": "ring", "seed": 7, "epoch": 12, "vnodes": 64, "nodes": [
  {"id": "a", "zone": "z1"}, {"id": "b", "zone": "z2"}, {"id": "c", "zone": "z3", "weight": 2}]}\n' >"$dir/m.json"
"$placer" build "$dir/m.json" -o "$dir/m.snap" >/dev/null || bad "build"
sed 's/"epoch": 12/"epoch": 13/; s/"weight": 2/"weight": 3/' "$dir/m.json" >"$dir/m2.json"
"$placer" build "$dir/m2.json" --output="$dir/m2.snap" >/dev/null || bad "build --output=FILE"

# A usage error: exactly one line on stderr naming the command and --help.
for cmd in build lookup stats diff verify import-couchbase publish watch simulate demo version; do
    run 1 "$cmd --no-such-option" -- "$placer" "$cmd" --no-such-option
    if [ "$(wc -l <"$err")" -eq 1 ] && grep -q "^placer $cmd: .*'placer $cmd --help'" "$err"; then ok
    else bad "$cmd: usage error is not one line pointing at --help"; cat "$err" >&2; fi
    run 0 "$cmd -h" -- "$placer" "$cmd" -h
    grep -q "^usage: placer $cmd" "$out" && ok || bad "$cmd -h shows the usage"
done
run 1 "no command" -- "$placer"
[ "$(wc -l <"$err")" -eq 1 ] && ok || bad "no command: one line"
run 1 "a value missing" -- "$placer" lookup "$dir/m.snap" --replicas
grep -q "option '--replicas' needs a value" "$err" && ok || bad "missing value named"
run 1 "a value given to a flag" -- "$placer" stats "$dir/m.snap" --json=yes
grep -q "option '--json' takes no value" "$err" && ok || bad "flag with a value named"

# --opt VALUE and --opt=VALUE are the same; options may follow operands.
run 0 "--replicas 2" -- "$placer" lookup "$dir/m.snap" --replicas 2 k1
cp "$out" "$dir/spaced"
run 0 "--replicas=2" -- "$placer" lookup --replicas=2 "$dir/m.snap" k1
cmp -s "$out" "$dir/spaced" && ok || bad "--replicas=2 differs from --replicas 2"
# -- ends the options and keeps every argument: k1 before it, --json after it.
run 0 "keys around --" -- "$placer" lookup "$dir/m.snap" k1 -- --json -k2
[ "$(cut -f1 "$out" | tr '\n' ' ')" = "k1 --json -k2 " ] && ok || { bad "-- dropped or reordered keys"; cat "$out" >&2; }

# Strict numbers: decimal or 0x hex, nothing else.
for v in ' 1' '1 ' '+1' '-1' '01' '0x' '1e3' '0b1' '' '18446744073709551616' '2.0'; do
    run 1 "--ranges '$v'" -- "$placer" diff "$dir/m.snap" "$dir/m2.snap" --ranges "$v"
done
run 0 "--ranges 0x3" -- "$placer" diff "$dir/m.snap" "$dir/m2.snap" --ranges 0x3
run 1 "--epoch ' -1'" -- "$placer" build "$dir/m.json" -o "$dir/x.snap" --epoch ' -1'
run 0 "--epoch 0xffffffffffffffff" -- "$placer" build "$dir/m.json" -o "$dir/x.snap" --epoch 0xffffffffffffffff --json
json_lines "build --json"
grep -q '"epoch":"18446744073709551615"' "$out" && ok || bad "an epoch past 2^53 is a decimal string"

# JSON everywhere: parses, format 1.
run 0 "lookup --json" -- "$placer" lookup "$dir/m.snap" --json --replicas 3 k1 k2
json_lines "lookup --json"
run 0 "stats --json" -- "$placer" stats "$dir/m.snap" --json
json_lines "stats --json"
run 0 "diff --json" -- "$placer" diff "$dir/m.snap" "$dir/m2.snap" --json --ranges 3
json_lines "diff --json"
run 0 "verify --json" -- "$placer" verify "$dir/m.snap" --json
json_lines "verify --json"
run 0 "version --json" -- "$placer" version --json
json_lines "version --json"
run 0 "import-couchbase --json" -- "$placer" import-couchbase "$couchbase" -o "$dir/cb.snap" --json
json_lines "import-couchbase --json"
run 0 "simulate --json" -- "$placer" simulate --nodes 5 --keys 2000 --vnodes 4 --no-timing --json
json_lines "simulate --json"

# Keys that are not UTF-8: "key_base64", lossless; the owner is that of the bytes.
printf 'plain\n\xff\xfekey\ncaf\xc3\xa9\n' | "$placer" lookup "$dir/m.snap" --json >"$out" 2>"$err" && ok || bad "lookup of non-UTF-8 keys"
json_lines "non-UTF-8 keys"
if python3 - "$out" <<'PY'
import base64, json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
assert docs[0]["key"] == "plain"
assert "key" not in docs[1] and base64.b64decode(docs[1]["key_base64"]) == b"\xff\xfekey"
assert docs[2]["key"] == "caf\u00e9"
PY
then ok; else bad "key / key_base64"; cat "$out" >&2; fi
raw_owner=$(printf '\xff\xfekey\n' | "$placer" lookup "$dir/m.snap" | cut -f2)
hex_owner=$("$placer" lookup "$dir/m.snap" --hex fffe6b6579 | cut -f2)
[ -n "$raw_owner" ] && [ "$raw_owner" = "$hex_owner" ] && ok || bad "--hex key: owner '$hex_owner', raw '$raw_owner'"

# A NUL byte in a key line: refused, named, exit 2; the other lines still answered.
printf 'k1\na\0b\nk2\n' >"$dir/nul.txt"
run 2 "key with a NUL byte" -- sh -c "\"$placer\" lookup \"$dir/m.snap\" < \"$dir/nul.txt\""
grep -q 'line 2: the key holds a NUL byte (give binary keys with --hex)' "$err" && ok || bad "NUL key message"
[ "$(cut -f1 "$out" | tr '\n' ' ')" = "k1 k2 " ] && ok || bad "other keys answered"
run 0 "a NUL byte through --hex" -- "$placer" lookup "$dir/m.snap" --hex 610062
grep -q '^610062	' "$out" && ok || bad "--hex echoes the key as hex"
run 0 "--hex, upper case digits" -- "$placer" lookup "$dir/m.snap" --hex 6100FF
grep -q '^6100ff	' "$out" && ok || bad "--hex echoes the key as lowercase hex"
run 2 "bad hex" -- "$placer" lookup "$dir/m.snap" --hex 6g

# --header names the columns; the replicas' addresses are the last one
# ("-" for a node without one), in text and in JSON.
printf '{"strategy": "ring", "seed": 7, "vnodes": 64, "nodes": [
  {"id": "a", "address": "10.0.0.1:1"}, {"id": "b", "address": "10.0.0.2:2"}, {"id": "c"}]}\n' >"$dir/addr.json"
"$placer" build "$dir/addr.json" -o "$dir/addr.snap" >/dev/null || bad "build addr.json"
run 0 "lookup --header --replicas 3" -- "$placer" lookup "$dir/addr.snap" --header --replicas 3 k1 k2
[ "$(head -1 "$out")" = "$(printf 'key\towner\tzone\treplicas\tzones\tepoch\taddresses')" ] && ok || bad "header line: $(head -1 "$out")"
[ "$(wc -l <"$out")" = 3 ] && ok || bad "header once, then a line a key"
if awk -F'\t' 'NR > 1 { split($4, r, ","); split($7, a, ",");
        for (i = 1; i <= 3; i++) { want = r[i] == "a" ? "10.0.0.1:1" : r[i] == "b" ? "10.0.0.2:2" : "-"; if (a[i] != want) exit 1 } }' "$out"
then ok; else bad "addresses follow the replicas"; cat "$out" >&2; fi
run 0 "lookup without --header" -- "$placer" lookup "$dir/addr.snap" k1
grep -q '^key	' "$out" && bad "a header without --header" || ok
run 0 "lookup --json --replicas 3 (addresses)" -- "$placer" lookup "$dir/addr.snap" --json --replicas 3 k1
python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).read())
want = {"a": "10.0.0.1:1", "b": "10.0.0.2:2", "c": ""}
assert [r["address"] for r in d["replicas"]] == [want[r["id"]] for r in d["replicas"]], d
assert d["address"] == want[d["owner"]], d
' "$out" && ok || bad "JSON replicas carry their addresses"
run 1 "--header with --json" -- "$placer" lookup "$dir/addr.snap" --header --json k1

# Control characters and backslashes are escaped in text output.
run 0 "key with a tab and an escape" -- "$placer" lookup "$dir/m.snap" "$(printf 'x\ty\033[2J\\z')"
grep -q '^x\\x09y\\x1b\[2J\\\\z	' "$out" && ok || { bad "control characters escaped"; cat -A "$out" >&2; }
[ "$(awk -F'\t' '{print NF}' "$out")" = 7 ] && ok || bad "the line keeps its 7 fields"

# Progress on stderr only when it is a terminal, and not with --quiet.
simq=("$placer" simulate --nodes 5 --keys 2000 --vnodes 1,4 --no-timing --json)
if command -v script >/dev/null; then
    tty_err=$(script -qec "$(printf '%q ' "${simq[@]}") >/dev/null" /dev/null)
    grep -qE 'simulating: ([0-9]+) of \1 runs' <<<"$tty_err" && ok || bad "no progress on a terminal: $tty_err"
    tty_err=$(script -qec "$(printf '%q ' "${simq[@]}") --quiet >/dev/null" /dev/null)
    [ -z "$tty_err" ] && ok || bad "--quiet still shows progress: $tty_err"
fi
# lookup counts the keys it read from a large standard input the same way.
seq 1 70000 >"$dir/many.txt"
if command -v script >/dev/null; then
    tty_err=$(script -qec "$(printf '%q ' "$placer" lookup "$dir/m.snap") <$dir/many.txt >/dev/null" /dev/null)
    grep -q 'placer lookup: 70000 keys' <<<"$tty_err" && ok || bad "no lookup progress on a terminal: $tty_err"
    tty_err=$(script -qec "$(printf '%q ' "$placer" lookup -q "$dir/m.snap") <$dir/many.txt >/dev/null" /dev/null)
    [ -z "$tty_err" ] && ok || bad "lookup --quiet still shows progress: $tty_err"
fi
"$placer" lookup "$dir/m.snap" <"$dir/many.txt" >/dev/null 2>"$err"
[ ! -s "$err" ] && ok || bad "lookup progress on a stderr that is not a terminal: $(cat "$err")"
"${simq[@]}" >/dev/null 2>"$err"
[ ! -s "$err" ] && ok || bad "progress on a stderr that is not a terminal: $(cat "$err")"

# A watch that never reached any etcd member is the environment's failure (3),
# not an idle success; port 1 on loopback refuses at once.
run 3 "watch with no etcd" -- "$placer" watch --etcd http://127.0.0.1:1 --key /k --seconds 2
grep -q 'no etcd endpoint answered' "$err" && ok || bad "watch names the unreachable etcd: $(cat "$err")"

echo "test_cli_options: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
