#!/usr/bin/env bash
# test_man.sh PLACER MANDIR -- every command `placer --help` lists has a man
# page in MANDIR (cli/man), each page renders with groff without warnings,
# and names every option its command's --help lists (so an option added to
# --help without its page fails here); placer(1) documents the exit status.
set -u
placer=$1 mandir=$2
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
command -v groff >/dev/null || { echo "groff not installed (scripts/setup.sh installs groff-base)"; exit 77; }
render() { groff -man -Tascii -P-cbou -ww "$1" 2>"$tmp.warn"; }
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.warn"' EXIT

commands=$("$placer" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && !/^commands:/ {print $1}')
[ "$(wc -w <<<"$commands")" -ge 10 ] && ok || bad "too few commands found in placer --help: $commands"
for page in placer $(sed 's/^/placer-/' <<<"$commands"); do
    file=$mandir/$page.1
    if [ ! -f "$file" ]; then bad "$page: no man page $file"; continue; fi
    render "$file" >"$tmp"
    [ -s "$tmp" ] && [ ! -s "$tmp.warn" ] && ok || { bad "$page: groff: $(cat "$tmp.warn")"; continue; }
    grep -q "^NAME" "$tmp" && grep -q "^SYNOPSIS" "$tmp" && grep -q "^EXIT STATUS" "$tmp" && ok ||
        bad "$page: no NAME, SYNOPSIS or EXIT STATUS section"
    [ "$page" = placer ] && continue
    cmd=${page#placer-}
    # options as --help lists them: at the start of an indented line
    opts=$("$placer" "$cmd" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*( \| --[a-z][a-z0-9-]*)?' |
        grep -oE -- '--[a-z][a-z0-9-]*|-[a-zA-Z]\b' | sort -u)
    [ -n "$opts" ] && ok || bad "$cmd: no options found in --help"
    for o in $opts; do
        if grep -qE -- "(^|[^a-z-])$o([^a-z0-9-]|$)" "$tmp"; then ok; else bad "$page: option $o of --help is not in the man page"; fi
    done
done
# The one place the exit status is spelled out in full.
render "$mandir/placer.1" >"$tmp"
for code in 0 1 2 3 4; do
    grep -qE "^ +$code +[a-z]" "$tmp" && ok || bad "placer(1): exit status $code not described"
done
"$placer" --help | grep -q '^  4  publish: the epoch is not newer' && ok || bad "placer --help: exit status 4"
echo "test_man: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
