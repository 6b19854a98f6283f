#!/usr/bin/env bash
# Install every Debian 12 package placer needs to build, test, benchmark and fuzz.
# Idempotent: installs only what is missing; safe to run again.
set -euo pipefail

packages=(
  # build
  meson ninja-build pkg-config gcc g++ git
  # data plane
  libsimde-dev liburcu-dev libjemalloc-dev
  # control plane: JSON, etcd's HTTP API; etcd itself for the tests against real members
  libjansson-dev libcurl4-openssl-dev etcd-server etcd-client
  # control plane: nutcracker's YAML for import-twemproxy (the parser twemproxy links)
  libyaml-dev
  # compatibility modes: MD5 for the ketama rings and keys (Nettle: a
  # well-kept library with an x86-64 assembly MD5 core)
  nettle-dev
  # tests/: the real programs the compatibility modes are proven against
  memcached nutcracker nginx-light haproxy redis-server redis-tools
  # proof harnesses
  libbenchmark-dev libbenchmark-tools clang libclang-rt-14-dev llvm
  valgrind python3
  # fuzz/campaign.sh: --afl builds and runs the same targets with AFL++;
  # GNU time gives each run's CPU-seconds (executions per CPU-second);
  # openssl: the etcd TLS tests make their CA and certificates with it
  afl++ time openssl
  # bench/ only: libmemcached's ketama as a peer (it hashes locally, never
  # connects), and SciPy/NumPy for Google Benchmark's compare.py
  libmemcached-dev python3-scipy python3-numpy
  # tests/ and bench/: zlib's crc32() is the oracle and the peer of placer_crc32
  zlib1g-dev
  # tests/test_compat_kafka.c: librdkafka's own producer partitioners
  librdkafka-dev
  # tests/test_man.sh renders the man pages (groff -man)
  groff-base
  # tests/test_cli_lookup_writes.sh counts placer lookup's write() calls
  strace
  # scripts/test-cross.sh: aarch64 and big-endian s390x builds, cross-compiled
  # and tested under qemu user mode (the target's libraries come from
  # Debian's packages, unpacked into a sysroot by the script itself)
  crossbuild-essential-arm64 crossbuild-essential-s390x qemu-user-static
  # python/: the placer module's tests (pytest; NumPy arrays from lookup_batch)
  python3-pytest python3-numpy
  # python/README.md's offline install, tested: venv (with pip's wheel) and
  # the system setuptools and wheel a --no-build-isolation build uses (pip
  # builds the wheel with setuptools' bdist_wheel, which is python3-wheel's:
  # without it the install stops at "invalid command 'bdist_wheel'")
  python3-venv python3-setuptools python3-wheel
  # python/placer/_native.c, the per-key calls' extension: Python's headers;
  # bench/python_per_key.py compares it with uhashring (pure Python)
  python3-dev python3-uhashring
  # tests/compat_cassandra_tokens.py: the DataStax Python driver's
  # Murmur3Token is the oracle of placer_cassandra_token
  python3-cassandra
  # tests/compat_clientlibs.py: the client libraries placer follows, run
  # as their users run them (Go's groupcache built offline in GOPATH mode;
  # uhashring and pymemcache under Debian's python3)
  golang-go golang-github-golang-groupcache-dev python3-pymemcache
  # tests/compat_programs.py: haproxy's balance source from IPv6 clients
  # needs addresses other than ::1, in a network namespace (ip netns)
  iproute2
  # nginx/: ngx_http_upstream_placer_module is built against nginx-dev's
  # source and Debian's configure flags and loaded into Debian's nginx
  # (tests/nginx_placer.py); bench/nginx_balancers.py drives it with wrk
  nginx nginx-dev wrk
  # lua/: lua-resty-placer in balancer_by_lua (tests/nginx_placer.py --lua);
  # their LuaJIT (libluajit2) conflicts with Debian's luajit package
  libnginx-mod-http-lua lua-resty-core
  # tests/lua_failures.lua: lua-resty-placer's failure accounting in the
  # LuaJIT those modules are built on
  luajit2
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
# The package starts a system etcd on port 2379 where systemd runs; placer's
# tests start their own members on free ports, so leave the machine as it was.
if [[ " ${missing[*]} " == *" etcd-server "* ]] && command -v systemctl >/dev/null &&
   systemctl is-active --quiet etcd 2>/dev/null; then
  $SUDO systemctl disable --now etcd || true
fi
