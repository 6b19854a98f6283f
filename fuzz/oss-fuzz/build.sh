#!/bin/bash -eu
# OSS-Fuzz's build script for placer (projects/placer/build.sh there).
# The base-builder image runs it in $SRC/placer with $CC, $CXX, $CFLAGS,
# $CXXFLAGS and $LIB_FUZZING_ENGINE set for the engine and sanitizer of the
# build; everything it makes goes to $OUT: each fuzz target, its dictionary
# (fuzz_T.dict) and its seed corpus (fuzz_T_seed_corpus.zip).
# fuzz/build_external.sh does the work, in $WORK/build; the targets link
# nettle, jansson, libyaml and liburcu-bp statically, so the runner image
# needs none of them. Tried here by fuzz/oss-fuzz/check_build.sh.
cd "$SRC/placer"
rm -rf "$WORK/build"
EXT_BUILD_DIR="$WORK/build" fuzz/build_external.sh
