#!/usr/bin/env bash
# fuzz/oss-fuzz/check_build.sh [--keep] -- run OSS-Fuzz's build.sh here, in
# the environment OSS-Fuzz's base-builder gives it, and check what it made.
# Environment (base-builder's, for the libFuzzer engine and AddressSanitizer):
# CC=clang, CXX=clang++, CFLAGS and CXXFLAGS with -O1, -gline-tables-only,
# -fsanitize=address and -fsanitize=fuzzer-no-link,
# LIB_FUZZING_ENGINE=-fsanitize=fuzzer, SANITIZER, FUZZING_ENGINE,
# ARCHITECTURE; $SRC holds placer (a link to this tree), $WORK and $OUT are
# fresh temporary folders. (base-builder's CXXFLAGS add -stdlib=libc++, its
# own clang's; Debian's clang links libstdc++, which the targets accept.)
# Checks, each a line ending ': ok' or ': FAILED':
#   - every target (fuzz/fuzz_*.c) is in $OUT with its seed corpus zip, and
#     its dictionary when fuzz/dict/ has one;
#   - ldd of each target lists only the C and C++ runtime: linux-vdso,
#     libc, libm, libpthread, libdl, librt (glibc; the sanitizer runtime
#     asks for it), libstdc++, libgcc_s and the loader;
#   - each target runs its first five seeds and 200 mutations of them
#     (libFuzzer -runs) without a finding.
# Exit 0 when every check passed, 1 otherwise; --keep keeps the temporary
# folder (its path is printed) for a closer look.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
keep=0
[ "${1:-}" = --keep ] && keep=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/placer-oss-fuzz.XXXXXX")
[ "$keep" = 1 ] && echo "check_build.sh: working in $tmp" || trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/work" "$tmp/out"
ln -s "$root" "$tmp/src/placer"
cp "$root/fuzz/oss-fuzz/build.sh" "$tmp/src/build.sh"

export SRC=$tmp/src WORK=$tmp/work OUT=$tmp/out
export CC=clang CXX=clang++
export SANITIZER=address FUZZING_ENGINE=libfuzzer ARCHITECTURE=x86_64 FUZZING_LANGUAGE=c
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS"
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
unset EXT_BUILD_DIR

failed=0 passed=0
verdict() { # NAME OK(0|1) [DETAIL]
    if [ "$2" = 0 ]; then
        echo "$1: ok"
        passed=$((passed + 1))
    else
        echo "$1: FAILED${3:+ ($3)}"
        failed=$((failed + 1))
    fi
}

(cd "$SRC/placer" && bash -eu "$SRC/build.sh") >"$tmp/build.log" 2>&1
rc=$?
verdict "oss-fuzz build.sh" "$rc" "log: $tmp/build.log"
[ "$rc" = 0 ] || { [ "$keep" = 1 ] || tail -20 "$tmp/build.log"; exit 1; }

allowed='^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libstdc\+\+\.so\.6|libgcc_s\.so\.1|/lib64/ld-linux-x86-64\.so\.2|ld-linux-x86-64\.so\.2)$'
for f in "$root"/fuzz/fuzz_*.c; do
    t=$(basename "$f" .c)
    exe=$OUT/$t
    if [ ! -x "$exe" ]; then
        verdict "$t built" 1 "not in \$OUT"
        continue
    fi
    missing=
    [ -f "$OUT/${t}_seed_corpus.zip" ] || missing+=" ${t}_seed_corpus.zip"
    [ -f "$root/fuzz/dict/${t#fuzz_}.dict" ] && [ ! -f "$OUT/$t.dict" ] && missing+=" $t.dict"
    verdict "$t built" "$([ -z "$missing" ]; echo $?)" "missing:$missing"
    extra=$(ldd "$exe" | awk '{print $1}' | grep -Ev "$allowed" | tr '\n' ' ')
    verdict "$t links only the system runtime" "$([ -z "$extra" ]; echo $?)" "also: $extra"
    seeds=$tmp/seeds/$t
    mkdir -p "$seeds"
    find "$root/fuzz/corpus/${t#fuzz_}" -type f | sort | head -5 | xargs -r cp -t "$seeds"
    (cd "$tmp" && "$exe" -runs=200 -seed=1 -artifact_prefix="$tmp/$t-" "$seeds" >"$tmp/$t.log" 2>&1)
    verdict "$t runs" "$?" "log: $tmp/$t.log"
done
echo "check_build.sh: $passed passed, $failed failed"
[ "$failed" = 0 ]
