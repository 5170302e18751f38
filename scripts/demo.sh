#!/usr/bin/env bash
# Generates the petstore example server and serves it over Streamable HTTP
# against the bundled petstore backend. Stop it with Ctrl-C.
#   MCP endpoint:  http://127.0.0.1:8080/mcp
#   backend API:   http://127.0.0.1:8081/api/v3
set -euo pipefail
cd "$(dirname "$0")/.."
go generate ./examples/petstore
mkdir -p bin
go build -o bin/ ./examples/petstore/cmd/petstore ./examples/petstore/cmd/petstore-backend
bin/petstore-backend --addr 127.0.0.1:8081 &
backend=$!
trap 'kill $backend 2>/dev/null' EXIT
bin/petstore --transport http --addr "${ADDR:-127.0.0.1:8080}" --base-url http://127.0.0.1:8081/api/v3
