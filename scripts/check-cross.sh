#!/usr/bin/env bash
# Compile-checks this checkout for Windows (x86_64-pc-windows-gnu) and macOS (aarch64-apple-darwin)
# from Debian 12 x86_64, with warnings as errors, and builds the Windows binary.
#
#   scripts/check-cross.sh            # both targets, --all-targets, -D warnings; the Windows .exe;
#                                     # under Wine: the library's unit tests and a smoke session
#   DEBUGGER_CROSS_TARGET=DIR scripts/check-cross.sh   # builds in DIR (default: the cache's)
#
# Debian ships no prebuilt standard library for those targets for a current rustc, but
# bookworm-security's rustc-web/cargo-web come with rust-web-src, the standard library's source,
# so cargo builds std for the target itself (RUSTC_BOOTSTRAP=1, -Zbuild-std); mingw-w64 links the
# Windows binary. macOS is checked, not linked: no registry has Apple's SDK. Packages are fetched
# with `apt-get download` and unpacked under $DEBUGGER_CROSS_CACHE (default
# ~/.cache/debugger-cross), touching no system package: about 200 MB, a minute, once. The first
# check also builds std for both targets (a few minutes); later ones reuse the cache.
#
# Wine: bookworm's Wine 8.0 lacks bcryptprimitives.dll's ProcessPrng, which Rust's std needs (Wine
# has it from 8.13), so a ten-line shim DLL stands in; Debian's wineserver wrapper hard-codes its
# path, so it is pointed at the unpacked one; user32 wants zlib1.dll in system32. A daemon started
# under Wine keeps inherited pipes open, so the smoke session's output goes to files, and the
# prefix's processes are ended with `wineserver -k` at the end.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${DEBUGGER_CROSS_CACHE:-$HOME/.cache/debugger-cross}
ROOT=$CACHE/root
mkdir -p "$CACHE"

if [ ! -x "$ROOT/usr/bin/rustc" ]; then
  echo "== cross toolchain: rustc-web, cargo-web, rust-web-src, mingw-w64 (into $ROOT)"
  apt-get update -qq >/dev/null 2>&1
  mkdir -p "$CACHE/debs" "$ROOT"
  ( cd "$CACHE/debs" && apt-get download -q rustc-web cargo-web libstd-rust-web-dev rust-web-src \
      gcc-mingw-w64-x86-64-posix gcc-mingw-w64-x86-64-posix-runtime gcc-mingw-w64-base \
      mingw-w64-x86-64-dev mingw-w64-common binutils-mingw-w64-x86-64 >/dev/null ) \
    || { echo "apt-get download failed"; exit 1; }
  # The runtime libraries rustc-web and cargo-web link (their names carry versions), two levels.
  runtime_libs() {
    for deb in "$@"; do dpkg-deb -f "$deb" Depends; done | tr ',' '\n' | sed 's/[(|].*//; s/ //g' |
      grep -E '^lib(std-rust-web|llvm|git2|http-parser|mbed|ssh2)' | sort -u
  }
  for _ in 1 2; do
    extra=$(runtime_libs "$CACHE"/debs/*.deb)
    if [ -n "$extra" ]; then
      # shellcheck disable=SC2086
      ( cd "$CACHE/debs" && apt-get download -q $extra >/dev/null 2>&1 )
    fi
  done
  for deb in "$CACHE"/debs/*.deb; do dpkg-deb -x "$deb" "$ROOT"; done
fi

export LD_LIBRARY_PATH=$ROOT/usr/lib/x86_64-linux-gnu
export PATH=$ROOT/usr/bin:$PATH
export RUSTC=$ROOT/usr/bin/rustc RUSTDOC=$ROOT/usr/bin/rustdoc CARGO=$ROOT/usr/bin/cargo
export RUSTC_BOOTSTRAP=1
unset RUSTUP_TOOLCHAIN
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=$ROOT/usr/bin/x86_64-w64-mingw32-gcc-posix
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_AR=$ROOT/usr/bin/x86_64-w64-mingw32-ar
export RUSTFLAGS="-D warnings"
BUILD_STD=(-Zbuild-std=std,panic_abort)
# Checkouts that run this at the same time need target dirs of their own: one's build of
# debugger.exe would otherwise replace the other's between its build and its smoke session.
TARGET_DIR=${DEBUGGER_CROSS_TARGET:-$CACHE/target}
status=0

for target in x86_64-pc-windows-gnu aarch64-apple-darwin; do
  echo "== cargo check --all-targets --target $target (warnings are errors)"
  log=$CACHE/check-$target.log
  if ( cd "$TOP" && "$CARGO" check "${BUILD_STD[@]}" --target "$target" --all-targets --locked \
        --keep-going --message-format=short --target-dir "$TARGET_DIR" ) >"$log" 2>&1; then
    echo "   $target: clean"
  else
    status=1
    grep -E '^[a-z_/.]+\.rs:[0-9]+:[0-9]+: (error|warning)' "$log" | sort -u
    echo "   $target: $(grep -cE '^[a-z_/.]+\.rs:[0-9]+:[0-9]+: error' "$log") errors (log: $log)"
    tail -3 "$log"
  fi
done

echo "== cargo build --target x86_64-pc-windows-gnu (debugger.exe, the mock adapter, the unit tests)"
log=$CACHE/build-windows.log
if ( cd "$TOP" && "$CARGO" build "${BUILD_STD[@]}" --target x86_64-pc-windows-gnu --bins --examples \
      --locked --message-format=short --target-dir "$TARGET_DIR" &&
     "$CARGO" test "${BUILD_STD[@]}" --target x86_64-pc-windows-gnu --lib --no-run --locked \
      --message-format=json --target-dir "$TARGET_DIR" >"$CACHE/unit-tests.json" ) >"$log" 2>&1; then
  echo "   built: $TARGET_DIR/x86_64-pc-windows-gnu/debug/debugger.exe"
else
  tail -5 "$log"
  exit 1
fi

echo "== Wine 8 (unpacked into $CACHE/wine) with the ProcessPrng shim"
WINE_DIR=$CACHE/wine
if [ ! -x "$WINE_DIR/root/usr/lib/wine/wine64" ]; then
  mkdir -p "$WINE_DIR/debs" "$WINE_DIR/root"
  apt-get update -qq >/dev/null 2>&1
  ( cd "$WINE_DIR/debs" && apt-get download -q wine64 libwine libz-mingw-w64 >/dev/null ) \
    || { echo "Wine download failed"; exit 1; }
  for deb in "$WINE_DIR"/debs/*.deb; do dpkg-deb -x "$deb" "$WINE_DIR/root"; done
  sed -i "s#^wineserver64=.*#wineserver64=$WINE_DIR/root/usr/lib/wine/wineserver64#; s#^wineserver32=.*#wineserver32=/nonexistent#" \
    "$WINE_DIR/root/usr/lib/wine/wineserver"
fi
export WINEPREFIX=$WINE_DIR/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
export WINEDLLPATH=$WINE_DIR/root/usr/x86_64-w64-mingw32/lib
WINE=$WINE_DIR/root/usr/lib/wine/wine64
WINESERVER=$WINE_DIR/root/usr/lib/wine/wineserver64
mkdir -p "$WINEPREFIX"
$WINESERVER -p30 </dev/null >/dev/null 2>&1
[ -d "$WINEPREFIX/drive_c/windows" ] || timeout 300 $WINE wineboot -i >/dev/null 2>&1
if [ ! -f "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" ]; then
  mkdir -p "$WINE_DIR/shim"
  cat > "$WINE_DIR/shim/bcryptprimitives.c" <<'C'
#include <windows.h>
#define SystemFunction036 NTAPI SystemFunction036
#include <ntsecapi.h>
#undef SystemFunction036
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len) {
        ULONG n = len > 0x7fffffffu ? 0x7fffffffu : (ULONG)len;
        if (!RtlGenRandom(data, n)) return FALSE;
        data += n; len -= n;
    }
    return TRUE;
}
C
  x86_64-w64-mingw32-gcc-posix -O2 -shared -o "$WINE_DIR/shim/bcryptprimitives.dll" \
    "$WINE_DIR/shim/bcryptprimitives.c" -ladvapi32
  cp "$WINE_DIR/shim/bcryptprimitives.dll" "$WINE_DIR/root/usr/x86_64-w64-mingw32/lib/zlib1.dll" \
    "$WINEPREFIX/drive_c/windows/system32/"
fi

BIN=$TARGET_DIR/x86_64-pc-windows-gnu/debug
windows_path() { echo "Z:${1//\//\\}"; }
SMOKE=$(mktemp -d)
trap '$WINESERVER -k >/dev/null 2>&1; rm -rf "$SMOKE"' EXIT

echo "== under Wine: the library's unit tests"
# The unit tests' executable, as cargo named it (the binary's own copy in deps/ looks alike).
unit=$(grep -o '"executable":"[^"]*"' "$CACHE/unit-tests.json" | tail -1 | sed 's/"executable":"//; s/"$//')
# Left out, each by name so the list can only shrink. The first two need a Python interpreter,
# and the Wine prefix has none. The third: Wine 8's GetExtendedTcpTable gives every socket the
# owner pid 0, so no pid's listening ports can be told apart (the table itself is read and
# checked by platform::windows::tests::the_listener_tables_hold_a_listening_socket).
UNIX_ONLY=(
  adapters::debugpy::breakpoints::tests::definitions_are_found_and_told_apart_by_python_itself
  adapters::debugpy::tests::files_with_breakpoints_at_launch_are_the_users_code_under_just_my_code
  platform::windows::tests::a_listening_socket_of_this_process_is_found_by_its_port
)
skips=()
for name in "${UNIX_ONLY[@]}"; do skips+=(--skip "$name"); done
if ( cd "$SMOKE" && timeout 600 $WINE "$unit" --test-threads 1 --exact "${skips[@]}" \
       >"$CACHE/wine-unit.log" 2>&1 ); then
  grep -E '^test result' "$CACHE/wine-unit.log"
else
  status=1
  grep -E '^test .* FAILED|^test result|panicked' "$CACHE/wine-unit.log" | head -20
fi

echo "== under Wine: a session with the mock adapter, through the named pipe"
echo '{"exit_code_on_continue": 3}' >"$SMOKE/script.json"
cat >"$SMOKE/config.toml" <<TOML
[daemon]
grace_period_secs = 60
[adapters.mock]
command = '$(windows_path "$BIN/examples/mock_adapter.exe")'
args = ["--script", '$(windows_path "$SMOKE/script.json")']
TOML
export DEBUGGER_CONFIG
DEBUGGER_CONFIG=$(windows_path "$SMOKE/config.toml")
export DEBUGGER_SESSION=smoke
# A runtime dir of the run's own, which `start` creates for this user alone (owner and DACL).
export DEBUGGER_RUNTIME_DIR
DEBUGGER_RUNTIME_DIR=$(windows_path "$SMOKE/runtime")
# Each step: the command, then a text its one JSON line must hold.
smoke() {
  local expect=$1; shift
  ( cd "$SMOKE" && timeout 60 $WINE "$BIN/debugger.exe" "$@" >"$SMOKE/out" 2>"$SMOKE/err" )
  if grep -q -- "$expect" "$SMOKE/out"; then
    echo "   ok: debugger $*"
  else
    status=1
    echo "   FAILED: debugger $* (wanted $expect)"
    head -c 600 "$SMOKE/out" "$SMOKE/err"
  fi
}
smoke 'debugger 0' --version
smoke 'Usage: debugger' --help
# `start` answers with the first stop (the mock adapter stops at once).
smoke '"state":"stopped"' --json start --adapter mock 'C:\windows\notepad.exe'
smoke '"session":"smoke"' --json status
smoke '"function":"main"' --json backtrace
smoke '"exit_code":3' --json continue --wait --timeout 30
smoke '"session":"smoke"' --json sessions
smoke '"ok":true' --json stop
smoke '"code":"no_session"' --json status
# A runtime dir others may read (Wine gives a 0755 directory an entry for Everyone) is refused.
mkdir -m 755 "$SMOKE/open"
DEBUGGER_RUNTIME_DIR=$(windows_path "$SMOKE/open") \
  smoke 'is open to other users (its access list admits S-1-1-0 (Everyone))' --json status

# A script reads `start` through a pipe: the daemon it starts must not hold that pipe open, or
# the reader waits forever. The reader must see the end within a minute.
( cd "$SMOKE" && $WINE "$BIN/debugger.exe" --json start --adapter mock 'C:\windows\notepad.exe' \
    | cat >"$SMOKE/piped" ) &
reader=$!
for _ in $(seq 60); do
  kill -0 "$reader" 2>/dev/null || break
  sleep 1
done
if kill -0 "$reader" 2>/dev/null; then
  status=1
  echo "   FAILED: 'debugger start | cat' did not end: the daemon holds the caller's pipe"
  $WINESERVER -k >/dev/null 2>&1
elif grep -q '"state":"stopped"' "$SMOKE/piped"; then
  echo "   ok: debugger start | cat ends with the answer"
else
  status=1
  echo "   FAILED: debugger start | cat: $(head -c 300 "$SMOKE/piped")"
fi
smoke '"ok":true' --json stop
exit $status
