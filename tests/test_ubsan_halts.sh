#!/usr/bin/env bash
# test_ubsan_halts.sh EXE -- in a UBSan build: liburcu's read side runs clean
# through engine/core/urcu_bp_read.h, and placer's own misaligned access is still
# reported and stops the program (tests/test_ubsan_halts.c says why).
set -u
exe=$1
out=$("$exe" urcu 2>&1)
rc=$?
if [ $rc -ne 0 ] || ! grep -qx survived <<<"$out" || grep -q 'runtime error' <<<"$out"; then
    printf 'urcu read side: exit %d, expected a clean run:\n%s\n' "$rc" "$out"
    exit 1
fi
out=$("$exe" own 2>&1)
rc=$?
if [ $rc -eq 0 ] || grep -qx survived <<<"$out" ||
   ! grep -q 'runtime error: member access within misaligned address' <<<"$out"; then
    printf 'own misaligned access: exit %d, expected a UBSan report that stops the program:\n%s\n' "$rc" "$out"
    exit 1
fi
echo "ok: liburcu's read side exempt, placer's own misaligned access halts"
