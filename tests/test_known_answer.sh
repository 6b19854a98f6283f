#!/usr/bin/env bash
# tests/test_known_answer.sh PLACER SOURCE_ROOT [--record]
# The known-answer files (tests/known-answer/): every strategy, compat mode
# and importer, as bytes and as owners. Each membership is rebuilt and must
# give the committed snapshot byte for byte; the committed snapshot is
# decoded and must place every key of keys.txt (owner, replicas, zones,
# epoch, next owner, partition, addresses) as recorded in its .owners file. A change of
# format, byte order, hash or placement fails here loudly.
# --record rewrites the files from this build (only when a change of the
# answers is intended: say why in the commit).
set -uo pipefail
placer=$1 root=$2 record=${3:-}
dir=$root/tests/known-answer
run() { "$placer" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
# The keyed entry's secret: git does not keep mode 0600, build refuses less.
install -m 0600 "$dir/secret.hex" "$tmp/secret.hex"

# make NAME: build NAME.snap into $tmp from its source (membership or import).
make_snap() {
    local name=$1 out=$tmp/$1.snap
    case $name in
    import-twemproxy) run import-twemproxy "$root/tests/data/nutcracker.yml" --pool beta --epoch 21 -o "$out" ;;
    import-redis) run import-redis "$root/tests/data/redis-cluster-nodes.txt" -o "$out" ;;
    import-couchbase) run import-couchbase "$root/tests/data/couchbase-bucket-config-3nodes.json" -o "$out" ;;
    ring-keyed) run build "$dir/$name.json" --secret-file "$tmp/secret.hex" -o "$out" ;;
    *) run build "$dir/$name.json" -o "$out" ;;
    esac
}

names=$(cd "$dir" && ls *.json | sed 's/\.json$//'; echo import-twemproxy import-redis import-couchbase)
for name in $names; do
    n=$((n + 1))
    if ! make_snap "$name" >"$tmp/$name.build" 2>&1; then
        echo "FAIL: $name: build failed: $(cat "$tmp/$name.build")"
        fail=1
        continue
    fi
    if [ "$record" = --record ]; then
        cp "$tmp/$name.snap" "$dir/$name.snap"
        run lookup "$dir/$name.snap" --replicas 3 -q <"$dir/keys.txt" >"$dir/$name.owners" 2>/dev/null
        continue
    fi
    if ! cmp -s "$tmp/$name.snap" "$dir/$name.snap"; then
        echo "FAIL: $name: rebuilt snapshot differs from tests/known-answer/$name.snap ($(cmp "$tmp/$name.snap" "$dir/$name.snap" 2>&1 | head -1))"
        fail=1
    fi
    run verify "$dir/$name.snap" >/dev/null 2>"$tmp/$name.verify" ||
        { echo "FAIL: $name: verify: $(cat "$tmp/$name.verify")"; fail=1; }
    # lookup exits 2 when a key has no owner (an imported map's -1): compare the output regardless.
    run lookup "$dir/$name.snap" --replicas 3 -q <"$dir/keys.txt" >"$tmp/$name.owners" 2>"$tmp/$name.err"
    if ! cmp -s "$tmp/$name.owners" "$dir/$name.owners"; then
        echo "FAIL: $name: owners differ from tests/known-answer/$name.owners:"
        diff "$dir/$name.owners" "$tmp/$name.owners" | head -5
        fail=1
    fi
done
[ "$record" = --record ] && { echo "recorded $n known-answer files"; exit 0; }
# The check must be able to fail: a flipped byte is noticed.
first=$(echo "$names" | head -1)
cp "$dir/$first.snap" "$tmp/flipped.snap"
printf '\xff' | dd of="$tmp/flipped.snap" bs=1 seek=100 conv=notrunc 2>/dev/null
cmp -s "$tmp/flipped.snap" "$dir/$first.snap" && { echo "FAIL: the byte flip did not change the file"; fail=1; }
[ "$n" -ge 20 ] || { echo "FAIL: only $n known-answer entries"; fail=1; }
[ "$fail" = 0 ] && echo "test_known_answer: $n snapshots rebuilt byte for byte, owners as recorded"
exit "$fail"
