#!/usr/bin/env bash
# test_cli_keyed.sh PLACER -- keyed placement as a user meets it: build
# --secret-file (raw and hex secrets; refused when others may read the file,
# when its content is wrong, with the Couchbase hash, and never taken from
# the command line), the snapshot file's mode (0600), what stats, verify and
# lookup print (the key hash's name, never the secret, in text and JSON),
# a rebuild with --previous keeping the secret (no key moves), and the
# key_hash names of membership files.
set -u
placer=$1
. "$(dirname "$0")/cli_expect.sh"
expect_not() { # FIXED-STRING DESCRIPTION
    if grep -qiF -- "$1" "$out"; then bad "$2: '$1' printed"; else ok; fi
}

umask 022
hex=00112233445566778899aabbccddeeff
printf '%s\n' "$hex" >"$dir/secret.hex"
chmod 600 "$dir/secret.hex"
printf '\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff' >"$dir/secret.raw"
chmod 600 "$dir/secret.raw"
cat >"$dir/m.json" <<'JSON'
{"strategy": "ring", "seed": 7, "epoch": 3, "vnodes": 32,
 "nodes": [{"id": "a", "zone": "z1"}, {"id": "b", "zone": "z2"}, {"id": "c", "zone": "z3"}]}
JSON
for i in $(seq 1 200); do echo "user:$i"; done >"$dir/keys"

expect_exit 0 "build --secret-file (hex)" -- "$placer" build "$dir/m.json" -o "$dir/k.snap" --secret-file "$dir/secret.hex"
expect_out 'key hash siphash13' "build names the keyed hash"
expect_not "$hex" "build output"
mode=$(stat -c %a "$dir/k.snap")
[ "$mode" = 600 ] && ok || bad "keyed snapshot mode $mode, want 600"
expect_exit 0 "build --secret-file (raw)" -- "$placer" build "$dir/m.json" -o "$dir/k2.snap" --secret-file "$dir/secret.raw"
cmp -s "$dir/k.snap" "$dir/k2.snap" && ok || bad "raw and hex forms of one secret give different snapshots"
expect_exit 0 "unkeyed build" -- "$placer" build "$dir/m.json" -o "$dir/u.snap"
expect_out 'key hash placer-v2' "the default hash is placer-v2"
mode=$(stat -c %a "$dir/u.snap")
[ "$mode" = 644 ] && ok || bad "unkeyed snapshot mode $mode, want 644 (umask 022)"

# Nothing prints the secret: stats, verify, lookup, text and JSON.
for args in "stats" "stats --json" "verify" "verify --json"; do
    expect_exit 0 "$args" -- "$placer" $args "$dir/k.snap"
    expect_not "$hex" "$args"
    expect_not "8899aabbccddeeff" "$args"
done
expect_exit 0 "verify --json" -- "$placer" verify --json "$dir/k.snap"
expect_out '"key_hash":"siphash13"' "verify --json names the key hash"
expect_exit 0 "lookup --json" -- sh -c "\"$placer\" lookup \"$dir/k.snap\" --json < \"$dir/keys\""
expect_not "$hex" "lookup --json"
expect_exit 0 "lookup (keyed)" -- sh -c "\"$placer\" lookup \"$dir/k.snap\" < \"$dir/keys\" | cut -f2 > \"$dir/k.owners\""
expect_exit 0 "lookup (unkeyed)" -- sh -c "\"$placer\" lookup \"$dir/u.snap\" < \"$dir/keys\" | cut -f2 > \"$dir/u.owners\""
cmp -s "$dir/k.owners" "$dir/u.owners" && bad "the secret changed no owner of 200 keys" || ok

# A rebuild that follows the keyed snapshot keeps its secret: no key moves.
expect_exit 0 "build --previous keyed" -- "$placer" build "$dir/m.json" -o "$dir/k3.snap" --previous "$dir/k.snap"
expect_out 'key hash siphash13' "the rebuild stays keyed"
mode=$(stat -c %a "$dir/k3.snap")
[ "$mode" = 600 ] && ok || bad "rebuilt keyed snapshot mode $mode, want 600"
expect_exit 0 "lookup (rebuilt)" -- sh -c "\"$placer\" lookup \"$dir/k3.snap\" < \"$dir/keys\" | cut -f2 > \"$dir/k3.owners\""
cmp -s "$dir/k.owners" "$dir/k3.owners" && ok || bad "keys moved on a rebuild with --previous"

# Refusals.
chmod 644 "$dir/secret.hex"
expect_exit 2 "a secret file others may read" -- "$placer" build "$dir/m.json" -o "$dir/x.snap" --secret-file "$dir/secret.hex"
expect_out 'chmod 600' "the refusal says how to fix it"
chmod 600 "$dir/secret.hex"
printf 'not-a-secret\n' >"$dir/bad.secret"; chmod 600 "$dir/bad.secret"
expect_exit 2 "a malformed secret" -- "$placer" build "$dir/m.json" -o "$dir/x.snap" --secret-file "$dir/bad.secret"
expect_out '16 raw bytes or 32 hex digits' "the malformed secret's message"
expect_exit 2 "a missing secret file" -- "$placer" build "$dir/m.json" -o "$dir/x.snap" --secret-file "$dir/none"
expect_exit 1 "--secret-file without a file" -- "$placer" build "$dir/m.json" -o "$dir/x.snap" --secret-file
# No option takes the secret itself: --secret is refused by name (getopt_long
# would otherwise read it as an abbreviation of --secret-file).
expect_exit 1 "no --secret option (never on the command line)" -- "$placer" build "$dir/m.json" -o "$dir/x.snap" --secret "$hex"
expect_out 'no --secret: .*--secret-file F' "the refusal says what to use"
expect_exit 1 "no --secret=VALUE either" -- "$placer" build "$dir/m.json" -o "$dir/x.snap" --secret="$hex"
[ -e "$dir/x.snap" ] && bad "a snapshot was written from a secret on the command line" || ok
expect_exit 1 "no --password for etcd (never on the command line)" -- "$placer" publish "$dir/m.json" --etcd http://127.0.0.1:1 --user u --password hunter2
expect_out 'no --password: .*--password-file F' "the password refusal says what to use"
cat >"$dir/cb.json" <<'JSON'
{"strategy": "partitions", "partitions": 64, "key_hash": "couchbase", "nodes": [{"id": "a"}, {"id": "b"}]}
JSON
expect_exit 2 "couchbase with a secret" -- "$placer" build "$dir/cb.json" -o "$dir/x.snap" --secret-file "$dir/secret.hex"
expect_out 'takes no secret' "the Couchbase refusal"
cat >"$dir/s.json" <<'JSON'
{"strategy": "jump", "key_hash": "siphash13", "nodes": [{"id": "a"}, {"id": "b"}]}
JSON
expect_exit 2 "siphash13 without --secret-file" -- "$placer" build "$dir/s.json" -o "$dir/x.snap"
expect_exit 0 "siphash13 with --secret-file" -- "$placer" build "$dir/s.json" -o "$dir/x.snap" --secret-file "$dir/secret.hex"
cat >"$dir/v1.json" <<'JSON'
{"strategy": "ring", "key_hash": "placer-v1", "nodes": [{"id": "a"}, {"id": "b"}]}
JSON
expect_exit 0 "key_hash placer-v1" -- "$placer" build "$dir/v1.json" -o "$dir/v1.snap"
expect_out 'key hash placer-v1' "the legacy hash by name"
[ -e "$dir/x.snap.tmp."* ] 2>/dev/null && bad "a temporary file was left behind" || ok

finish test_cli_keyed
