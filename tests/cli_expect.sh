# cli_expect.sh -- sourced by the CLI tests: a scratch folder ($dir, removed
# on exit), the last command's output ($out), pass/fail counts and the
# checks they share. `finish NAME` prints the counts and sets the status.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$dir/out
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_exit() { # CODE DESCRIPTION -- CMD...
    local want=$1 what=$2; shift 3
    "$@" >"$out" 2>&1; local got=$?
    if [ "$got" -eq "$want" ]; then ok; else bad "$what: exit $got, want $want"; cat "$out" >&2; fi
}
expect_out() { # PATTERN DESCRIPTION
    if grep -qE -- "$1" "$out"; then ok; else bad "$2: no '$1' in output"; cat "$out" >&2; fi
}
finish() { # NAME
    echo "$1: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
