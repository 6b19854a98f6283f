#!/usr/bin/env bash
# test_cli_files.sh PLACER COUCHBASE_CONFIG -- the file commands as a user
# meets them: build, lookup, stats, diff, verify, import-couchbase; their
# help, JSON output, exit codes (0 ok, 1 usage, 2 bad input) and the
# messages for bad membership files and damaged snapshots.
set -u
placer=$1 couchbase=$2
. "$(dirname "$0")/cli_expect.sh"

for cmd in build lookup stats diff verify import-couchbase simulate; do
    expect_exit 0 "$cmd --help" -- "$placer" "$cmd" --help
    expect_out "^usage: placer $cmd" "$cmd --help shows its usage"
    expect_exit 1 "$cmd with a bad option" -- "$placer" "$cmd" --no-such-option
    [ "$cmd" = simulate ] || expect_exit 1 "$cmd without arguments" -- "$placer" "$cmd"
done

cat >"$dir/m.json" <<'JSON'
{
  "strategy": "ring", "seed": 7, "epoch": 12, "vnodes": 64,
  "nodes": [
    {"id": "cache-a", "zone": "z1", "weight": 1, "address": "10.0.0.1:11211"},
    {"id": "cache-b", "zone": "z2", "weight": 1},
    {"id": "cache-c", "zone": "z3", "weight": 2},
    {"id": "cache-d", "zone": "z1", "weight": 1, "state": "joining"}
  ]
}
JSON
expect_exit 0 "build" -- "$placer" build "$dir/m.json" -o "$dir/m.snap"
expect_out '^wrote .*m\.snap: ring, key hash placer-v2, epoch 12, 4 nodes, 256 tokens, in transition$' "build summary"
expect_exit 0 "build --epoch --json" -- "$placer" build "$dir/m.json" -o "$dir/m13.snap" --epoch 13 --json
expect_out '"epoch":13,"nodes":4,"tokens":256,"in_transition":true' "build JSON"
expect_out '"in_transition":true,"rebased_moved":null' "build JSON: not re-based"
# A memento history down to one of 200 nodes: re-based, the keys moved said.
python3 -c 'import json; print(json.dumps({"strategy": "memento", "nodes": [{"id": "n%03d" % i} for i in range(200)]}))' >"$dir/mem.json"
printf '{"strategy": "memento", "nodes": [{"id": "n199"}]}\n' >"$dir/mem1.json"
expect_exit 0 "memento build" -- "$placer" build "$dir/mem.json" -o "$dir/mem.snap"
expect_exit 0 "memento build --previous down to the last node" -- "$placer" build "$dir/mem1.json" --previous "$dir/mem.snap" -o "$dir/mem1.snap"
expect_out '^re-based: the previous history left lookups over 256 steps; a fresh placement of the working nodes moved 0\.99[0-9]* of the keys$' "a re-based build says so"
expect_exit 0 "memento re-based --json" -- "$placer" build "$dir/mem1.json" --previous "$dir/mem.snap" -o "$dir/mem1.snap" --json
expect_out '"rebased_moved":0\.99' "build JSON: re-based"
expect_exit 0 "verify" -- "$placer" verify "$dir/m.snap"
expect_out 'valid, [0-9]+ bytes: ring, key hash placer-v2, epoch 12, seed 7, 4 nodes, 256 tokens, in transition' "verify summary"
expect_exit 0 "lookup" -- "$placer" lookup "$dir/m.snap" user:1 user:2 --replicas 3
expect_out '^user:1	cache-[abc]	z[123]	cache-[abc],cache-[abc],cache-[abc]	3	12	cache-[abcd]	[^	]+$' "lookup line"
printf 'k1\nk2\nk3\n' >"$dir/keys"
expect_exit 0 "lookup from stdin, JSON" -- sh -c "\"$placer\" lookup \"$dir/m.snap\" --json < \"$dir/keys\""
if [ "$(grep -c '^{"format":1,"key":"k[123]","owner":"cache-[abc]"' "$out")" -eq 3 ]; then ok; else bad "3 JSON lines from stdin"; cat "$out" >&2; fi
expect_exit 0 "lookup of a key starting with -" -- "$placer" lookup "$dir/m.snap" -- -dash
expect_out '^-dash	' "key after --"
expect_exit 1 "lookup --replicas 9" -- "$placer" lookup "$dir/m.snap" k --replicas 9
expect_exit 0 "stats" -- "$placer" stats "$dir/m.snap"
expect_out '^share/target \(exact\) over 3 placed nodes: largest [0-9.]+ \(cache-[abc]\), smallest [0-9.]+; raw shares: max/mean [0-9.]+, min/mean [0-9.]+, coefficient of variation [0-9.]+' "stats summary leads with share/target"
expect_out '^zones: z1 ' "stats zones"
expect_out '^layout: buckets, 2\^[0-9]+ lines, [0-9.]+% of lines answer alone; [0-9]+ bytes, [0-9.]+x plain sorted tokens \+ owners$' "stats layout"
expect_exit 0 "stats --json" -- "$placer" stats "$dir/m.snap" --json
expect_out '"shares":"exact",.*"nodes":\[\{"id":"cache-a"' "stats JSON"
expect_out '"layout":"buckets"' "stats JSON layout"
expect_out '"directory_bits":[0-9]+' "stats JSON directory size"
sed 's/"joining"/"active"/; s/"epoch": 12/"epoch": 13/' "$dir/m.json" >"$dir/m2.json"
"$placer" build "$dir/m2.json" -o "$dir/m2.snap" >/dev/null
expect_exit 0 "diff" -- "$placer" diff "$dir/m.snap" "$dir/m2.snap" --ranges 2
expect_out '^moved: [0-9.]+% of keys \(exact ranges\); ideal 20\.0000%' "diff against the ideal"
expect_out '^cache-d +0\.0000% +[0-9.]+%$' "the joining node receives"
expect_exit 0 "diff --json" -- "$placer" diff "$dir/m.snap" "$dir/m2.snap" --json
expect_out '^\{"format":1,"moved":[0-9.e-]+,"ideal":0\.2' "diff JSON"

# Other strategies through the same commands.
for s in partitions jump rendezvous maglev; do
    # "vnodes" is a ring's alone: on another strategy it is an error
    sed "s/\"ring\"/\"$s\"/; s/, \"vnodes\": 64//" "$dir/m.json" >"$dir/$s.json"
    expect_exit 0 "build $s" -- "$placer" build "$dir/$s.json" -o "$dir/$s.snap"
    expect_exit 0 "lookup $s" -- "$placer" lookup "$dir/$s.snap" somekey --replicas 2
    expect_exit 0 "stats $s" -- "$placer" stats "$dir/$s.snap"
    expect_out '^layout: (table|candidates); [0-9]+ bytes' "stats $s layout"
    sed "s/\"ring\"/\"$s\"/; s/, \"vnodes\": 64//" "$dir/m2.json" >"$dir/${s}2.json"
    "$placer" build "$dir/${s}2.json" -o "$dir/${s}2.snap" --previous "$dir/$s.snap" >/dev/null
    expect_exit 0 "diff $s" -- "$placer" diff "$dir/$s.snap" "$dir/${s}2.snap"
    case $s in
    jump|rendezvous) expect_out '^moved: [0-9.]+% of keys \(sampled: 100000 generated keys, 95% interval [0-9.]+% \.\. [0-9.]+%\)' "diff $s is sampled by keys, with its interval" ;;
    *) expect_out '^moved: [0-9.]+% of keys \(exact ranges\)' "diff $s is exact" ;;
    esac
done

# Bucket strategies: diff adds what the buckets say should move. 40 equal
# nodes, the 8th leaves from the middle: memento, anchor and dx expect its
# share, 2.5000%; jump twice that (the last bucket's node fills the hole).
for s in memento anchor dx jump; do
    awk 'BEGIN { printf "{\"strategy\": \"'$s'\", \"nodes\": ["; for (i = 0; i < 40; i++) printf "%s{\"id\": \"n%02d\"}", i ? ", " : "", i; print "]}" }' >"$dir/b1.json"
    sed 's/{"id": "n07"}, //' "$dir/b1.json" >"$dir/b2.json"
    "$placer" build "$dir/b1.json" -o "$dir/b1.snap" >/dev/null &&
        "$placer" build "$dir/b2.json" -o "$dir/b2.snap" --previous "$dir/b1.snap" >/dev/null || bad "build $s b1/b2"
    expect_exit 0 "diff $s buckets" -- "$placer" diff "$dir/b1.snap" "$dir/b2.snap"
    want=$([ $s = jump ] && echo '5\.0000% of keys \(40 -> 39 buckets in use: 1 removed, 0 added, 1 given' ||
        echo '2\.5000% of keys \(40 -> 39 buckets in use: 1 removed, 0 added, 0 given')
    expect_out "^expected from the buckets: $want" "diff $s: the expected share from the buckets"
    expect_exit 0 "diff $s buckets --json" -- "$placer" diff "$dir/b1.snap" "$dir/b2.snap" --json
    expect_out '"buckets":\{"expected":0\.0[25][0-9]*,"old":40,"new":39,"removed":1,"added":0,"reassigned":[01]\}' "diff $s --json: buckets"
done

# A join in progress: diff prints what the transition will move (owner ->
# next owner, per node), checked against lookup's own owner and next owner
# of 20,000 keys; stats gives the joining node its target share.
for s in ring jump; do
    printf '{"strategy": "%s", "seed": 5, %s "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}\n' \
        "$s" "$([ $s = ring ] && echo '"vnodes": 64,')" >"$dir/t1.json"
    sed 's/{"id": "c"}/{"id": "c"}, {"id": "d", "state": "joining"}/' "$dir/t1.json" >"$dir/t2.json"
    "$placer" build "$dir/t1.json" -o "$dir/t1.snap" >/dev/null && "$placer" build "$dir/t2.json" -o "$dir/t2.snap" >/dev/null || bad "build $s t1/t2"
    expect_exit 0 "diff $s into a join" -- "$placer" diff "$dir/t1.snap" "$dir/t2.snap"
    expect_out "^transition of .*t2.snap: moves [0-9.]+% of keys from their owner to their next owner" "diff $s names the transition"
    expect_out '^  [abc] -> d [0-9.]+%$' "diff $s lists owner -> next owner"
    expect_exit 0 "diff $s --json into a join" -- "$placer" diff "$dir/t1.snap" "$dir/t2.snap" --json
    cp "$out" "$dir/t.json"
    seq 1 20000 | sed 's/^/k/' | "$placer" lookup "$dir/t2.snap" --json >"$dir/t.lookups"
    if python3 - "$dir/t.json" "$dir/t.lookups" "$s" <<'PY'
import json, sys
doc = json.loads(open(sys.argv[1]).read())
t = doc["transition"]
lines = [json.loads(l) for l in open(sys.argv[2])]
moving = sum(1 for l in lines if l["next_owner"] != l["owner"])
frac = moving / len(lines)
# 20,000 keys: a 95% interval of about +/-0.6%; the sampled one adds its own
assert abs(frac - t["moved"]) < 0.015, (frac, t["moved"])
assert t["exact"] == (sys.argv[3] == "ring"), t
nodes = {n["id"]: n for n in t["nodes"]}
assert abs(nodes["d"]["receives"] - t["moved"]) < 1e-9, nodes
assert abs(sum(n["gives"] for n in t["nodes"]) - t["moved"]) < 1e-9
assert all(p["to"] == "d" for p in t["pairs"]), t["pairs"]
assert abs(sum(p["share"] for p in t["pairs"]) - t["moved"]) < 1e-9
assert 0.2 < t["moved"] < 0.3, t
PY
    then ok; else bad "diff $s: the transition disagrees with lookup's next owners"; fi
done
expect_exit 0 "stats of a join" -- "$placer" stats "$dir/t2.snap"
expect_out ' next_target$' "stats has next_target in transition"
expect_out '^d .* joining .* 25\.0000%$' "the joining node's target share"
expect_exit 0 "stats --json of a join" -- "$placer" stats "$dir/t2.snap" --json
expect_out '"id":"d",[^}]*"state":"joining",[^}]*"next_target":0\.25' "the joining node's next_target in JSON"
expect_exit 0 "stats of no transition" -- "$placer" stats "$dir/t1.snap"
if grep -q next_target "$out"; then bad "next_target without a transition"; else ok; fi

# Balanced tokens: 12 nodes x 16; a 13th joins with --previous and takes
# about its share, everyone else keeping their tokens.
nodes=''
for i in $(seq 0 11); do nodes="$nodes{\"id\": \"b$i\", \"zone\": \"z$((i % 3))\"},"; done
printf '{"strategy": "ring", "tokens": "balanced", "vnodes": 16, "epoch": 1, "nodes": [%s]}\n' \
    "${nodes%,}" >"$dir/bal.json"
expect_exit 0 "build balanced" -- "$placer" build "$dir/bal.json" -o "$dir/bal.snap"
expect_out ': ring, key hash placer-v2, epoch 1, 12 nodes, 192 tokens' "balanced build summary"
printf '{"strategy": "ring", "tokens": "balanced", "vnodes": 16, "epoch": 2, "nodes": [%s, {"id": "b12", "zone": "z0"}]}\n' \
    "${nodes%,}" >"$dir/bal2.json"
expect_exit 0 "build balanced --previous" -- "$placer" build "$dir/bal2.json" -o "$dir/bal2.snap" --previous "$dir/bal.snap"
expect_exit 0 "diff balanced" -- "$placer" diff "$dir/bal.snap" "$dir/bal2.snap"
if awk '/^moved:/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+x$/) r = $i + 0; exit !(r > 0 && r <= 1.1) }' "$out"; then ok; else bad "a balanced join moves at most 1.1x the ideal"; cat "$out" >&2; fi
expect_out '^b12 +0\.0000% +[0-9.]+%$' "only the newcomer receives"
# --previous carries the seed as it carries the key hash: a membership
# without "seed" over a seed-99 previous keeps 99 (no key moves but the
# newcomer's); one that names another seed is refused with the reason
# (every key would move); the same seed is fine.
sed 's/"epoch": 1,/"epoch": 1, "seed": 99,/' "$dir/bal.json" >"$dir/bal99.json"
expect_exit 0 "build balanced, seed 99" -- "$placer" build "$dir/bal99.json" -o "$dir/bal99.snap"
expect_exit 0 "build without a seed over a seed-99 previous" -- "$placer" build "$dir/bal2.json" -o "$dir/bal99b.snap" --previous "$dir/bal99.snap"
expect_exit 0 "verify: the seed carried" -- "$placer" verify --json "$dir/bal99b.snap"
expect_out '"seed":99[,}]' "the rebuild keeps the previous seed"
expect_exit 0 "diff after a seedless rebuild" -- "$placer" diff "$dir/bal99.snap" "$dir/bal99b.snap"
expect_out '^b12 +0\.0000% +[0-9.]+%$' "only the newcomer receives (seed carried)"
sed 's/"epoch": 2,/"epoch": 2, "seed": 7,/' "$dir/bal2.json" >"$dir/bal2-seed7.json"
expect_exit 2 "another seed than --previous's" -- "$placer" build "$dir/bal2-seed7.json" -o "$dir/x.snap" --previous "$dir/bal99.snap"
expect_out 'seed 7 differs from --previous .*bal99\.snap.*seed 99.*every key would move' "the refusal says why"
[ ! -e "$dir/x.snap" ] && ok || bad "a refused build wrote its output"
sed 's/"epoch": 2,/"epoch": 2, "seed": 99,/' "$dir/bal2.json" >"$dir/bal2-seed99.json"
expect_exit 0 "the same seed as --previous's" -- "$placer" build "$dir/bal2-seed99.json" -o "$dir/bal99c.snap" --previous "$dir/bal99.snap"
cmp -s "$dir/bal99b.snap" "$dir/bal99c.snap" && ok || bad "seed left out and seed 99 give different snapshots"
expect_exit 0 "build --help names the seed rule" -- "$placer" build --help
expect_out 'seed' "build --help says what --previous does with the seed"
sed 's/"balanced"/"even"/' "$dir/bal.json" >"$dir/bad-tokens.json"
expect_exit 2 "unknown token allocation" -- "$placer" build "$dir/bad-tokens.json" -o "$dir/x.snap"
expect_out 'tokens' "the field is named"
sed 's/"ring"/"jump"/' "$dir/bal.json" >"$dir/bal-jump.json"
expect_exit 2 "balanced tokens need a ring" -- "$placer" build "$dir/bal-jump.json" -o "$dir/x.snap"
expect_out "does not apply to strategy \"jump\"" "balanced tokens: a ring field"

# Couchbase.
expect_exit 0 "import-couchbase" -- "$placer" import-couchbase "$couchbase" -o "$dir/cb.snap"
expect_out '^wrote .*: 1024 vBuckets over 3 servers, 2 copies each, epoch 1073$' "import summary"
expect_exit 0 "lookup hello" -- "$placer" lookup "$dir/cb.snap" hello foo
expect_out '^hello	172\.17\.0\.[234]:11210	.*	528	[^	]+$' "hello is in vBucket 528"
expect_out '^foo	.*	115	[^	]+$' "foo is in vBucket 115"
echo '{"vBucketServerMap": {"serverList": ["a"], "numReplicas": 0, "vBucketMap": [[3]]}}' >"$dir/badcb.json"
expect_exit 2 "import a bad map" -- "$placer" import-couchbase "$dir/badcb.json" -o "$dir/x.snap"
expect_out 'vBucketMap\[0\]\[0\]: expected -1 or a server index below 1' "the bad entry is named"

# Bad membership files: file, line, column and field.
printf '{"nodes": [\n  {"id": "a", "weight": -1}\n]}\n' >"$dir/w.json"
expect_exit 2 "negative weight" -- "$placer" build "$dir/w.json" -o "$dir/x.snap"
expect_out 'w\.json:2:25: nodes\[0\]\.weight: PLACER_EWEIGHT: weight must be from 2\^-32 to 2\^32' "weight error located"
printf '{"nodes": [{"id": "a"}, {"id": "a"}]}' >"$dir/d.json"
expect_exit 2 "duplicate id" -- "$placer" build "$dir/d.json" -o "$dir/x.snap"
expect_out 'd\.json:1:32: nodes\[1\]\.id: PLACER_EIDDUP' "duplicate located"
printf '{"nodes": [{"id": "a", "wieght": 2}]}' >"$dir/u.json"
expect_exit 2 "misspelt field" -- "$placer" build "$dir/u.json" -o "$dir/x.snap"
expect_out 'u\.json:1:.*nodes\[0\]\.wieght: unknown field' "unknown field named"
printf '{"nodes": [{"id": "a"}],\n "strategy": "ketama"}' >"$dir/s.json"
expect_exit 2 "unknown strategy" -- "$placer" build "$dir/s.json" -o "$dir/x.snap"
expect_out 's\.json:2:14: strategy: expected one of "ring"' "strategy error located"
# Numbers strict, fields that do not apply refused, build errors located.
printf '{"epoch": " -1",\n "nodes": [{"id": "a"}]}' >"$dir/n1.json"
expect_exit 2 "a spaced, signed epoch" -- "$placer" build "$dir/n1.json" -o "$dir/x.snap"
expect_out 'n1\.json:1:11: epoch: " -1": expected an unsigned integer: decimal digits' "epoch error located"
printf '{"seed": "0777", "nodes": [{"id": "a"}]}' >"$dir/n2.json"
expect_exit 2 "an octal-looking seed" -- "$placer" build "$dir/n2.json" -o "$dir/x.snap"
expect_out 'n2\.json:1:10: seed: "0777": a leading zero is not allowed' "seed error located"
printf '{"strategy": "ring", "partitions": 8, "nodes": [{"id": "a"}]}' >"$dir/n3.json"
expect_exit 2 "partitions on a ring" -- "$placer" build "$dir/n3.json" -o "$dir/x.snap"
expect_out 'n3\.json:1:36: partitions: does not apply to strategy "ring"' "partitions on a ring located"
printf '{"strategy": "maglev", "nodes": [{"id": "a", "tokens": [1]}]}' >"$dir/n4.json"
expect_exit 2 "tokens on a Maglev node" -- "$placer" build "$dir/n4.json" -o "$dir/x.snap"
expect_out 'n4\.json:1:56: nodes\[0\]\.tokens: does not apply to strategy "maglev"' "tokens on Maglev located"
printf '{"strategy": "partitions",\n "partitions": 65537, "nodes": [{"id": "a"}]}' >"$dir/n5.json"
expect_exit 2 "65,537 partitions" -- "$placer" build "$dir/n5.json" -o "$dir/x.snap"
expect_out 'n5\.json:2:16: partitions: expected an integer from 1 to 65536' "partitions located"
printf '{"strategy": "maglev", "partitions": 4, "nodes": [{"id": "a"}]}' >"$dir/n6.json"
expect_exit 2 "a Maglev table of 4" -- "$placer" build "$dir/n6.json" -o "$dir/x.snap"
expect_out 'n6\.json:1:38: partitions: a Maglev table size must be prime' "Maglev size located"
printf '{"nodes": [{"id": "a", "state": "draining"}, {"id": "b", "state": "draining"}]}' >"$dir/n7.json"
expect_exit 2 "every node draining" -- "$placer" build "$dir/n7.json" -o "$dir/x.snap"
expect_out 'n7\.json:1:11: nodes: every node is draining' "nobody left located"
printf '{"strategy": "jump", "nodes": [{"id": "a", "tokens": [0]}, {"id": "b", "tokens": [0]}]}' >"$dir/n8.json"
expect_exit 2 "two jump nodes on one bucket" -- "$placer" build "$dir/n8.json" -o "$dir/x.snap"
expect_out 'n8\.json:1:[0-9]+: nodes\[1\]\.tokens\[0\]: bucket 0 is already node 0' "bucket clash located"
printf '{"nodes": [{"id": "a"}' >"$dir/t.json"
expect_exit 2 "truncated JSON" -- "$placer" build "$dir/t.json" -o "$dir/x.snap"
expect_out 't\.json:1:[0-9]+: ' "JSON error located"
expect_exit 2 "missing file" -- "$placer" build "$dir/none.json" -o "$dir/x.snap"
expect_out 'none\.json: No such file' "missing file named"
printf '{"seed": "0xffffffffffffffff", "nodes": [{"id": "a", "tokens": ["18446744073709551615", 5]}]}' >"$dir/big.json"
expect_exit 0 "64-bit values as strings" -- "$placer" build "$dir/big.json" -o "$dir/big.snap"
expect_exit 0 "verify it" -- "$placer" verify "$dir/big.snap" --json
expect_out '"seed":"18446744073709551615"' "seed kept (past 2^53: a decimal string)"

# Damaged snapshots.
head -c 100 "$dir/m.snap" >"$dir/short.snap"
expect_exit 2 "truncated snapshot" -- "$placer" verify "$dir/short.snap"
expect_out 'PLACER_ETRUNC' "truncation named"
cp "$dir/m.snap" "$dir/flip.snap"
printf '\x55' | dd of="$dir/flip.snap" bs=1 seek=300 conv=notrunc 2>/dev/null
expect_exit 2 "flipped byte" -- "$placer" verify "$dir/flip.snap"
expect_out 'PLACER_ECHECKSUM' "checksum named"
expect_exit 2 "lookup in a damaged snapshot" -- "$placer" lookup "$dir/flip.snap" k
expect_exit 2 "not a snapshot" -- "$placer" verify "$dir/m.json"
expect_out 'PLACER_EFORMAT' "format named"
expect_exit 0 "verify --json of a bad file still prints JSON" -- sh -c "\"$placer\" verify \"$dir/flip.snap\" --json || true"
expect_out '^\{"format":1,"valid":false,"error":"PLACER_ECHECKSUM' "verify JSON error"

# Simulate: the same numbers twice, tables, CSV, JSON, plot.
sim=("$placer" simulate --nodes 12 --zones 3 --weights 1,2 --keys 20000 --vnodes 1,16,256 --no-timing)
expect_exit 0 "simulate" -- "${sim[@]}" --plot "$dir/plot.svg"
expect_out '^modulo baseline \(hash mod N\): a join moves 9[0-9.]+% of keys' "modulo baseline"
expect_out '^ring +256 ' "ring rows"
expect_out '^maglev +16 ' "maglev rows"
cp "$out" "$dir/sim1"
"${sim[@]}" >"$dir/sim2" 2>&1
if diff <(grep -v ' s$' "$dir/sim1") <(grep -v ' s$' "$dir/sim2") >/dev/null; then ok; else bad "simulate twice: different numbers"; fi
if grep -q '<svg' "$dir/plot.svg" && grep -q 'polyline' "$dir/plot.svg"; then ok; else bad "plot written"; fi
expect_exit 0 "simulate --csv" -- "${sim[@]}" --csv --strategies ring,jump
expect_out '^strategy,vnodes,units,keys_max_mean' "CSV header"
expect_out '^jump,0,' "CSV jump row"
expect_exit 0 "simulate --json" -- "${sim[@]}" --json --strategies rendezvous
expect_out '^\{"format":1,"keys":20000,"nodes":12,"zones":3,' "JSON"
expect_out '"replica_violations":0,' "no replica violations"
# the recommendation from the seeds: text, JSON, and the plot's small multiples
expect_exit 0 "simulate --seeds 3" -- "${sim[@]}" --seeds 3 --strategies ring,jump --plot "$dir/plot3.svg"
expect_out '^recommended tokens per node: the smallest whose mean max/mean over 3 seeds is within 0\.02 of the best$' "recommendation heading"
expect_out '^  ring +(1|16|256) +max/mean [0-9.]+ \(seeds [0-9.]+\.\.[0-9.]+, spread [0-9.]+\); best [0-9.]+ at (1|16|256)$' "ring recommendation"
expect_out '^  jump +- +max/mean [0-9.]+ .*no tokens-per-node knob$' "jump has no knob"
expect_out '<- recommended$' "the recommended row marked"
expect_exit 0 "simulate --seeds 3 --json" -- "${sim[@]}" --seeds 3 --strategies ring,jump --json
if python3 - "$out" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read())
assert d["seeds"] == 3
ring = [r for r in d["rows"] if r["strategy"] == "ring"]
best = min(r["seeds"]["max_mean"] for r in ring)
want = min(r["vnodes"] for r in ring if r["seeds"]["max_mean"] <= best + 0.02)
rec = {s["strategy"]: s for s in d["strategies"]}
assert rec["ring"]["recommended"]["vnodes"] == want, (rec, want)
row = [r for r in ring if r["vnodes"] == want][0]
assert abs(rec["ring"]["recommended"]["spread"] - (row["seeds"]["max"] - row["seeds"]["min"])) < 1e-12
assert rec["ring"]["recommended"]["max_mean"] == row["seeds"]["max_mean"]
assert rec["jump"]["recommended"]["vnodes"] is None
for r in d["rows"]:
    s = r["seeds"]
    assert s["min"] <= r["keys"]["max_mean"] <= s["max"] and s["min"] <= s["max_mean"] <= s["max"]
PY
then ok; else bad "simulate JSON recommendation"; fi
# small multiples: a row per strategy (its label), a column per measure
if python3 - "$dir/plot3.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
for label in ("ring", "jump", "max/mean load by keys", "keys moved (black: the ideal)", "snapshot bytes (log scale)"):
    assert label in texts, label
assert "batched lookup ns a key" not in texts  # --no-timing
lines = [l for l in root.iter("{http://www.w3.org/2000/svg}line") if l.get("stroke") == "black"]
assert len(lines) == 4, len(lines)  # the ideals of join and drain, in both rows
PY
then ok; else bad "plot: small multiples with the ideals"; fi
expect_exit 1 "simulate --seeds 0" -- "${sim[@]}" --seeds 0
expect_exit 0 "simulate a membership file" -- "$placer" simulate "$dir/m.json" --keys 5000 --vnodes 4 --no-timing
printf 'alpha\nbeta\ngamma\n' >"$dir/keys.txt"
expect_exit 0 "simulate keys from a file" -- "$placer" simulate --key-file "$dir/keys.txt" --nodes 3 --vnodes 4 --no-timing --json
expect_out '^\{"format":1,"keys":3,' "three keys from the file"
expect_exit 1 "simulate --qps zipf:x" -- "$placer" simulate --qps zipf:x
expect_exit 1 "simulate --vnodes 0" -- "$placer" simulate --vnodes 0
expect_exit 1 "simulate --strategies ketama" -- "$placer" simulate --strategies ketama
expect_exit 1 "simulate --value-size" -- "$placer" simulate --value-size lognormal:1
expect_exit 2 "simulate a bad membership" -- "$placer" simulate "$dir/w.json"

finish test_cli_files
