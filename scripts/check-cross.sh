#!/usr/bin/env bash
# Compile-checks this checkout for Windows (x86_64-pc-windows-gnu) and macOS (aarch64-apple-darwin)
# from Debian 12 x86_64, with warnings as errors, and builds the Windows binary.
#
#   scripts/check-cross.sh            # both targets, --all-targets, -D warnings; the Windows .exe
#
# Debian ships no prebuilt standard library for those targets for a current rustc, but
# bookworm-security's rustc-web/cargo-web come with rust-web-src, the standard library's source,
# so cargo builds std for the target itself (RUSTC_BOOTSTRAP=1, -Zbuild-std); mingw-w64 links the
# Windows binary. macOS is checked, not linked: no registry has Apple's SDK. Packages are fetched
# with `apt-get download` and unpacked under $DEBUGGER_CROSS_CACHE (default
# ~/.cache/debugger-cross), touching no system package: about 200 MB, a minute, once. The first
# check also builds std for both targets (a few minutes); later ones reuse the cache.
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
TARGET_DIR=$CACHE/target
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

echo "== cargo build --target x86_64-pc-windows-gnu (debugger.exe)"
log=$CACHE/build-windows.log
if ( cd "$TOP" && "$CARGO" build "${BUILD_STD[@]}" --target x86_64-pc-windows-gnu --bins --locked \
      --message-format=short --target-dir "$TARGET_DIR" ) >"$log" 2>&1; then
  echo "   built: $TARGET_DIR/x86_64-pc-windows-gnu/debug/debugger.exe"
else
  status=1
  tail -5 "$log"
fi
exit $status
