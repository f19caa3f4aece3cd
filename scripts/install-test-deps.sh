#!/usr/bin/env bash
# Installs what the test suite needs that cargo does not fetch: a C/C++ compiler, CMake (CTest),
# Google Test, lldb-dap, a JDK and Maven (with the JUnit and Kotlin fixtures' artifacts), Node.js
# and npm (apt), PHP with Xdebug and PHPUnit (apt), Ruby, RSpec and Bundler (apt), Go and Delve (see below), debugpy
# and pytest (pip), the TypeScript fixture's tools, vitest and jest (npm), and the official MCP
# Python SDK (pip, into a virtualenv of its own). Idempotent: does nothing when everything is
# present.
#
# Go and Delve: where a Go is already here, Delve must be one that can debug what it builds. Debian
# 12's Delve (1.20) reads programs of Go 1.20 and older only, so for a newer Go the pinned Delve
# below is built with `go install` from the Go module proxy into `$(go env GOBIN)` (else
# `$(go env GOPATH)/bin`), where the debugger looks for it, on PATH or not. Go and Delve come from
# apt only where there is no Go at all: Debian's pair (Go 1.19, Delve 1.20) works together.
# Uses apt as root (or through sudo).
set -euo pipefail

need=()
have_lldb_dap() {
  command -v lldb-dap >/dev/null 2>&1 && return 0
  ls /usr/bin/lldb-dap-* >/dev/null 2>&1
}
have_lldb_dap || need+=(lldb-19)
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v c++ >/dev/null 2>&1 || need+=(g++)
# The minor version of the Go here (26 for go1.26.8), empty where there is none.
go_minor() { go env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9][0-9]*\).*/\1/p'; }
debian_delve_reads_go_up_to=20
if ! command -v go >/dev/null 2>&1; then
  need+=(golang-go)
  command -v dlv >/dev/null 2>&1 || need+=(delve)
elif [ "$(go_minor)" -le "$debian_delve_reads_go_up_to" ] 2>/dev/null; then
  command -v dlv >/dev/null 2>&1 || need+=(delve)
fi
command -v ctest >/dev/null 2>&1 || need+=(cmake)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
command -v python3 >/dev/null 2>&1 || need+=(python3 python3-pip)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
# A JDK (javac and the jdk.jdi module) for doctor's java check.
command -v javac >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
# Maven, for `debugger test` on the JUnit fixture projects, and to build the Kotlin fixtures (its
# kotlin plugin; no kotlinc is needed).
command -v mvn >/dev/null 2>&1 || need+=(maven)
command -v node >/dev/null 2>&1 || command -v nodejs >/dev/null 2>&1 || need+=(nodejs)
# Ruby bundles the debug gem, whose DAP server is the rdbg adapter (tests/ruby.rs).
command -v ruby >/dev/null 2>&1 || need+=(ruby)
# RSpec, for `debugger test` on the RSpec fixture (minitest comes with Ruby).
command -v rspec >/dev/null 2>&1 || need+=(ruby-rspec)
# Bundler, for `debugger test` on the fixture with a Gemfile (run through `bundle exec`).
command -v bundle >/dev/null 2>&1 || need+=(bundler)
# Rack, the gem tests/ruby_library.rs breaks in.
ls /usr/share/rubygems-integration/all/specifications/rack-*.gemspec >/dev/null 2>&1 ||
    need+=(ruby-rack)
command -v npm >/dev/null 2>&1 || need+=(npm)
# PHP with Xdebug 3 for the PHP adapter, and PHPUnit for `debugger test` on PHP.
command -v php >/dev/null 2>&1 || need+=(php-cli)
php -m 2>/dev/null | grep -qx 'Xdebug' || need+=(php-xdebug)
command -v phpunit >/dev/null 2>&1 || need+=(phpunit)
# Symfony's YAML component, the library tests/php_library.rs breaks in.
[[ -f /usr/share/php/Symfony/Component/Yaml/autoload.php ]] || need+=(php-symfony-yaml)

if ((${#need[@]} > 0)); then
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
fi

# A Go newer than Debian's Delve reads gets the pinned Delve, built by `go install`.
delve_version=1.27.2
if [ "$(go_minor)" -gt "$debian_delve_reads_go_up_to" ] 2>/dev/null; then
  go_bin="$(go env GOBIN)"
  [ -n "$go_bin" ] || go_bin="$(go env GOPATH | cut -d: -f1)/bin"
  if ! "$go_bin/dlv" version 2>/dev/null | grep -qx "Version: $delve_version"; then
    echo "installing: Delve $delve_version (go install, into $go_bin)"
    go install "github.com/go-delve/delve/cmd/dlv@v$delve_version"
  fi
  # The oldest Go the README claims (the oldest this Delve reads), which one test builds with;
  # fetched through the Go module proxy into the module cache.
  oldest_go=go1.25.0
  if ! GOTOOLCHAIN="$oldest_go" go version >/dev/null 2>&1; then
    echo "error: GOTOOLCHAIN=$oldest_go could not be fetched through the Go module proxy" >&2
    exit 1
  fi
fi

if ! python3 -c 'import debugpy' >/dev/null 2>&1; then
  echo "installing: debugpy (pip)"
  python3 -m pip install --quiet debugpy 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages debugpy
fi

# The TypeScript fixture's compiler, bundler and loader (tsc, esbuild, tsx), at the versions its
# package-lock pins: installed again whenever the lock changes.
typescript_fixture="$(dirname "$0")/../fixtures/typescript"
if ! cmp -s "$typescript_fixture/package-lock.json" "$typescript_fixture/node_modules/.lock-installed" 2>/dev/null; then
  echo "installing: the TypeScript fixture's tools (npm ci)"
  (cd "$typescript_fixture" && npm ci --no-audit --no-fund --loglevel=error \
    && cp package-lock.json node_modules/.lock-installed)
fi

# vitest and jest, for `debugger test` and child-process debugging on their fixture projects, at
# the versions their package-locks pin: installed again whenever a lock changes. `npm install
# --no-save`, not `npm ci`: npm 11 leaves other platforms' optional bindings (jest's
# @unrs/resolver-binding-*) out of the lock it writes, then `npm ci` calls that lock out of sync
# and installs nothing (npm/cli#4828); `install` follows the lock's versions all the same.
for runner in vitest jest; do
  runner_fixture="$(dirname "$0")/../fixtures/tests/$runner"
  if ! cmp -s "$runner_fixture/package-lock.json" "$runner_fixture/node_modules/.lock-installed" 2>/dev/null; then
    echo "installing: the $runner fixture's tools (npm install)"
    (cd "$runner_fixture" && npm install --no-save --no-audit --no-fund --loglevel=error \
      && cp package-lock.json node_modules/.lock-installed)
  fi
done

# pytest, for `debugger test` on the Python fixture project.
if ! python3 -c 'import pytest' >/dev/null 2>&1; then
  echo "installing: pytest (pip)"
  python3 -m pip install --quiet pytest 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages pytest
fi

# The Maven artifacts `debugger test` needs for the JUnit fixtures (fixtures/java/shop and the
# conformance project): the build's plugins and dependencies, the dependency plugin that writes
# the class path, and the JUnit console launcher of the fixtures' platform version. Fetched by
# the same Maven calls the debugger makes, in a copy of the fixture, so the tests run offline.
java_fixture_build="$(mktemp -d)"
cp -r "$(dirname "$0")/../fixtures/java/shop/." "$java_fixture_build"
(
  cd "$java_fixture_build"
  mvn -q -B test-compile \
    org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
    -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=test
  mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.8.1:get \
    -Dartifact=org.junit.platform:junit-platform-console-standalone:1.14.4 -Dtransitive=false
)
rm -rf "$java_fixture_build"

# The MCP Python SDK that tests/mcp.rs drives `debugger mcp` with, in a virtualenv of its own
# (it needs a newer Python stack than the system's packages; tests/mcp.rs looks in the same place).
mcp_venv="${DEBUGGER_TEST_MCP_VENV:-/opt/debugger-test/mcp-venv}"
if ! "$mcp_venv/bin/python" -c 'import mcp, jsonschema' >/dev/null 2>&1; then
  echo "installing: mcp (pip, into $mcp_venv)"
  as_root=()
  if ! mkdir -p "$mcp_venv" 2>/dev/null || [ ! -w "$mcp_venv" ]; then
    as_root=(sudo)
    sudo mkdir -p "$mcp_venv"
  fi
  "${as_root[@]}" python3 -m venv "$mcp_venv"
  "${as_root[@]}" "$mcp_venv/bin/pip" install --quiet 'mcp>=1.10' jsonschema
fi

# The Maven builds of the JVM fixtures that tests build as their users do (the Kotlin ones: the
# kotlin plugin, kotlin-stdlib; the Java program on commons-lang3; the dependency plugin that
# writes their class path), fetched once by building each in a scratch copy, so the tests build
# them offline (`mvn -o`). A Kotlin project is skipped when the local repository holds the
# kotlin plugin and kotlin-stdlib of its `kotlin.version` (one build fetches those and the rest
# together, where an offline build to find out takes some 25 s); any other is fetched when its
# offline build fails.
kotlin_repository="$HOME/.m2/repository/org/jetbrains/kotlin"
for maven_project in fixtures/kotlin/shop tests/fixtures/conformance/kotlin fixtures/java/library; do
  maven_fixture="$(dirname "$0")/../$maven_project"
  kotlin_version="$(sed -n 's:.*<kotlin.version>\(.*\)</kotlin.version>.*:\1:p' "$maven_fixture/pom.xml")"
  if [ -n "$kotlin_version" ] \
    && [ -f "$kotlin_repository/kotlin-maven-plugin/$kotlin_version/kotlin-maven-plugin-$kotlin_version.jar" ] \
    && [ -f "$kotlin_repository/kotlin-stdlib/$kotlin_version/kotlin-stdlib-$kotlin_version.jar" ]; then
    continue
  fi
  scratch="$(mktemp -d)"
  cp -r "$maven_fixture/." "$scratch"
  build=(mvn -q -B package -DskipTests dependency:build-classpath -Dmdep.outputFile=target/classpath.txt)
  if ! (cd "$scratch" && "${build[@]}" -o >/dev/null 2>&1); then
    echo "installing: the Maven artifacts of $maven_project"
    (cd "$scratch" && "${build[@]}")
  fi
  rm -rf "$scratch"
done

# A GDB with DAP (14+): Debian 12's is 13.1, so this may fetch Debian 13's into a private root.
"$(dirname "$0")/install-test-gdb.sh"
