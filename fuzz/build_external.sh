#!/usr/bin/env bash
# fuzz/build_external.sh [--afl] -- build every fuzz target the way OSS-Fuzz
# does: compiler and flags from $CC $CXX $CFLAGS $CXXFLAGS, the fuzzing
# engine linked from $LIB_FUZZING_ENGINE, and into $OUT each target with its
# dictionary (fuzz_T.dict) and seed corpus (fuzz_T_seed_corpus.zip, when zip
# is installed).
#   OSS-Fuzz:  its build.sh calls this with everything set.
#   by hand:   CC=clang CXX=clang++ CFLAGS='-g -O1 -fsanitize=address,fuzzer-no-link' \
#              CXXFLAGS="\$CFLAGS" LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/out \
#              fuzz/build_external.sh
#   --afl:     the same targets for AFL++ (Debian's afl++): afl-clang-fast,
#              whose -fsanitize=fuzzer links AFL++'s libFuzzer driver; in
#              build-afl/, $OUT defaulting to build-afl/out. Run with
#              fuzz/campaign.sh --afl.
# The library's own dependencies (jansson, libcurl, liburcu) link from the
# system, as in every other build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --afl ]; then
    command -v afl-clang-fast >/dev/null || { echo "build_external.sh: afl-clang-fast missing (apt-get install afl++)" >&2; exit 1; }
    export CC=afl-clang-fast CXX=afl-clang-fast++
    export CFLAGS="${CFLAGS:--g -O2}" CXXFLAGS="${CXXFLAGS:--g -O2}"
    export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
    build=${EXT_BUILD_DIR:-$root/build-afl}
    OUT=${OUT:-$build/out}
else
    : "${CC:?set CC}" "${CXX:?set CXX}" "${LIB_FUZZING_ENGINE:?set LIB_FUZZING_ENGINE}" "${OUT:?set OUT}"
    export CFLAGS="${CFLAGS:-}" CXXFLAGS="${CXXFLAGS:-}"
    build=${EXT_BUILD_DIR:-$root/build-ext}
fi
if [ ! -f "$build/build.ninja" ]; then
    # buildtype plain: the flags are the caller's alone; b_lundef off for
    # sanitizer runtimes that the final link brings in.
    meson setup "$build" "$root" -Dbuildtype=plain -Db_lundef=false -Dfuzzing_engine=external \
        -Dfuzz_engine_link="$LIB_FUZZING_ENGINE" -Dtests=false -Dbench=disabled >/dev/null
fi
ninja -C "$build" >/dev/null
mkdir -p "$OUT"
for f in "$root"/fuzz/fuzz_*.c; do
    t=$(basename "$f" .c)
    cp "$build/fuzz/$t" "$OUT/"
    [ -f "$root/fuzz/dict/${t#fuzz_}.dict" ] && cp "$root/fuzz/dict/${t#fuzz_}.dict" "$OUT/$t.dict"
    if command -v zip >/dev/null; then
        rm -f "$OUT/${t}_seed_corpus.zip"
        (cd "$root/fuzz/corpus/${t#fuzz_}" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
    fi
done
echo "build_external.sh: targets in $OUT"
