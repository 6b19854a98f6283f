#!/usr/bin/env bash
# Build ngx_http_upstream_placer_module.so against Debian's nginx-dev, the
# way Debian builds its own nginx modules (dh's nginx_mod build system):
# nginx's ./configure with the flags of Debian's nginx (conf_flags, which
# hold --with-compat) and --add-dynamic-module, then `make modules`. Offline.
#
#   build_module.sh MODULE_DIR OUT_DIR PLACER_INCLUDE_DIR PLACER_LIB_DIR [NGINX_SRC [CONTROL_LIB_DIR]]
#
# nginx's configure writes a Makefile into the directory it runs from, so
# it runs in a copy of the source (1 MB of headers and scripts) under
# OUT_DIR. The module links libplacer from PLACER_LIB_DIR, with that
# directory as its run path (pass the installed libdir for an install);
# with CONTROL_LIB_DIR, also libplacer-control from there (etcd=).
set -euo pipefail
module=$(cd "$1" && pwd)
out=$2
inc=$(cd "$3" && pwd)
lib=$(cd "$4" && pwd)
src=${5:-/usr/share/nginx/src}
control=
if [ -n "${6:-}" ]; then
    control=$(cd "$6" && pwd)
fi

if [ ! -f "$src/conf_flags" ]; then
    echo "build_module.sh: no nginx source at $src (Debian: apt-get install nginx-dev)" >&2
    exit 1
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/nginx-src"
cp -R "$src" "$out/nginx-src"
cd "$out/nginx-src"
# shellcheck disable=SC1091
. ./conf_flags  # NGX_CONF_FLAGS, a bash array
control_libs=
if [ -n "$control" ]; then
    control_libs="-L$control -Wl,-rpath,$control -lplacer-control"
fi
PLACER_CFLAGS="-I$inc" PLACER_LIBS="-L$lib -Wl,-rpath,$lib -lplacer" \
    PLACER_CONTROL_LIBS="$control_libs" ./configure --with-cc-opt="-g -O2 -fstack-protector-strong -Wformat -Werror=format-security -fPIC -D_FORTIFY_SOURCE=2" \
    --with-ld-opt="-Wl,-z,relro -Wl,-z,now -fPIC" \
    "${NGX_CONF_FLAGS[@]}" --add-dynamic-module="$module" >"$out/configure.log" 2>&1 ||
    { cat "$out/configure.log" >&2; exit 1; }
make -f objs/Makefile modules >"$out/make.log" 2>&1 || { cat "$out/make.log" >&2; exit 1; }
cp objs/ngx_http_upstream_placer_module.so "$out/"
