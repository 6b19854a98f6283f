#!/usr/bin/env bash
# scripts/test.sh -- every test placer has, in the configurations CI uses:
#   1. release build, warnings fatal: unit, CLI, corpus replays, benchmark
#      smoke; then meson install and a program built against it;
#   2. ASan + UBSan build (gcc): the same tests;
#   3. TSan build (gcc): the tests that start threads;
#   4. libFuzzer (clang, ASan + UBSan): each target for $FUZZ_SECONDS (default 20);
#   5. cross builds (scripts/test-cross.sh) for each of $CROSS_ARCHES
#      (default "aarch64 s390x"; CROSS_ARCHES= turns the stage off): a
#      release build run under qemu user mode with the unit, fuzz-replay,
#      cli and known-answer suites ($CROSS_SUITES picks fewer): every file
#      of the format rebuilt byte for byte and its owners checked, every
#      corpus through the decoder, in the other byte order on s390x and
#      through the NEON and ARMv8 CRC kernels on aarch64.
# Which suites run under which build (CI stays under 45 minutes on 2 cores):
#   release      every suite: unit, etcd (real members, TLS, auth), cli,
#                fuzz-replay (every checked-in corpus), bench smoke;
#   asan-ubsan   every suite: memory errors and undefined behaviour anywhere,
#                the corpora included;
#   tsan         the 'threads' suite: every test that starts a thread (a
#                router's call_rcu thread, an etcd follower, the demo's
#                readers, pthread_create; tests/test_threads_suite.py keeps
#                the list whole). TSan sees races between threads only; the
#                single-threaded tests run under ASan+UBSan and release;
#   fuzz         each libFuzzer target (ASan+UBSan) for $FUZZ_SECONDS: a
#                smoke run; campaigns are fuzz/campaign.sh (fuzz/RESULTS.md).
# Every sanitizer stops at its first report (-fno-sanitize-recover=all and
# halt_on_error=1 in every test's environment, meson.build), so a report
# fails its test instead of scrolling past in a log.
# Ends with one line "N passed, N failed" over all of them; exits non-zero
# if anything failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fuzz_seconds=${FUZZ_SECONDS:-20}
passed=0 failed=0
log=$(mktemp -d)

# run_suite NAME BUILD_DIR MESON_OPTIONS...: configure, build, meson test
# (with $test_args, e.g. suites left out).
test_args=()
run_suite() {
    local name=$1 dir=$2
    shift 2
    echo "=== $name ($dir)"
    if [ ! -f "$dir/build.ninja" ]; then
        if ! meson setup "$dir" "$root" -Dwerror=true "$@" >"$log/$name.setup" 2>&1; then
            cat "$log/$name.setup"
            echo "$name: configure FAILED"
            failed=$((failed + 1))
            return
        fi
    fi
    if ! ninja -C "$dir" >"$log/$name.build" 2>&1; then
        cat "$log/$name.build"
        echo "$name: build FAILED"
        failed=$((failed + 1))
        return
    fi
    meson test -C "$dir" --print-errorlogs --num-processes 2 "${test_args[@]}" >"$log/$name.test" 2>&1
    grep -E '^ *[0-9]+/[0-9]+ ' "$log/$name.test"
    grep -qE '^(FAIL|TIMEOUT)|^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)' "$log/$name.test" &&
        sed -n '/^--- command ---/,/^-------/p;/stderr:/,/^$/p' "$log/$name.test" | head -200
    local ok fail timeout
    ok=$(awk '/^Ok:/ {print $2}' "$log/$name.test")
    fail=$(awk '/^Fail:/ {print $2}' "$log/$name.test")
    timeout=$(awk '/^Timeout:/ {print $2}' "$log/$name.test")
    if [ -z "$ok" ]; then
        tail -30 "$log/$name.test"
        echo "$name: meson test did not finish"
        failed=$((failed + 1))
        return
    fi
    passed=$((passed + ok))
    failed=$((failed + ${fail:-0} + ${timeout:-0}))
    echo "$name: $ok passed, $((${fail:-0} + ${timeout:-0})) failed"
}

run_suite release build --buildtype=release
echo "=== install (header, pkg-config, shared library)"
if bash "$root/tests/test_install.sh" "$root/build"; then
    passed=$((passed + 1))
else
    echo "install: FAILED"
    failed=$((failed + 1))
fi

# The sanitizer builds keep every target (benchmark smoke included): a build
# configured with nothing but -Db_sanitize=... must work.
run_suite asan-ubsan build-asan -Db_sanitize=address,undefined -Db_lundef=false \
    --buildtype=debugoptimized
test_args=(--suite threads)
run_suite tsan build-tsan -Db_sanitize=thread -Db_lundef=false --buildtype=debugoptimized
test_args=()

echo "=== fuzz (${fuzz_seconds}s per target)"
if command -v clang >/dev/null; then
    fuzz_out=$(FUZZ_BUILD_DIR="$root/build-fuzz" "$root/fuzz/run.sh" "$fuzz_seconds" 2>&1)
    echo "$fuzz_out"
    ok=$(grep -c ': ok$' <<<"$fuzz_out")
    bad=$(grep -c ': FAILED' <<<"$fuzz_out")
    [ "$ok" -eq 0 ] && [ "$bad" -eq 0 ] && bad=1 # the fuzz build itself failed
    passed=$((passed + ok))
    failed=$((failed + bad))
else
    echo "fuzz: clang not installed (scripts/setup.sh installs it)"
    failed=$((failed + 1))
fi

for arch in ${CROSS_ARCHES-aarch64 s390x}; do
    echo "=== cross $arch (build-cross-$arch, qemu)"
    cross_out=$("$root/scripts/test-cross.sh" "$arch" 2>&1)
    echo "$cross_out"
    last=$(tail -1 <<<"$cross_out")
    if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        passed=$((passed + BASH_REMATCH[1]))
        failed=$((failed + BASH_REMATCH[2]))
    else
        failed=$((failed + 1))
    fi
done

rm -rf "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
