#!/usr/bin/env bash
# test_cli_compat.sh PLACER NUTCRACKER_YML CLUSTER_NODES -- compatibility modes
# as a user meets them: membership files with "compat" and each of its
# fields through build, lookup, stats and verify; every bad value refused
# with file:line:column and the field; import-twemproxy of a real
# nutcracker.yml and import-redis of a real CLUSTER NODES, their
# --membership-out documents building the very same snapshots.
set -u
placer=$1 nutcracker=$2 nodes=$3
. "$(dirname "$0")/cli_expect.sh"
# refused FILE_CONTENT PATTERN DESCRIPTION: build exits 2 and says PATTERN
refused() {
    printf '%s' "$1" >"$dir/bad.json"
    expect_exit 2 "$3" -- "$placer" build "$dir/bad.json" -o "$dir/bad.snap"
    expect_out "^placer build: .*bad\.json:$2" "$3"
}

for cmd in import-twemproxy import-redis; do
    expect_exit 0 "$cmd --help" -- "$placer" "$cmd" --help
    expect_out "^usage: placer $cmd" "$cmd --help shows its usage"
    expect_exit 1 "$cmd with a bad option" -- "$placer" "$cmd" --no-such-option
    expect_exit 1 "$cmd without arguments" -- "$placer" "$cmd"
    expect_exit 1 "$cmd without -o" -- "$placer" "$cmd" "$nodes"
    expect_exit 1 "$cmd --epoch -1" -- "$placer" "$cmd" "$nodes" -o "$dir/x.snap" --epoch -1
done
"$placer" --help >"$out"
expect_out '^  import-twemproxy ' "placer --help lists import-twemproxy"
expect_out '^  import-redis ' "placer --help lists import-redis"

# ---- membership files in each mode ----
cat >"$dir/lm.json" <<'JSON'
{"compat": "libmemcached", "epoch": 4,
 "nodes": [{"id": "a", "address": "10.0.0.1:11211"}, {"id": "b", "address": "10.0.0.2:11211", "weight": 2},
           {"id": "c", "address": "10.0.0.3:11212"}]}
JSON
expect_exit 0 "build libmemcached" -- "$placer" build "$dir/lm.json" -o "$dir/lm.snap"
expect_out '^wrote .*lm\.snap: libmemcached ketama_weighted, key hash md5, epoch 4, 3 nodes' "libmemcached summary"
expect_exit 0 "lookup libmemcached --json" -- "$placer" lookup "$dir/lm.snap" --json user:1
expect_out '^\{"format":1,"key":"user:1","owner":"[abc]","zone":"","address":"10\.0\.0\.[123]:1121[12]",.*"epoch":4,"compat":"libmemcached","hash":[0-9]+\}$' "libmemcached lookup JSON"
expect_exit 0 "verify libmemcached" -- "$placer" verify "$dir/lm.snap" --json
expect_out '"strategy":"[a-z]+","compat":"libmemcached","distribution":"ketama_weighted","key_hash":"md5"' "verify names the mode"
expect_exit 0 "stats libmemcached" -- "$placer" stats "$dir/lm.snap"
expect_out 'lm\.snap: libmemcached ketama_weighted, key hash md5, epoch 4, 3 nodes' "stats names the mode"
expect_exit 0 "stats libmemcached --json" -- "$placer" stats "$dir/lm.snap" --json
expect_out '"compat":"libmemcached","distribution":"ketama_weighted","key_hash":"md5"' "stats JSON names the mode"
# shares over the program's 32-bit ring: the weight-2 node near half, all summing to 1
python3 - "$out" <<'PY' && ok || bad "stats shares of a compat ring"
import json, sys
d = json.load(open(sys.argv[1]))
sh = {n["id"]: n["share"] for n in d["nodes"]}
assert abs(sum(sh.values()) - 1) < 1e-9, sh
assert 0.4 < sh["b"] < 0.6 and 0.15 < sh["a"] < 0.35, sh
PY

cat >"$dir/tw.json" <<'JSON'
{"compat": "twemproxy", "distribution": "modula", "key_hash": "crc32a", "hash_tag": "{}",
 "nodes": [{"id": "alpha", "weight": 1}, {"id": "beta", "weight": 2}, {"id": "gamma"}]}
JSON
expect_exit 0 "build twemproxy" -- "$placer" build "$dir/tw.json" -o "$dir/tw.snap" --json
expect_out '"compat":"twemproxy","distribution":"modula","key_hash":"crc32a","epoch":0,"nodes":3' "twemproxy build JSON"
# hash tags: only the part between { and } is hashed
"$placer" lookup "$dir/tw.snap" --json 'a{user7}b' 'zz{user7}' >"$out"
if [ "$(grep -oE '"owner":"[a-z]+"' "$out" | sort -u | wc -l)" -eq 1 ] &&
   [ "$(grep -oE '"hash":[0-9]+' "$out" | sort -u | wc -l)" -eq 1 ]; then ok; else bad "one tag, one hash"; cat "$out" >&2; fi

cat >"$dir/ng.json" <<'JSON'
{"compat": "nginx", "distribution": "hash",
 "nodes": [{"id": "n0", "address": "127.0.0.1:8080", "weight": 1}, {"id": "n1", "address": "unix:/run/app.sock"}]}
JSON
expect_exit 0 "build nginx" -- "$placer" build "$dir/ng.json" -o "$dir/ng.snap"
expect_out ': nginx hash, key hash crc32, epoch 0, 2 nodes' "nginx summary"

cat >"$dir/hp.json" <<'JSON'
{"compat": "haproxy", "key_hash": "djb2", "avalanche": true,
 "nodes": [{"id": "s0", "hash_id": 3}, {"id": "s1", "weight": 256}, {"id": "s2", "hash_id": 7}]}
JSON
expect_exit 0 "build haproxy" -- "$placer" build "$dir/hp.json" -o "$dir/hp.snap"
expect_out ': haproxy consistent, key hash djb2, epoch 0, 3 nodes' "haproxy summary"
expect_exit 0 "lookup haproxy" -- "$placer" lookup "$dir/hp.snap" k1 k2 --replicas 2
expect_out '^k1	s[012]	' "haproxy lookup"

# Redis: slots with a replica each; the default even split without them
cat >"$dir/rd.json" <<'JSON'
{"compat": "redis", "epoch": 3,
 "nodes": [{"id": "m0", "address": "127.0.0.1:7000"}, {"id": "m1", "address": "127.0.0.1:7001"},
           {"id": "r0"}, {"id": "r1"}],
 "slots": [[0, 8191, "m0", "r0"], [8192, 16383, "m1", "r1"]]}
JSON
expect_exit 0 "build redis" -- "$placer" build "$dir/rd.json" -o "$dir/rd.snap"
expect_out ': redis, key hash crc16, epoch 3, 4 nodes' "redis summary"
expect_exit 0 "lookup redis --json" -- "$placer" lookup "$dir/rd.snap" --json foo hello --replicas 2
expect_out '^\{"format":1,"key":"foo","owner":"m1","zone":"","address":"127\.0\.0\.1:7001","replicas":\[\{"id":"m1","zone":"","address":"127\.0\.0\.1:7001"\},\{"id":"r1","zone":"","address":""\}\],.*"partition":12182,"compat":"redis"' "foo in slot 12182, on m1 then r1"
expect_out '"key":"hello","owner":"m0",.*"partition":866,' "hello in slot 866, on m0"
expect_exit 0 "lookup redis text" -- "$placer" lookup "$dir/rd.snap" '{user1000}.following'
expect_out '^\{user1000\}\.following	m0	.*	3443	[^	]+$' "hash tag slot in the text's partition column"
printf '{"compat": "redis", "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}' >"$dir/rd3.json"
expect_exit 0 "build redis, even split" -- "$placer" build "$dir/rd3.json" -o "$dir/rd3.snap"
expect_exit 0 "lookup redis, even split" -- "$placer" lookup "$dir/rd3.snap" hello foo bar
# redis-cli --cluster create with 3 masters: 0-5460, 5461-10922, 10923-16383
expect_out '^hello	a	.*	866	[^	]+$' "slot 866 on the first master"
expect_out '^bar	a	.*	5061	[^	]+$' "slot 5061 on the first master"
expect_out '^foo	c	.*	12182	[^	]+$' "slot 12182 on the third master"

# ---- every bad value: file:line:column: field: why ----
refused '{"compat": "memcached", "nodes": [{"id": "a"}]}' '1:12: compat: expected one of "libmemcached"' "unknown program"
refused '{"compat": "libmemcached",
 "distribution": "modula", "nodes": [{"id": "a", "address": "h:1"}]}' '2:18: distribution: "modula" is not a distribution of libmemcached \(its own: "ketama_weighted", "ketama"\)' "a distribution libmemcached does not have"
refused '{"compat": "twemproxy", "key_hash": "murmur3", "nodes": [{"id": "a"}]}' '1:37: key_hash: "murmur3" is not a key hash of twemproxy \(its own: "one_at_a_time", "md5"' "a key hash twemproxy does not have"
refused '{"compat": "haproxy", "key_hash": "placer", "nodes": [{"id": "a"}]}' '1:35: key_hash: "placer" is not a key hash of haproxy \(its own: "sdbm", "djb2", "wt6", "crc32", "source"\)' "placer's own hash in a mode"
refused '{"compat": "redis", "distribution": "ketama", "nodes": [{"id": "a"}]}' '1:37: distribution: redis has no distribution to choose' "a distribution for Redis"
refused '{"compat": "nginx", "nodes": [{"id": "a", "address": "h:1", "weight": 1.5}]}' '1:71: nodes\[0\]\.weight: expected an integer from 1 to 4294967295 \(nginx.s weights are integers\)' "a non-integer weight"
refused '{"compat": "redis", "nodes": [{"id": "a", "weight": 1}]}' '1:53: nodes\[0\]\.weight: Redis Cluster has no weights' "a weight for Redis"
refused '{"compat": "haproxy", "nodes": [{"id": "a", "weight": 257}]}' '1:55: nodes\[0\]\.weight: expected an integer from 1 to 256' "haproxy's weight range"
refused '{"compat": "twemproxy", "nodes": [{"id": "a", "tokens": [1]}]}' '1:[0-9]+: nodes\[0\]\.tokens: does not apply with "compat"' "tokens in a mode"
refused '{"compat": "nginx", "nodes": [{"id": "a", "address": "h:1", "state": "joining"}]}' '1:[0-9]+: nodes\[0\]\.state: "joining" does not apply with "compat": nginx has no such state' "a joining node in a mode"
refused '{"compat": "twemproxy", "vnodes": 100, "nodes": [{"id": "a"}]}' '1:35: vnodes: does not apply with "compat"' "vnodes in a mode"
refused '{"compat": "haproxy", "tokens": "balanced", "nodes": [{"id": "a"}]}' '1:33: tokens: does not apply with "compat"' "token allocation in a mode"
refused '{"compat": "twemproxy", "seed": 1, "nodes": [{"id": "a"}]}' '1:33: seed: does not apply with "compat"' "seed in a mode"
refused '{"compat": "redis", "replicas": 2, "nodes": [{"id": "a"}]}' '1:33: replicas: does not apply with "compat" \(redis builds its own slot map\)' "replicas in Redis"
refused '{"compat": "twemproxy", "strategy": "ring", "nodes": [{"id": "a"}]}' '1:37: strategy: does not apply with "compat": twemproxy.s own ring or table places the keys \(omit it\)' "a strategy in a mode"
refused '{"compat": "twemproxy", "colour": 1, "nodes": [{"id": "a"}]}' '1:35: colour: unknown field \(known with "compat"' "an unknown field in a mode"
refused '{"compat": "nginx", "avalanche": true, "nodes": [{"id": "a", "address": "h:1"}]}' '1:34: avalanche: does not apply to "nginx" \(only to "haproxy"' "avalanche off haproxy"
refused '{"compat": "haproxy", "avalanche": "yes", "nodes": [{"id": "a"}]}' '1:36: avalanche: expected true or false' "avalanche not a boolean"
refused '{"compat": "twemproxy", "hash_tag": "{", "nodes": [{"id": "a"}]}' '1:37: hash_tag: expected two characters' "a one-character hash_tag"
refused '{"compat": "redis", "hash_tag": "{}", "nodes": [{"id": "a"}]}' '1:33: hash_tag: does not apply to "redis" \(only to "twemproxy"; Redis Cluster always hashes the \{tag\}\)' "hash_tag for Redis"
refused '{"distribution": "ketama", "nodes": [{"id": "a"}]}' '1:18: distribution: applies only with "compat"' "distribution without compat"
refused '{"slots": [], "nodes": [{"id": "a"}]}' '1:11: slots: applies only with "compat"' "slots without compat"
refused '{"nodes": [{"id": "a", "hash_id": 3}]}' '1:35: nodes\[0\]\.hash_id: applies only with "compat": "haproxy"' "hash_id without compat"
refused '{"compat": "nginx", "nodes": [{"id": "a", "hash_id": 3}]}' '1:[0-9]+: nodes\[0\]\.hash_id: does not apply to "nginx" \(only to "haproxy"' "hash_id off haproxy"
refused '{"compat": "haproxy", "nodes": [{"id": "a", "hash_id": 0}]}' '1:56: nodes\[0\]\.hash_id: expected an integer from 1 to 1048575' "hash_id 0"
refused '{"compat": "haproxy", "nodes": [{"id": "a", "hash_id": 5},
  {"id": "b", "hash_id": 5}]}' '2:26: nodes\[1\]\.hash_id: id 5 is another server.s' "two servers of one id"
refused '{"compat": "libmemcached", "nodes": [{"id": "a", "address": "h:1"}, {"id": "b"}]}' '1:[0-9]+: nodes\[1\]\.address: missing: libmemcached hashes the server.s address' "libmemcached without an address"
refused '{"compat": "libmemcached", "nodes": [{"id": "a", "address": "host"}]}' '1:[0-9]+: nodes\[0\]\.address: expected "host:port"' "libmemcached address without a port"
refused '{"compat": "nginx", "nodes": [{"id": "a"}]}' '1:[0-9]+: nodes\[0\]\.address: missing: nginx hashes' "nginx without an address"
long=$(printf 'x%.0s' $(seq 1 84))
refused "{\"compat\": \"twemproxy\", \"nodes\": [{\"id\": \"$long\"}, {\"id\": \"b\"}]}" "1:[0-9]+: nodes\[0\]\.id: too long for twemproxy.s ketama: its point names \(\"ID-39\", 87 bytes\)" "a twemproxy name past 86 bytes"
refused '{"compat": "redis", "nodes": [{"id": "a"}, {"id": "b"}],
 "slots": [[0, 9000, "a"], [9000, 16383, "b"]]}' '2:28: slots\[1\]: slot 9000 is already in range 0 \(\[0, 9000, ...\]\)' "overlapping slots"
refused '{"compat": "redis", "nodes": [{"id": "a"}],
 "slots": [[0, 100, "a"], [200, 16383, "a"]]}' '2:11: slots: slots 101 to 199 have no master' "uncovered slots"
refused '{"compat": "redis", "nodes": [{"id": "a"}], "slots": [[0, 16383, "z"]]}' '1:[0-9]+: slots\[0\]\[2\]: no node has the id "z"' "a slot range of an unknown node"
refused '{"compat": "redis", "nodes": [{"id": "a"}], "slots": [[10, 9, "a"]]}' '1:[0-9]+: slots\[0\]\[1\]: expected a slot from 10 \(the first\) to 16383' "last before first"
refused '{"compat": "redis", "nodes": [{"id": "a"}], "slots": [[0, 16384, "a"]]}' '1:[0-9]+: slots\[0\]\[1\]: expected a slot from 0' "slot 16384"
refused '{"compat": "redis", "nodes": [{"id": "a"}], "slots": [[0, 16383]]}' '1:[0-9]+: slots\[0\]: expected \[first, last, "master id"\]' "a range without its master"
refused '{"compat": "redis", "nodes": [{"id": "a"}], "slots": [[0, 16383, "a", "a"]]}' '1:[0-9]+: slots\[0\]\[3\]: "a" is already in this range' "a master its own replica"

# ---- import-twemproxy: the nutcracker.yml nutcracker runs ----
expect_exit 2 "import-twemproxy of several pools without --pool" -- "$placer" import-twemproxy "$nutcracker" -o "$dir/t.snap"
expect_out 'several pools: say which \("alpha", "beta", "gamma", "omega"\)' "the pools are listed"
expect_exit 2 "import-twemproxy of a pool not there" -- "$placer" import-twemproxy "$nutcracker" --pool delta -o "$dir/t.snap"
expect_out 'no pool "delta"' "the missing pool named"
expect_exit 0 "import-twemproxy gamma" -- "$placer" import-twemproxy "$nutcracker" --pool gamma -o "$dir/gamma.snap" --membership-out "$dir/gamma.json"
expect_out '^wrote .*gamma\.snap: twemproxy ketama, key hash md5, 4 nodes, epoch 0$' "import-twemproxy summary"
expect_exit 0 "build the pool's membership" -- "$placer" build "$dir/gamma.json" -o "$dir/gamma2.snap"
if cmp -s "$dir/gamma.snap" "$dir/gamma2.snap"; then ok; else bad "import and build of its membership differ"; fi
grep -q '"id": "10.0.0.3:11212"' "$dir/gamma.json" && grep -q '"id": "10.0.0.1"' "$dir/gamma.json" && ok ||
    bad "unnamed servers hashed as host (11211) and host:port"
expect_exit 0 "import-twemproxy --json --epoch" -- "$placer" import-twemproxy "$nutcracker" --pool beta -o "$dir/beta.snap" --epoch 12 --json
expect_out '^\{"format":1,"output":".*beta\.snap","membership":null,"compat":"twemproxy","distribution":"ketama","key_hash":"fnv1a_64","epoch":12,"nodes":4\}$' "import-twemproxy JSON"
expect_exit 0 "import-twemproxy --membership-out alone" -- "$placer" import-twemproxy "$nutcracker" --pool omega --membership-out "$dir/omega.json"
[ ! -s "$out" ] && ok || bad "nothing printed without -o"
grep -q '"distribution": "modula"' "$dir/omega.json" && ok || bad "omega's membership"
printf 'p:\n  servers:\n   - 10.0.0.1:11211:0\n' >"$dir/zero.yml"
expect_exit 2 "a zero weight" -- "$placer" import-twemproxy "$dir/zero.yml" -o "$dir/t.snap"
expect_out 'zero\.yml: line 3, column 6: pool "p": servers\[0\]: the weight must be an integer' "zero weight located"
printf 'p:\n  listen: 127.0.0.1:1\n  servers:\n   - 10.0.0.1:1:1\n  distribution: random\n' | "$placer" import-twemproxy - -o "$dir/t.snap" >"$out" 2>&1
[ $? -eq 2 ] && ok || bad "random distribution from stdin: exit 2"
expect_out '^placer import-twemproxy: -: line 5, column 17: pool "p": distribution: random' "random refused"

# ---- import-redis: CLUSTER NODES of a real cluster ----
expect_exit 0 "import-redis" -- "$placer" import-redis "$nodes" -o "$dir/redis.snap" --membership-out "$dir/redis.json"
expect_out '^wrote .*redis\.snap: redis, key hash crc16, 6 nodes, 16384 slots, 2 copies each, epoch 3$' "import-redis summary"
expect_exit 0 "build the cluster's membership" -- "$placer" build "$dir/redis.json" -o "$dir/redis2.snap"
if cmp -s "$dir/redis.snap" "$dir/redis2.snap"; then ok; else bad "import-redis and build of its membership differ"; fi
expect_exit 0 "lookup in the imported cluster" -- "$placer" lookup "$dir/redis.snap" --json foo hello --replicas 2
expect_out '"key":"foo","owner":"0fd9ed842502046983d2cbbea23541f4446654cd","zone":"","address":"127\.0\.0\.1:31003","replicas":\[\{"id":"0fd9ed842502046983d2cbbea23541f4446654cd","zone":"","address":"127\.0\.0\.1:31003"\},\{"id":"6d05cb00c74c247246e6e7ee5dea0d69f2e5f75d","zone":"","address":"127\.0\.0\.1:31006"\}\].*"partition":12182' "foo: slot 12182, the third master and its replica"
expect_out '"key":"hello","owner":"a1ea75d53788398f5bab311ecb932f88df9302cf",.*"partition":866' "hello: slot 866, the first master"
expect_exit 0 "import-redis --json --epoch" -- "$placer" import-redis "$nodes" -o "$dir/r9.snap" --epoch 9 --json
expect_out '"compat":"redis","distribution":null,"key_hash":"crc16","epoch":9,"nodes":6,"slots":16384,"copies":2\}$' "import-redis JSON"
head -3 "$nodes" >"$dir/part.txt"
expect_exit 2 "a cluster text cut short" -- "$placer" import-redis "$dir/part.txt" -o "$dir/x.snap"
expect_out 'part\.txt: line 1: replica of 3fa5bbc25515466ecca3aef8cfc3f1109c9f115f, a node not in the text' "the line is named"
expect_exit 2 "not CLUSTER NODES" -- "$placer" import-redis "$nutcracker" -o "$dir/x.snap"
expect_out 'nutcracker\.yml: line 1: ' "the first line refused"

# haproxy's key rule: typed requests become haproxy's key; --raw hashes them
# as given; a request without a key is refused; the rule in JSON; a rule
# outside haproxy or against the key hash refused with its field.
printf '%s' '{"compat": "haproxy", "key_rule": "uri depth 2", "nodes": [{"id": "w1"}, {"id": "w2"}, {"id": "w3"}, {"id": "w4"}, {"id": "w5"}]}' >"$dir/uri.json"
expect_exit 0 "build a key_rule membership" -- "$placer" build "$dir/uri.json" -o "$dir/uri.snap"
expect_exit 0 "verify --json names the rule" -- "$placer" verify --json "$dir/uri.snap"
expect_out '"key_rule":"uri depth 2"' "verify --json key_rule"
"$placer" lookup "$dir/uri.snap" --raw /a/b >"$dir/want" 2>&1
"$placer" lookup "$dir/uri.snap" '/a/b/c?x=1' '/a/b?y=2' /a/b >"$out" 2>&1
if [ "$(cut -f2 "$out" | sort -u)" = "$(cut -f2 "$dir/want")" ] && [ "$(cut -f1 "$out" | head -1)" = '/a/b/c?x=1' ]; then ok; else bad "uri depth 2: three requests of key /a/b, one owner"; cat "$out" "$dir/want" >&2; fi
owners=$(for i in $(seq 1 40); do "$placer" lookup "$dir/uri.snap" --raw "/a/b/c?x=$i"; done | cut -f2 | sort -u | wc -l)
if [ "$owners" -gt 1 ]; then ok; else bad "--raw: 40 raw requests went to one owner ($owners)"; fi
printf '%s' '{"compat": "haproxy", "key_hash": "source", "avalanche": false, "key_rule": "source", "nodes": [{"id": "w1"}, {"id": "w2"}, {"id": "w3"}]}' >"$dir/src.json"
expect_exit 0 "build a source membership" -- "$placer" build "$dir/src.json" -o "$dir/src.snap"
"$placer" lookup "$dir/src.snap" --hex 0a010203 | cut -f2 >"$dir/want"
"$placer" lookup "$dir/src.snap" 10.1.2.3 | cut -f2 >"$dir/got"
if cmp -s "$dir/want" "$dir/got"; then ok; else bad "source: 10.1.2.3 is not --hex 0a010203"; fi
expect_exit 2 "a request that is no address" -- "$placer" lookup "$dir/src.snap" 10.1.2.3 not-an-address
expect_out "key argument 2: no key under the snapshot's key rule \"source\": not a dotted IPv4 or an IPv6 address" "the refusal says why"
expect_out '^10\.1\.2\.3	w' "the other key is answered"
refused '{"compat": "nginx", "key_rule": "uri", "nodes": [{"id": "a", "address": "10.0.0.1:80"}]}' '1:[0-9]+: key_rule: does not apply to "nginx"' "key_rule outside haproxy"
refused '{"compat": "haproxy", "key_rule": "uri depth 0", "nodes": [{"id": "a"}]}' '1:[0-9]+: key_rule: .*uri depth: expected a positive integer' "a bad uri depth"
printf '%s' '{"compat": "haproxy", "key_rule": "source", "nodes": [{"id": "a"}]}' >"$dir/bad.json"
expect_exit 2 "source without key hash source" -- "$placer" build "$dir/bad.json" -o "$dir/bad.snap"
expect_out 'key rule "source" with key hash sdbm' "the build names the key hash"

finish test_cli_compat
