#!/usr/bin/env bash
# tests/test_no_globals.sh SOURCE_ROOT [FILE...] -- the library keeps no
# shared mutable state: every variable at file scope in engine/ and simd/
# (their folders too), and every `static` one inside a function, is const
# (for a pointer: the pointer itself, `const T *const`), or is named in
# tests/globals_allowed.txt with the reason it is safe (written once under
# pthread_once, atomic, a test hook...). A sort comparator that needs a
# context takes it from its entries, not from a file-wide pointer (twemproxy's sort_cfg_ crashed two threads building at once).
#
# The scan is lexical: comments, strings and preprocessor lines are
# dropped, braces tracked, and each declaration read up to its ';' or '{'
# (a declaration whose first '(' does not open '(*' is a function). With FILE
# arguments only those are scanned (the self-test below uses that).
set -uo pipefail
root=$1
shift
allow="$root/tests/globals_allowed.txt"

# One line per mutable variable: "path:line: name: declaration".
scan() {
    awk '
    # A function has a "(" and its first one does not open "(*name)" (a
    # parameter may itself be a pointer to a function).
    function isfunction(decl) {
        return decl ~ /\(/ && decl !~ /^[^(]*\( *\*/
    }
    function flush(stmt, line,   s, name, before, tail) {
        s = stmt
        gsub(/[ \t\r\n]+/, " ", s)
        sub(/^ /, "", s)
        if (s == "") { tailof = ""; return }
        if (depth == 0 && tailof != "") {     # "} name;" after a struct body
            if (tailof ~ /^typedef /) { tailof = ""; return }
            s = tailof " " s; tailof = ""
        }
        gsub(/_Atomic *\([^)]*\)/, "_Atomic_type", s)              # _Atomic(T *) x: a variable
        if (depth == 0) {
            if (s ~ /^(typedef|extern|_Static_assert|static_assert)[ (]/) return
            if (s ~ /^(struct|union|enum) [A-Za-z_0-9]+ *$/) return   # forward declaration
            if (s ~ /^(struct|union|enum)( [A-Za-z_0-9]+)? *\{?$/ && opener == "{") return
            before = s; sub(/=.*/, "", before)
            if (isfunction(before)) return
        } else {
            if (s !~ /^static /) return                               # automatic storage
            before = s; sub(/=.*/, "", before)
            if (isfunction(before)) return
        }
        # const applies to the object: after the last "*" if any, else anywhere
        tail = before
        if (tail ~ /\*/) sub(/.*\*/, "", tail)
        if (tail ~ /(^|[^A-Za-z_0-9])const([^A-Za-z_0-9]|$)/) return
        if (before ~ /_Thread_local|thread_local|__thread/) return   # one per thread
        name = before
        sub(/\[.*/, "", name); sub(/\).*/, "", name); sub(/ *$/, "", name)
        sub(/.*[ *(]/, "", name)
        printf "%s:%d: %s: %s\n", FILENAME, line, name, s
    }
    FNR == 1 { depth = 0; stmt = ""; incom = 0; inpp = 0; start = 0; tailof = ""; blockhead = "" }
    {
        l = $0
        if (inpp) { inpp = (l ~ /\\$/); next }
        if (!incom && l ~ /^[ \t]*#/) { inpp = (l ~ /\\$/); next }
        out = ""
        i = 1
        n = length(l)
        while (i <= n) {
            c = substr(l, i, 1); c2 = substr(l, i, 2)
            if (incom) {
                if (c2 == "*/") { incom = 0; i += 2 } else i++
                continue
            }
            if (c2 == "/*") { incom = 1; i += 2; continue }
            if (c2 == "//") break
            if (c == "\"" || c == "'\''") {          # a literal: skipped whole
                q = c; i++
                while (i <= n && substr(l, i, 1) != q) { if (substr(l, i, 1) == "\\") i++; i++ }
                i++; out = out "0"; continue
            }
            if (c == "{") {
                if (stmt out != "" && start == 0) start = FNR
                opener = "{"
                # "= {": an initializer, the declaration ends at its ";"
                if ((stmt out) ~ /= *$/ || ininit) { ininit++; out = out c; i++; continue }
                head = stmt out; gsub(/[ \t]+/, " ", head); sub(/^ /, "", head)
                if (depth == 0) blockhead = head
                flush(stmt out, start); stmt = ""; out = ""; start = 0
                depth++; i++; continue
            }
            if (c == "}") {
                if (ininit) { ininit--; out = out c; i++; continue }
                flush(stmt out, start); stmt = ""; out = ""; start = 0
                depth--; i++
                # (a macro call without ";" may come before: "M(x) typedef struct")
                h = blockhead; sub(/.*\) */, "", h)
                if (depth == 0 && h ~ /(^|[ ])(struct|union|enum)( |$)/)
                    tailof = h
                continue
            }
            if (c == ";" && !ininit) {
                opener = ";"
                if (start == 0) start = FNR
                flush(stmt out, start); stmt = ""; out = ""; start = 0
                i++; continue
            }
            if (start == 0 && c !~ /[ \t]/) start = FNR
            out = out c; i++
        }
        stmt = stmt out " "
    }' "$@"
}

if [ $# -gt 0 ]; then
    scan "$@"
    exit 0
fi

fail=0
cd "$root" || exit 2
found=$(scan $(find engine simd -name "*.c" -o -name "*.h" | sort))
while IFS= read -r hit; do
    [ -n "$hit" ] || continue
    file=${hit%%:*}
    name=$(cut -d: -f3 <<<"$hit" | tr -d ' ')
    if ! grep -qE "^$file $name( |$)" "$allow"; then
        echo "FAIL: $hit"
        echo "      (shared mutable state: make it const, pass it as an argument, or add"
        echo "       '$file $name <why it is safe>' to tests/globals_allowed.txt)"
        fail=1
    fi
done <<<"$found"
# Every allow-list entry must still exist (a stale reason hides nothing).
while IFS= read -r entry; do
    case "$entry" in ''|'#'*) continue ;; esac
    file=${entry%% *}
    rest=${entry#* }
    name=${rest%% *}
    reason=${rest#"$name"}
    if [ -z "${reason// /}" ]; then
        echo "FAIL: globals_allowed.txt: $file $name gives no reason"
        fail=1
    fi
    if ! grep -qE "^$file:[0-9]+: $name:" <<<"$found"; then
        echo "FAIL: globals_allowed.txt: $file $name is no longer a mutable variable there"
        fail=1
    fi
done <"$allow"

# The check itself must be able to fail: each shape of shared state it is
# meant to catch is caught in a sample, and the safe shapes are not.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/sample.c" <<'EOF'
#include <stdint.h>
/* static int in_comment; */
static const char *const fine_table[] = {"a", "b;", "{"};
static const int fine_n = 3;
typedef struct s { int x; } s;
int fine_fn(int x);
static int fine_def(const void *a, const void *b) { static const int k = 1; int y = k; return y; }
static int fine_takes_fn(int x, int (*way)(int)) { return way(x); }
int fine_proto(int (*way)(int));
static const struct s *sort_cfg_;
static int counter;
uint32_t table[8][256];
static const char *names[] = {"x"};
static int (*hook)(int);
static _Atomic(const int *) current;
static struct s cfg = {.x = 1};
int fine_later(void)
{
    static int calls;
    return ++calls;
}
EOF
got=$(scan "$tmp/sample.c" | cut -d: -f3 | tr -d ' ' | sort | tr '\n' ' ')
want="calls cfg counter current hook names sort_cfg_ table "
if [ "$got" != "$want" ]; then
    echo "FAIL: the scan of a sample found '$got', not '$want'"
    fail=1
fi

if [ "$fail" = 0 ]; then
    echo "test_no_globals: every mutable variable in engine/ and simd/ is allowed, with a reason ($(grep -c '^[^#]' "$allow") entries)"
fi
exit "$fail"
