#!/usr/bin/env bash
# Makes a GDB with DAP (14 or newer) available to the test suite. Debian 12 ships GDB 13.1, which
# has none, so on such a machine this fetches Debian 13's GDB with its own libraries (glibc and
# Python among them) into a private root, /opt/debugger-test/gdb by default, and writes a `gdb`
# wrapper there that runs it with that root's loader. Nothing outside the root changes: the
# system's gdb, libc and Python stay as they are, and the debuggee still runs on the system's libc.
#
# Idempotent: does nothing when gdb on PATH is 14+ or the private GDB is already in place.
# tests/common's `require_gdb` looks in the same places. Needs apt-get and dpkg-deb (Debian or
# Ubuntu on amd64), and root or sudo to write the root.
set -euo pipefail

prefix="${DEBUGGER_TEST_GDB_PREFIX:-/opt/debugger-test/gdb}"
suite=trixie
mirror=http://deb.debian.org/debian
keyring=/usr/share/keyrings/debian-archive-trixie-stable.gpg

gdb_major() {
  "$1" --version 2>/dev/null | head -n1 | awk '{print $NF}' | cut -d. -f1
}

has_dap() {
  local major
  major="$(gdb_major "$1")"
  [ -n "$major" ] && [ "$major" -ge 14 ] 2>/dev/null
}

marker="$prefix/.made-by-install-test-gdb"
case "$prefix" in
  /?*) ;;
  *)
    echo "error: DEBUGGER_TEST_GDB_PREFIX must be an absolute path, e.g. /opt/debugger-test/gdb (got '$prefix')" >&2
    exit 1
    ;;
esac

if command -v gdb >/dev/null 2>&1 && has_dap "$(command -v gdb)"; then
  exit 0
fi
if [ -x "$prefix/bin/gdb" ] && has_dap "$prefix/bin/gdb"; then
  exit 0
fi

fail() {
  echo "error: the tests need a GDB with DAP (14 or newer): $*" >&2
  exit 1
}
command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 \
  || fail "install GDB 14+ and put it on PATH (this script needs apt-get and dpkg-deb)"
[ "$(dpkg --print-architecture)" = amd64 ] \
  || fail "install GDB 14+ and put it on PATH (this script fetches amd64 packages only)"
[ -r "$keyring" ] || fail "the Debian $suite archive key ($keyring) is missing: apt-get install debian-archive-keyring"

# The prefix is replaced below: it must be new, empty, or this script's own.
if [ -d "$prefix" ] && [ ! -e "$marker" ] && [ -n "$(ls -A "$prefix")" ]; then
  fail "$prefix holds files this script did not put there; choose a new or empty folder (DEBUGGER_TEST_GDB_PREFIX)"
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  fail "run this script as root, or install GDB 14+ and put it on PATH"
fi

echo "installing: gdb from Debian $suite into $prefix"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/root"
: >"$work/status"
echo "deb [signed-by=$keyring] $mirror $suite main" >"$work/sources.list"
apt_options=(
  -o "Dir::Etc::SourceList=$work/sources.list"
  -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::State::Lists=$work/lists"
  -o "Dir::State::status=$work/status"
  -o "Dir::Cache=$work/cache"
  -o "Debug::NoLocking=1"
  -o "APT::Architectures=amd64"
  -o "APT::Sandbox::User=root"
)
apt-get "${apt_options[@]}" update -qq
# With an empty status file apt resolves gdb's whole dependency closure, glibc included.
apt-get "${apt_options[@]}" install -y -qq --download-only --no-install-recommends gdb >/dev/null
for deb in "$work"/cache/archives/*.deb; do
  dpkg-deb -x "$deb" "$work/root"
done

root="$prefix/root"
lib="$root/usr/lib/x86_64-linux-gnu"
mkdir -p "$work/bin"
cat >"$work/bin/gdb" <<EOF
#!/bin/sh
# Debian $suite's GDB, run on its own libraries by its own loader (scripts/install-test-gdb.sh).
# PYTHONHOME lets its Python find its standard library; GDB unsets it again for the debuggee.
PYTHONHOME="$root/usr" exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib" "$root/usr/bin/gdb" \\
  --data-directory="$root/usr/share/gdb" -nx -iex "unset environment PYTHONHOME" "\$@"
EOF
chmod 755 "$work/bin/gdb"
"${sudo[@]}" mkdir -p "$prefix"
"${sudo[@]}" rm -rf "$prefix/root" "$prefix/bin"
"${sudo[@]}" cp -a "$work/root" "$work/bin" "$prefix/"
"${sudo[@]}" touch "$marker"
has_dap "$prefix/bin/gdb" || fail "the GDB fetched into $prefix does not run: $("$prefix/bin/gdb" --version 2>&1 | head -n3)"
echo "gdb: $("$prefix/bin/gdb" --version | head -n1) at $prefix/bin/gdb"
