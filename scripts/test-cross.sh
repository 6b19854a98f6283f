#!/usr/bin/env bash
# scripts/test-cross.sh ARCH -- cross-build placer for ARCH (as meson spells
# it: aarch64, s390x) and run its unit, fuzz-replay, cli and known-answer
# suites under qemu user mode.
#
#   build-cross-ARCH/sysroot/   the target's libraries, unpacked from Debian's
#                               packages (apt-get download + dpkg -x: installing
#                               them as multiarch packages conflicts with the
#                               host's); libc comes with the cross toolchain
#   build-cross-ARCH/cross.ini  the meson cross file
#   build-cross-ARCH/run        runs a target program under qemu with that
#                               sysroot: build-cross-ARCH/run build-cross-ARCH/cli/placer version
#   build-cross-ARCH/           the release build (no benchmarks: qemu timings
#                               mean nothing)
#
# Needs crossbuild-essential-arm64 / crossbuild-essential-s390x and
# qemu-user-static (scripts/setup.sh installs them) and Debian's package
# lists for the target (this script adds the architecture to dpkg and runs
# apt-get update once when they are missing). $CROSS_SUITES names the
# meson suites to run (default "unit fuzz-replay cli known-answer";
# scripts/test.sh passes a lighter set, its header says why). Ends with
# one line "N passed, N failed"; exits non-zero when anything failed.
set -uo pipefail
arch=${1:-}
case $arch in
aarch64) debarch=arm64 triplet=aarch64-linux-gnu qemu=qemu-aarch64-static endian=little ;;
s390x) debarch=s390x triplet=s390x-linux-gnu qemu=qemu-s390x-static endian=big ;;
*)
    echo "usage: scripts/test-cross.sh aarch64|s390x" >&2
    exit 2
    ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build-cross-$arch
sysroot=$out/sysroot
mkdir -p "$out"

fail() {
    echo "cross $arch: $*"
    echo "0 passed, 1 failed"
    exit 1
}
for tool in "$triplet-gcc" "$triplet-g++" "$qemu" apt-get dpkg; do
    command -v "$tool" >/dev/null || fail "$tool not found (scripts/setup.sh installs it)"
done

# The target's libraries: what libplacer, libplacer-control, the command and
# the tests link, with everything they depend on but what the cross
# toolchain already has (libc, libgcc, libstdc++).
roots=(liburcu-dev nettle-dev libjansson-dev libcurl4-openssl-dev libyaml-dev zlib1g-dev)
make_sysroot() {
    if ! dpkg --print-foreign-architectures | grep -qx "$debarch"; then
        dpkg --add-architecture "$debarch" || return 1
    fi
    if ! apt-cache show "liburcu-dev:$debarch" >/dev/null 2>&1; then
        apt-get update -q >"$out/apt-update.log" 2>&1 || { cat "$out/apt-update.log"; return 1; }
    fi
    local pkgs
    pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
        --no-replaces --no-enhances "${roots[@]/%/:$debarch}" 2>/dev/null |
        grep -v '^ ' | grep ":$debarch\$" | sed "s/:$debarch\$//" |
        grep -vxE 'libc6|libc6-dev|libc-dev-bin|libgcc-s1|gcc-12-base|libstdc\+\+6|linux-libc-dev|libcrypt1|libcrypt-dev|rpcsvc-proto|libnsl-dev|libnsl2|libtirpc-dev|libtirpc3|libtirpc-common' |
        sort -u)
    [ -n "$pkgs" ] || return 1
    rm -rf "$out/debs" "$sysroot"
    mkdir -p "$out/debs" "$sysroot"
    # shellcheck disable=SC2086
    (cd "$out/debs" && apt-get download -q $(sed "s/\$/:$debarch/" <<<"$pkgs")) \
        >"$out/download.log" 2>&1 || { cat "$out/download.log"; return 1; }
    for deb in "$out"/debs/*.deb; do
        dpkg -x "$deb" "$sysroot" || return 1
    done
    # Absolute symlinks (libfoo.so -> /lib/...) would point into the host:
    # make them relative to the sysroot.
    find "$sysroot" -type l | while read -r link; do
        target=$(readlink "$link")
        case $target in
        /*) ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$sysroot$target")" "$link" ;;
        esac
    done
    touch "$sysroot/.complete"
}
if [ ! -f "$sysroot/.complete" ]; then
    echo "=== cross $arch: sysroot from Debian's $debarch packages"
    make_sysroot || fail "could not make the sysroot in $sysroot"
fi

libdirs="$sysroot/usr/lib/$triplet:$sysroot/lib/$triplet"
# The wrapper meson runs target programs through (exe_wrapper), and anyone
# can: qemu with the toolchain's libc (-L) and the sysroot's libraries.
cat >"$out/run" <<EOF
#!/bin/sh
# Runs a $arch program of this cross build under qemu user mode.
exec $qemu -L /usr/$triplet -E LD_LIBRARY_PATH=$libdirs "\$@"
EOF
chmod +x "$out/run"
# The command as the test scripts run it.
printf '#!/bin/sh\nexec %s %s "$@"\n' "$out/run" "$out/cli/placer" >"$out/placer"
chmod +x "$out/placer"

cat >"$out/cross.ini" <<EOF
# Written by scripts/test-cross.sh $arch.
[binaries]
c = '$triplet-gcc'
cpp = '$triplet-g++'
ar = '$triplet-ar'
strip = '$triplet-strip'
pkgconfig = 'pkg-config'
exe_wrapper = '$out/run'

[properties]
sys_root = '$sysroot'
pkg_config_libdir = ['$sysroot/usr/lib/$triplet/pkgconfig', '$sysroot/usr/share/pkgconfig']
# For the test scripts that run the command (meson wraps only what it runs itself).
placer_cmd = '$out/placer'
placer_run = '$out/run'

[built-in options]
c_args = ['-isystem', '$sysroot/usr/include', '-isystem', '$sysroot/usr/include/$triplet']
cpp_args = ['-isystem', '$sysroot/usr/include', '-isystem', '$sysroot/usr/include/$triplet']
c_link_args = ['-L$sysroot/usr/lib/$triplet', '-Wl,-rpath-link,$sysroot/usr/lib/$triplet:$sysroot/lib/$triplet']
cpp_link_args = ['-L$sysroot/usr/lib/$triplet', '-Wl,-rpath-link,$sysroot/usr/lib/$triplet:$sysroot/lib/$triplet']

[host_machine]
system = 'linux'
cpu_family = '$arch'
cpu = '$arch'
endian = '$endian'
EOF

build=$out
if [ ! -f "$build/build.ninja" ]; then
    echo "=== cross $arch: configure"
    rm -rf "$build/meson-private" "$build/meson-info" "$build/meson-logs"
    meson setup "$build" "$root" --cross-file "$out/cross.ini" --buildtype=release -Dwerror=true \
        -Dbench=disabled -Djemalloc=disabled >"$out/setup.log" 2>&1 ||
        { tail -40 "$out/setup.log"; fail "configure failed"; }
fi
echo "=== cross $arch: build"
ninja -C "$build" >"$out/build.log" 2>&1 || { grep -B2 -A12 'error' "$out/build.log" | head -80; fail "build failed"; }
"$out/run" "$build/cli/placer" version | sed 's/^/  /'

echo "=== cross $arch: tests under qemu (${CROSS_SUITES:-unit fuzz-replay cli known-answer})"
suites=()
for suite in ${CROSS_SUITES:-unit fuzz-replay cli known-answer}; do
    suites+=(--suite "$suite")
done
meson test -C "$build" --print-errorlogs --num-processes 2 --timeout-multiplier 4 \
    "${suites[@]}" >"$out/test.log" 2>&1
grep -E '^ *[0-9]+/[0-9]+ ' "$out/test.log"
grep -qE '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)' "$out/test.log" &&
    sed -n '/^--- command ---/,/^-------/p;/stderr:/,/^$/p' "$out/test.log" | head -150
ok=$(awk '/^Ok:/ {print $2}' "$out/test.log")
bad=$(awk '/^(Fail|Timeout):/ {n += $2} END {print n + 0}' "$out/test.log")
[ -n "$ok" ] || { tail -30 "$out/test.log"; fail "meson test did not finish"; }
echo "$ok passed, $bad failed"
[ "$bad" -eq 0 ]
