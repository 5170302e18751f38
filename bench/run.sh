#!/usr/bin/env bash
# Per-call overhead of the generated petstore server against direct HTTP.
# Usage: bench/run.sh [bench flags], e.g. bench/run.sh -n 2000 -c 8
# Prints a Markdown table; see docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/petstore" ./examples/petstore/cmd/petstore
go build -o "$tmp/petstore-backend" ./examples/petstore/cmd/petstore-backend
go build -o "$tmp/bench" ./bench
"$tmp/bench" -server "$tmp/petstore" -backend "$tmp/petstore-backend" "$@"
