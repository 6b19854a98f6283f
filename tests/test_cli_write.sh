#!/usr/bin/env bash
# test_cli_write.sh PLACER -- the files the command writes (build -o, the
# imports' -o and --membership-out, simulate --plot) are crash-safe and
# safe to aim: a symlink is followed to the file it names (not one another
# user owns in a sticky directory); a device, FIFO, socket or directory at
# the path or the link's target, and any file the command reads (same
# inode: the path itself, a hard link, a symlink, standard input), is
# refused before anything is written, for every command that writes a
# file, and counted: zero replacements; "-o -" writes to standard output
# (the summary then goes to standard error); a failed write (file size
# limit, read-only directory) leaves the good file as it was and no
# temporary file behind; the mode is what a plain create gives under the
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

# A symlink at the target is followed: the file it names gets the new
# contents (through a chain of links, and a relative one, too); the link stays.
echo "old" >"$dir/named.txt"
ln -s "$dir/named.txt" "$dir/target.snap"
"$placer" build "$dir/m.json" -o "$dir/target.snap" >/dev/null
check '[ -L "$dir/target.snap" ] && "$placer" verify "$dir/named.txt" >/dev/null' \
    "build did not write the file a symlink names"
mkdir "$dir/sub"
ln -s ../named.txt "$dir/sub/rel.svg"
ln -s "$dir/sub/rel.svg" "$dir/plot.svg"
"${sim[@]}" --plot "$dir/plot.svg" >/dev/null
check '[ -L "$dir/plot.svg" ] && [ -L "$dir/sub/rel.svg" ] && grep -q "<svg" "$dir/named.txt"' \
    "simulate --plot did not follow a chain of symlinks"
# The old predictable temporary name (OUT.tmp.PID) is not used either.
echo "precious" >"$dir/victim.txt"
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

# ---- Every command that writes a file, at every target it must refuse ----
w=$dir/w
mkdir "$w"
data=$(cd "$(dirname "$0")/data" && pwd)
cp "$dir/m.json" "$w/m.json"
cp "$data/couchbase-bucket-config-3nodes.json" "$w/cb.json"
cp "$data/nutcracker.yml" "$w/tw.yml"
cp "$data/redis-cluster-nodes.txt" "$w/redis.txt"
cp "$data/haproxy.cfg" "$w/haproxy.cfg"
printf 'http {\n  upstream u { hash $request_uri consistent; server 10.0.0.1:80; server 10.0.0.2:80; }\n}\n' \
    >"$w/nginx.conf"
# writer NAME OUT [INPUT]: run one writer with its output at OUT (and its
# input at INPUT, default its own file above). The writers' names.
writers="build build-stdin couchbase twem-o twem-m redis-o redis-m haproxy-o haproxy-m nginx-o nginx-m plot"
writer() {
    local out=$1 in=${3:-}
    case $2 in
    build) "$placer" build "${in:-$w/m.json}" -o "$out" ;;
    build-stdin) "$placer" build - -o "$out" <"${in:-$w/m.json}" ;;
    couchbase) "$placer" import-couchbase "${in:-$w/cb.json}" -o "$out" ;;
    twem-o) "$placer" import-twemproxy "${in:-$w/tw.yml}" --pool gamma -o "$out" ;;
    twem-m) "$placer" import-twemproxy "${in:-$w/tw.yml}" --pool gamma --membership-out "$out" ;;
    redis-o) "$placer" import-redis "${in:-$w/redis.txt}" -o "$out" ;;
    redis-m) "$placer" import-redis "${in:-$w/redis.txt}" --membership-out "$out" ;;
    haproxy-o) "$placer" import-haproxy "${in:-$w/haproxy.cfg}" --backend b -o "$out" ;;
    haproxy-m) "$placer" import-haproxy "${in:-$w/haproxy.cfg}" --backend b --membership-out "$out" ;;
    nginx-o) "$placer" import-nginx "${in:-$w/nginx.conf}" --upstream u -o "$out" ;;
    nginx-m) "$placer" import-nginx "${in:-$w/nginx.conf}" --upstream u --membership-out "$out" ;;
    plot) "$placer" simulate "${in:-$w/m.json}" --keys 2000 --no-timing --quiet --plot "$out" ;;
    esac
}
input_of() {
    case $1 in
    build | build-stdin | plot) echo "$w/m.json" ;; couchbase) echo "$w/cb.json" ;;
    twem-*) echo "$w/tw.yml" ;; redis-*) echo "$w/redis.txt" ;;
    haproxy-*) echo "$w/haproxy.cfg" ;; nginx-*) echo "$w/nginx.conf" ;;
    esac
}
# Each works on a plain new path first (else the refusals below prove nothing).
for name in $writers; do
    rm -f "$w/ok.out"
    writer "$w/ok.out" "$name" >/dev/null 2>"$dir/err"
    check '[ $? -eq 0 ] && [ -s "$w/ok.out" ]' "$name: a new path was not written: $(cat "$dir/err")"
done
# The targets to refuse: made fresh for each writer. A character device
# only as root (mknod in the temporary directory); a symlink to /dev/null
# lives here too, and /dev/null is checked to stay a device.
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$w/sock"
mkdir "$w/t"
make_targets() {
    rm -rf "$w/t" && mkdir "$w/t" "$w/t/adir" && mkfifo "$w/t/fifo"
    ln -s /dev/null "$w/t/null"
    ln -s fifo "$w/t/to-fifo"
    ln -s to-fifo "$w/t/to-to-fifo"
    ln -s adir "$w/t/to-dir"
    ln "$w/sock" "$w/t/sock" # a hard link to one socket: Python starts once
    if [ "$(id -u)" -eq 0 ]; then
        mknod "$w/t/chr" c 1 3
    fi
}
targets() {
    echo fifo null to-fifo to-to-fifo adir to-dir sock
    [ "$(id -u)" -eq 0 ] && echo chr
}
# What is at a path (through links), with the shell's own tests: many cases, few processes.
kind() {
    if [ -L "$1" ]; then printf 'link '; fi
    if [ -p "$1" ]; then echo fifo; elif [ -c "$1" ]; then echo chr; elif [ -d "$1" ]; then echo dir
    elif [ -S "$1" ]; then echo sock; elif [ -f "$1" ]; then echo file; else echo none; fi
}
replaced=0 cases=0
for name in $writers; do
    make_targets
    for t in $(targets); do
        before=$(kind "$w/t/$t")
        writer "$w/t/$t" "$name" >/dev/null 2>"$dir/err" # a FIFO opened would hang: meson's timeout
        rc=$?
        cases=$((cases + 1))
        after=$(kind "$w/t/$t")
        if [ "$before" != "$after" ]; then
            replaced=$((replaced + 1))
            bad "$name onto $t ($before) left $after"
        fi
        err=$(<"$dir/err")
        check '[ $rc -eq 1 ] && [[ $err == *refused* ]]' "$name onto $t: exit $rc, $err"
    done
    check '[ -z "$(ls -A "$w/t" | grep "^\.")" ] && [ -z "$(ls -A "$w/t/adir")" ]' \
        "$name left files behind: $(ls -A "$w/t" "$w/t/adir")"
done
check '[ -c /dev/null ]' "/dev/null is no longer a character device"
# Its own input, as the path, a hard link, a symlink and standard input.
for name in $writers; do
    in=$(input_of "$name")
    cp "$in" "$dir/in.copy"
    ln -f "$in" "$w/hard"
    ln -sf "$in" "$w/soft"
    for out in "$in" "$w/hard" "$w/soft"; do
        writer "$out" "$name" >/dev/null 2>"$dir/err"
        rc=$?
        cases=$((cases + 1))
        if ! cmp -s "$in" "$dir/in.copy" || [ ! -L "$w/soft" ]; then
            replaced=$((replaced + 1))
            bad "$name over its input $out changed it"
            cp "$dir/in.copy" "$in"
        fi
        check '[ $rc -eq 1 ] && grep -q "an input of this command" "$dir/err"' \
            "$name over its input as $out: exit $rc, $(cat "$dir/err")"
    done
done
# build's other inputs: --previous and --secret-file.
"$placer" build "$w/m.json" -o "$w/prev.snap" >/dev/null
cp "$w/prev.snap" "$dir/prev.copy"
"$placer" build "$w/m.json" --previous "$w/prev.snap" -o "$w/prev.snap" >/dev/null 2>"$dir/err"
check '[ $? -eq 1 ] && cmp -s "$w/prev.snap" "$dir/prev.copy"' "build -o its --previous"
printf '%032d\n' 7 >"$w/secret.key"
chmod 600 "$w/secret.key"
printf '{"strategy": "ring", "key_hash": "siphash13", "nodes": [{"id": "a"}]}\n' >"$w/k.json"
"$placer" build "$w/k.json" --secret-file "$w/secret.key" -o "$w/secret.key" >/dev/null 2>"$dir/err"
check '[ $? -eq 1 ] && [ "$(cat "$w/secret.key")" = "$(printf "%032d" 7)" ]' "build -o its --secret-file"
cases=$((cases + 2))
echo "output targets: $cases refusals tried, $replaced replaced"
check '[ $replaced -eq 0 ]' "$replaced devices, FIFOs or inputs replaced"

# A symlink another user owns in a sticky directory is not followed (as
# the kernel's protected_symlinks would not): root can make one.
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
    mkdir -m 1777 "$w/sticky"
    echo "precious" >"$w/mine.txt"
    ln -s "$w/mine.txt" "$w/sticky/out.snap"
    chown -h nobody "$w/sticky/out.snap"
    "$placer" build "$w/m.json" -o "$w/sticky/out.snap" >/dev/null 2>"$dir/err"
    check '[ $? -eq 1 ] && [ "$(cat "$w/mine.txt")" = precious ] && grep -q sticky "$dir/err"' \
        "a planted symlink in a sticky directory was followed"
fi

# "-o -": the snapshot (or document) on standard output, summaries on
# standard error; both of an import's outputs there is a usage error.
"$placer" build "$w/m.json" -o - >"$w/stdout.snap" 2>"$dir/err"
check '[ $? -eq 0 ] && "$placer" verify "$w/stdout.snap" >/dev/null && grep -q "^wrote -:" "$dir/err"' \
    "build -o - did not write the snapshot to standard output"
"$placer" build "$w/m.json" -o - --json >"$w/stdout.snap" 2>"$dir/err"
check '"$placer" verify "$w/stdout.snap" >/dev/null && grep -q "\"output\":\"-\"" "$dir/err"' \
    "build -o - --json: the JSON summary is not on standard error"
"$placer" import-couchbase "$w/cb.json" -o - >"$w/stdout.snap" 2>/dev/null
check '"$placer" verify "$w/stdout.snap" >/dev/null' "import-couchbase -o -"
"$placer" import-twemproxy "$w/tw.yml" --pool gamma --membership-out - -o "$w/g.snap" >"$w/g.json" 2>"$dir/err"
check '[ $? -eq 0 ] && "$placer" build "$w/g.json" -o - 2>/dev/null | cmp -s - "$w/g.snap"' \
    "import --membership-out -: the document on standard output builds the same snapshot"
"$placer" import-twemproxy "$w/tw.yml" --pool gamma --membership-out - -o - >/dev/null 2>"$dir/err"
check '[ $? -eq 1 ]' "import with both outputs on standard output is not a usage error"
"${sim[@]}" --plot - >/dev/null 2>"$dir/err"
check '[ $? -eq 1 ] && grep -q "plot -" "$dir/err"' "simulate --plot - is not refused"

echo "test_cli_write: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
