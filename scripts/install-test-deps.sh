#!/usr/bin/env bash
# Installs what the test suite needs that cargo does not fetch: a C/C++ compiler and lldb-dap.
# Idempotent: does nothing when everything is present. Uses apt as root (or through sudo).
set -euo pipefail

need=()
have_lldb_dap() {
  command -v lldb-dap >/dev/null 2>&1 && return 0
  compgen -c lldb-dap- >/dev/null 2>&1 && return 0
  ls /usr/bin/lldb-dap-* >/dev/null 2>&1
}
have_lldb_dap || need+=(lldb-19)
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v c++ >/dev/null 2>&1 || need+=(g++)

if ((${#need[@]} == 0)); then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "error: the tests need: ${need[*]}; install them with: apt-get install -y ${need[*]}" >&2
  exit 1
fi

echo "installing: ${need[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${need[@]}"
