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
# Only the fuzz targets are built, and they link their dependencies
# statically (meson's prefer_static: nettle, jansson, libyaml, liburcu-bp
# from Debian's .a files), so that they run on a machine without them,
# OSS-Fuzz's runner image included; what stays dynamic is the C and C++
# runtime (fuzz/oss-fuzz/check_build.sh checks it with ldd). No target
# calls the etcd client, so no object of libcurl is linked. jemalloc is
# left out: the sanitizers of $CFLAGS replace malloc themselves.
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
        -Dfuzz_engine_link="$LIB_FUZZING_ENGINE" -Dprefer_static=true -Djemalloc=disabled \
        -Dtests=false -Dbench=disabled >/dev/null
fi
targets=()
for f in "$root"/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
ninja -C "$build" "${targets[@]/#/fuzz/}" >"$build/fuzz-build.log" 2>&1 ||
    { tail -40 "$build/fuzz-build.log" >&2; echo "build_external.sh: the build failed (log: $build/fuzz-build.log)" >&2; exit 1; }
mkdir -p "$OUT"
for t in "${targets[@]}"; do
    cp "$build/fuzz/$t" "$OUT/"
    [ -f "$root/fuzz/dict/${t#fuzz_}.dict" ] && cp "$root/fuzz/dict/${t#fuzz_}.dict" "$OUT/$t.dict"
    if command -v zip >/dev/null; then
        rm -f "$OUT/${t}_seed_corpus.zip"
        (cd "$root/fuzz/corpus/${t#fuzz_}" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
    fi
done
echo "build_external.sh: targets in $OUT"
