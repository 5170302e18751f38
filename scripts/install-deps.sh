#!/usr/bin/env bash
# Installs what the test suite needs, idempotently:
#   - Go modules (from the module proxy through go.mod), ahead of the tests;
#   - Node 22 and the external MCP clients the e2e tests drive (the
#     official conformance suite and the MCP Inspector CLI), from the npm
#     registry into .cache/node (git-ignored); see scripts/lib-node.sh and
#     docs/external-clients.md.
# A second run checks the installed versions and does nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "go: downloading modules of go.mod"
go mod download

# shellcheck source=scripts/lib-node.sh
source scripts/lib-node.sh
oa2mcp_install_node
