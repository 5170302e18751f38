#!/usr/bin/env bash
# Runs the whole oa2mcp test suite: formatting and vet checks, the drift
# check of the committed example, and every Go test (unit, golden,
# end-to-end over stdio and Streamable HTTP, and the public spec corpus).
# Installs what the tests need first; safe to run again and again.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== tools"
scripts/install-deps.sh

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== drift check of the committed examples"
go run ./cmd/oa2mcp generate -c examples/petstore/oa2mcp.yaml --check
go run ./cmd/oa2mcp generate -c examples/aftersales/oa2mcp.yaml --check

echo "== go test"
go test -count=1 -timeout 60m ./...

echo "== go test -race (generator and runtime)"
go test -count=1 -race -timeout 20m ./generator ./generator/build/... ./generator/emit/... ./generator/write/... ./overrides/... ./internal/... ./examples/...

echo "== fuzz (a few seconds each; scripts/bench.sh runs them longer)"
go test -run '^$' -fuzz '^FuzzLoad$' -fuzztime 10s ./generator/load/
go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime 5s ./overrides/
go test -run '^$' -fuzz '^FuzzBuildRequest$' -fuzztime 5s ./generator/emit/runtime/
