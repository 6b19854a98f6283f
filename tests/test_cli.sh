#!/usr/bin/env bash
# test_cli.sh PLACER -- the command as a user meets it: help everywhere,
# exit codes (0 ok, 1 usage), version output, and a short demo run.
set -u
placer=$1
. "$(dirname "$0")/cli_expect.sh"

expect_exit 0 "placer --help" -- "$placer" --help
expect_out '^usage: placer COMMAND' "top-level help"
expect_out 'demo' "help lists demo"
expect_exit 1 "no command" -- "$placer"
expect_exit 1 "unknown command" -- "$placer" frobnicate
expect_out "unknown command 'frobnicate'" "unknown command is named"
for cmd in demo version; do
    expect_exit 0 "$cmd --help" -- "$placer" "$cmd" --help
    expect_out "^usage: placer $cmd" "$cmd --help shows its usage"
    expect_exit 0 "help $cmd" -- "$placer" help "$cmd"
    expect_exit 1 "$cmd with a bad option" -- "$placer" "$cmd" --no-such-option
done
expect_exit 0 "placer version" -- "$placer" version
expect_out '^placer [0-9]+\.[0-9]+\.[0-9]+$' "version line"
expect_out '^kernels: crc32c=[a-z0-9.+-]+ hash64=[a-z0-9.+-]+ search=[a-z0-9.+-]+ crc32=[a-z0-9.+-]+ rendezvous=[a-z0-9.+-]+ siphash13=[a-z0-9.+-]+ md5=[a-z0-9.+-]+ bytehash=[a-z0-9.+-]+ crc_batch=[a-z0-9._+-]+$' "kernels line"
expect_exit 0 "placer version --json" -- "$placer" version --json
expect_out '^\{"format":1,"version":"[0-9.]+","cpu_features":\[.*\],"kernels":\{"crc32c":"[^"]+","hash64":"[^"]+","search":"[^"]+","crc32":"[^"]+","rendezvous":"[^"]+","siphash13":"[^"]+","md5":"[^"]+","bytehash":"[^"]+","crc_batch":"[^"]+"\}\}$' "version json"
expect_exit 0 "placer --version" -- "$placer" --version
expect_exit 0 "short demo" -- "$placer" demo --keys 200000 --router-ms 200
expect_out '^[0-9]+ lookups/s \(target 2000000 lookups/s' "demo prints the rate"
expect_out 'keys per node: min [0-9]+, mean 1667, max [0-9]+, max/mean [0-9.]+, coefficient of variation' "demo prints balance"
expect_out '^ring: 120 nodes in 3 zones, 256 tokens per node, 30720 tokens' "demo ring shape"
expect_out '^search layout: buckets, [0-9]+ bytes, 1\.[0-9][0-9]x plain sorted tokens \+ owners$' "demo layout memory"
expect_out '^batched: [0-9]+ lookups/s with placer_lookup_batch .*, same owners as single lookups$' "demo batch agrees"
expect_out '^join of node-120: [0-9]+ ranges, 0\.00[0-9]+ of the hash space moves \(1/121 = 0\.0083\), all to it$' "demo join"
expect_out '^during the handoff, key user:[0-9]+ is read from node-[0-9]+ \(owner\) and moves to node-120 \(next owner\)$' "demo handoff key"
expect_out '^router: 2 reader threads, [0-9]+ lookups/s together, [1-9][0-9]* epochs published \(0 stale\), epochs seen by readers: [1-9][0-9]* and [1-9][0-9]*, last epoch [0-9]+$' "demo router"
# behind its target (a short run on a shared machine usually is), it says so with the count
if grep -q '^router: behind' "$out"; then expect_out '^router: behind the target of an epoch every millisecond: [1-9][0-9]* epochs published in [0-9]+ ms \([0-9]+% of [0-9]+;' "demo says how far behind"; fi
expect_exit 0 "demo without the router" -- "$placer" demo --keys 1000 --router-ms 0
if grep -q '^router:' "$out"; then bad "--router-ms 0 still ran the router"; else ok; fi
expect_exit 1 "demo --router-ms too large" -- "$placer" demo --router-ms 99999999
expect_exit 1 "demo --keys 0" -- "$placer" demo --keys 0
expect_out 'outside 1\.\.' "range error is explained"
expect_exit 1 "demo --keys abc" -- "$placer" demo --keys abc
expect_exit 1 "demo --keys -5" -- "$placer" demo --keys -5
expect_exit 1 "demo --keys without value" -- "$placer" demo --keys
finish test_cli
