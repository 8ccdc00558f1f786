#!/usr/bin/env bash
# Builds and runs the fdatasync hand-off harness (Benchmarks/FsyncHandOff): where a durable one-at-a-time request's
# sync should run. Usage: run-fsync-handoff.sh [ROUNDS] [COUNT]. Env: CC (default cc, else the Swift toolchain's
# clang), DIR (the file's directory, default .build, on the project's disk).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${DIR:-.build}
mkdir -p "$dir"
compiler=${CC:-$(command -v cc || command -v clang)}
binary=$(mktemp "${TMPDIR:-/tmp}/handoff.XXXXXX")
trap 'rm -f "$binary"' EXIT
"$compiler" -O2 -Wall -Wextra -o "$binary" Benchmarks/FsyncHandOff/handoff.c -lpthread
echo "machine: $(nproc) cores; uptime: $(uptime)"
"$binary" "$dir" "${1:-7}" "${2:-3000}"
