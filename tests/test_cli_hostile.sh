#!/usr/bin/env bash
# test_cli_hostile.sh PLACER -- input that tries the command's messages and
# limits: control bytes quoted in errors come out escaped
# (\xNN, placer_escape) from membership files, import-redis, import-twemproxy
# and compat key hashes; a FIFO given as --secret-file is refused at once; a
# compat membership with a secret names its own program; lookup refuses a key
# past its length cap (exit 2, the cap named); simulate --nodes 1 works.
set -u
placer=$1
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
# No byte below 0x20 but newline, and no DEL, in $err; and PATTERN is there.
escaped() { # DESCRIPTION PATTERN
    if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$err"; then bad "$1: raw control bytes in the message"; od -c "$err" | head >&2
    else ok; fi
    grep -qF -- "$2" "$err" && ok || { bad "$1: no '$2' in the message"; cat "$err" >&2; }
}
osc=$'\x1b]0;owned\x07'
josc='\u001b]0;owned\u0007'   # the same in JSON and YAML escapes (raw control bytes
yosc='\e]0;owned\a'          # are refused by the parsers before placer sees them)

# ---- membership files: an unknown field's name, a compat key_hash ----
printf '{"strategy": "ring", "nodes": [{"id": "a"}], "w%s": 1}\n' "$josc" >"$dir/field.json"
run 2 "unknown field with an OSC sequence" -- "$placer" build "$dir/field.json" -o "$dir/x.snap"
escaped "unknown field" 'w\x1b]0;owned\x07: unknown field'
printf '{"compat": "twemproxy", "key_hash": "md5%s", "nodes": [{"id": "a", "address": "h:1"}]}\n' "$josc" >"$dir/kh.json"
run 2 "compat key_hash with an OSC sequence" -- "$placer" build "$dir/kh.json" -o "$dir/x.snap"
escaped "compat key_hash" '"md5\x1b]0;owned\x07" is not a key hash of twemproxy'
printf '{"strategy": "ring", "nodes": [{"id": "a"}], "seed": "1\\\\2"}\n' >"$dir/bs.json"
run 2 "a backslash in a value" -- "$placer" build "$dir/bs.json" -o "$dir/x.snap"
escaped "backslash" '"1\\2"'

# ---- the command's own messages: argv values and paths ----
run 1 "a usage error quoting an OSC sequence" -- "$placer" simulate --key-dist "x$osc"
escaped "usage error" "got 'x\x1b]0;owned\x07'"
run 2 "a missing file named with an OSC sequence" -- "$placer" stats "$dir/no$osc.snap"
escaped "missing file" 'no\x1b]0;owned\x07.snap: No such file'
printf 'junk' >"$dir/bad$osc.snap"
run 2 "a bad snapshot named with an OSC sequence" -- "$placer" stats "$dir/bad$osc.snap"
escaped "bad snapshot" 'bad\x1b]0;owned\x07.snap: PLACER_'

# ---- import-redis: flags and slot fields ----
id1=0123456789abcdef0123456789abcdef01234567
printf '%s 127.0.0.1:7000@17000 master%s - 0 0 1 connected 0-16383\n' "$id1" "$osc" >"$dir/flags.txt"
run 2 "import-redis flags with an OSC sequence" -- "$placer" import-redis "$dir/flags.txt" -o "$dir/x.snap"
escaped "redis flags" 'master\x1b]0;owned\x07'
printf '%s 127.0.0.1:7000@17000 master - 0 0 1 connected 0-16383%s\n' "$id1" "$osc" >"$dir/slots.txt"
run 2 "import-redis slots with an OSC sequence" -- "$placer" import-redis "$dir/slots.txt" -o "$dir/x.snap"
escaped "redis slots" '0-16383\x1b]0;owned\x07'

# ---- import-twemproxy: the hash: value ----
printf 'alpha:\n  hash: "fnv1a_64%s"\n  distribution: ketama\n  servers:\n   - 127.0.0.1:11211:1\n' "$yosc" >"$dir/tw.yml"
run 2 "import-twemproxy hash with an OSC sequence" -- "$placer" import-twemproxy "$dir/tw.yml" -o "$dir/x.snap"
escaped "twemproxy hash" 'hash: "fnv1a_64\x1b]0;owned\x07" is not one of'

# ---- --secret-file: a FIFO is refused without waiting for a writer ----
printf '{"strategy": "ring", "key_hash": "siphash13", "nodes": [{"id": "a"}]}\n' >"$dir/keyed.json"
mkfifo "$dir/fifo"
run 2 "--secret-file on a FIFO" -- timeout 10 "$placer" build "$dir/keyed.json" -o "$dir/x.snap" --secret-file "$dir/fifo"
grep -q 'fifo: not a regular file' "$err" && ok || bad "FIFO: not named as not a regular file"

# ---- a compat membership with a secret names its program ----
head -c 16 /dev/urandom >"$dir/secret"; chmod 600 "$dir/secret"
printf '{"compat": "twemproxy", "nodes": [{"id": "a", "address": "h:1"}]}\n' >"$dir/tw.json"
run 2 "compat twemproxy with a secret" -- "$placer" build "$dir/tw.json" -o "$dir/x.snap" --secret-file "$dir/secret"
grep -q 'compat "twemproxy" takes no secret' "$err" && ok || { bad "compat secret: program not named"; cat "$err" >&2; }
grep -q 'couchbase' "$err" && bad "compat secret: still blames couchbase" || ok
printf '{"strategy": "partitions", "key_hash": "couchbase", "partitions": 1024, "nodes": [{"id": "a"}]}\n' >"$dir/cb.json"
run 2 "couchbase key hash with a secret" -- "$placer" build "$dir/cb.json" -o "$dir/x.snap" --secret-file "$dir/secret"
grep -q 'key_hash "couchbase" takes no secret' "$err" && ok || { bad "couchbase secret message"; cat "$err" >&2; }

# ---- lookup: a documented key length cap, whatever the line's length ----
printf '{"strategy": "ring", "seed": 7, "vnodes": 16, "nodes": [{"id": "a"}, {"id": "b"}]}\n' >"$dir/r.json"
"$placer" build "$dir/r.json" -o "$dir/r.snap" >/dev/null || bad "build r.json"
{ head -c 65536 /dev/zero | tr '\0' k; echo; head -c 65537 /dev/zero | tr '\0' k; echo; echo user:1
  head -c 50000000 /dev/zero | tr '\0' x; echo; echo user:2; } >"$dir/long.txt"
run 2 "lookup --json of lines past the cap" -- sh -c "\"$placer\" lookup \"$dir/r.snap\" --json < \"$dir/long.txt\""
[ "$(grep -c 'the key is longer than the 65536-byte cap' "$err")" = 2 ] && ok || { bad "two lines past the cap named"; cat "$err" >&2; }
grep -q 'line 2: the key is longer' "$err" && grep -q 'line 4: the key is longer' "$err" && ok || bad "the lines past the cap numbered"
grep -q 'write error' "$err" && bad "a refused key reported as a write error" || ok
python3 -c '
import json, sys
keys = [json.loads(l).get("key") for l in open(sys.argv[1])]
assert keys == ["k" * 65536, "user:1", "user:2"], [k[:10] for k in keys]
' "$out" && ok || bad "keys up to the cap answered, the others after a long line too"
run 2 "a key argument past the cap" -- "$placer" lookup "$dir/r.snap" "$(head -c 65537 /dev/zero | tr '\0' k)"
grep -q 'key argument 1: the key is longer than the 65536-byte cap' "$err" && ok || bad "argument past the cap named"
{ head -c 131072 /dev/zero | tr '\0' a; echo; } >"$dir/hex-cap.txt"
{ head -c 131074 /dev/zero | tr '\0' a; echo; } >"$dir/hex-past.txt"
run 0 "--hex up to the cap (decoded)" -- sh -c "\"$placer\" lookup \"$dir/r.snap\" --hex < \"$dir/hex-cap.txt\""
run 2 "--hex past the cap (decoded)" -- sh -c "\"$placer\" lookup \"$dir/r.snap\" --hex < \"$dir/hex-past.txt\""

# ---- a weight given as a string: weights are JSON numbers ----
printf '{"strategy": "ring", "nodes": [{"id": "a", "weight": "2"}]}\n' >"$dir/ws.json"
run 2 "a weight as a string" -- "$placer" build "$dir/ws.json" -o "$dir/x.snap"
grep -q 'nodes\[0\].weight: expected a JSON number > 0 (a weight is never a string)' "$err" && ok || { bad "weight string message"; cat "$err" >&2; }

# ---- a truncated snapshot: said once ----
head -c 200 "$dir/r.snap" >"$dir/cut.snap"
run 2 "a truncated snapshot" -- "$placer" stats "$dir/cut.snap"
grep -qE 'PLACER_ETRUNC: snapshot truncated: 200 bytes of the [0-9]+ its header gives$' "$err" && ok || { bad "truncation message"; cat "$err" >&2; }
grep -q 'truncated: truncated' "$err" && bad "truncation said twice" || ok

# ---- simulate needs two nodes: refused with the reason, not ENONODES ----
run 1 "simulate --nodes 1" -- "$placer" simulate --nodes 1 --keys 1000 --no-timing
grep -q -- "--nodes: '1' is outside 2\.\." "$err" && ok || { bad "--nodes 1: the range named"; cat "$err" >&2; }
printf '{"strategy": "ring", "nodes": [{"id": "solo"}]}\n' >"$dir/one.json"
run 2 "simulate of a one-node membership" -- "$placer" simulate "$dir/one.json" --keys 1000 --no-timing
grep -q 'the simulation needs at least 2' "$err" && ok || { bad "one-node membership: reason"; cat "$err" >&2; }
grep -q ENONODES "$err" && bad "one node: still ENONODES" || ok
run 0 "simulate --nodes 2" -- "$placer" simulate --nodes 2 --keys 2000 --vnodes 1,4 --no-timing --churn 1,1

rm -f /tmp/placer_hostile.$$
echo "test_cli_hostile: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
