#!/usr/bin/env bash
# Runs the whole oa2mcp test suite: formatting and vet checks, the drift
# check of the committed examples, and every Go test of every module of
# the repository (unit, golden, the runtime, the examples, and with the
# e2e build tag the end-to-end tests over stdio and Streamable HTTP, the
# external MCP clients and the public spec corpus). Installs what the
# tests need first; safe to run again and again. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# Every module of the repository (go.work lists them); "./..." alone
# covers only the root module.
PKGS=(./... ./runtime/... ./runtime/prommetrics/... ./runtime/redisstore/... ./examples/... ./bench/...)

echo "== tools"
scripts/install-deps.sh

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed:"; echo "$unformatted"; exit 1
fi

echo "== the spec corpus against scripts/corpus.sha256"
scripts/fetch-corpus.sh --verify "${OA2MCP_CORPUS:-../shared/corpus}"

echo "== go vet"
go vet -tags e2e "${PKGS[@]}"
(cd e2e/oauthfixture && GOWORK=off go vet ./...)

echo "== drift check of the committed examples"
go run ./cmd/oa2mcp generate -c examples/petstore/oa2mcp.yaml --check
go run ./cmd/oa2mcp generate -c examples/aftersales/oa2mcp.yaml --check
go run ./cmd/oa2mcp generate -c examples/notes/oa2mcp.yaml --check
go run ./cmd/oa2mcp generate -c examples/conformance/oa2mcp.yaml --check

echo "== go test"
go test -count=1 -tags e2e -timeout 60m "${PKGS[@]}"

echo "== go test of the runtime and the examples with the fast path compiled out"
go test -count=1 -tags oa2mcp_nofastpath -timeout 20m ./runtime/... ./examples/...

echo "== generated call tests of the golden cases (testdata is not part of ./...)"
go test -count=1 -timeout 10m ./testdata/*/want/

echo "== go test -race (generator, runtime and examples)"
go test -count=1 -race -timeout 20m ./generator ./generator/mapping/... ./generator/internal/... ./generator/emit/... ./generator/write/... ./generator/lint/... ./overrides/... ./internal/... ./runtime/... ./examples/...
# the loader's Swagger 2.0 split decodes on the workers; the rest of load is one goroutine
go test -count=1 -race -timeout 10m -run 'SplitDecode' ./generator/load/

echo "== fuzz (a few seconds each, counted in executions: a -fuzztime in seconds races go1.26's fuzz coordinator at its deadline, golang/go#75804; scripts/bench.sh runs them longer)"
go test -run '^$' -fuzz '^FuzzLoad$' -fuzztime 3000x ./generator/load/
go test -run '^$' -fuzz '^FuzzMembers$' -fuzztime 20000x ./runtime/internal/plainjson/
go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime 3000x ./overrides/
go test -run '^$' -fuzz '^FuzzBuildRequest$' -fuzztime 15000x ./runtime/
