#!/usr/bin/env bash
# Installs what the test suite needs, idempotently:
#   - Go modules (from the module proxy through go.mod), ahead of the tests,
#     and the Go modules that ship specs of the discovery evaluation;
#   - the OAuth fixture (authserver, notesapi) into .cache/bin;
#   - Node 22 and the external MCP clients the e2e tests drive (the
#     official conformance suite and the MCP Inspector CLI), from the npm
#     registry into .cache/node (git-ignored); see scripts/lib-node.sh and
#     docs/external-clients.md.
# A second run checks the installed versions and does nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "go: downloading modules of go.mod"
go mod download

# Public API descriptions that Go modules ship, for the discovery
# evaluation (testdata/discovery/requests): CI reaches the module proxy,
# not GitHub. The go command checks each module against the checksum
# database; each spec file read is also checked against
# scripts/gomod-specs.sha256.
OA2MCP_SPEC_MODULES=(
  github.com/hashicorp/vault-client-go@v0.4.3
  code.gitea.io/gitea@v1.27.3
)
echo "go: downloading the spec modules ${OA2MCP_SPEC_MODULES[*]}"
go mod download "${OA2MCP_SPEC_MODULES[@]}"
root="$PWD"
if ! (cd "$(go env GOMODCACHE)" && grep -v '^#' "$root/scripts/gomod-specs.sha256" | sha256sum --quiet --check -); then
  echo "install-deps: a spec file of a Go module does not match scripts/gomod-specs.sha256" >&2
  exit 1
fi

# The OAuth fixture of the per-user credential tests: a real authorization
# server (zitadel/oidc's example provider) and a real notes API, a module
# of their own (e2e/oauthfixture, outside go.work) built into .cache/bin.
echo "oauth fixture: building authserver and notesapi into .cache/bin"
(cd e2e/oauthfixture && GOWORK=off go build -o ../../.cache/bin/ ./cmd/authserver ./cmd/notesapi)

# shellcheck source=scripts/lib-node.sh
source scripts/lib-node.sh
oa2mcp_install_node

# redis-server (Debian package) for the two-replica handle-store test in
# examples/aftersales; the test starts its own instance on loopback.
if ! command -v redis-server >/dev/null 2>&1; then
  echo "redis-server: installing the Debian package"
  SUDO=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi
  $SUDO apt-get update && $SUDO apt-get install -y redis-server
else
  echo "redis-server: $(command -v redis-server)"
fi

# nginx (Debian package) as the load balancer of the deployment test in
# examples/aftersales (three replicas behind it); the test starts its own
# instance on loopback. Sentinel and Cluster tests use redis-server itself
# (--sentinel, --cluster-enabled) and redis-cli, both from redis-server.
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  echo "nginx: installing the Debian package"
  SUDO=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi
  $SUDO apt-get update && $SUDO apt-get install -y --no-install-recommends nginx
else
  echo "nginx: $(command -v nginx || echo /usr/sbin/nginx)"
fi
