#!/usr/bin/env bash
# One command for every benchmark table: oa2mcp on the public spec corpus
# and, in the same run, the npm peer openapi-mcp-generator@4.0.1, then the
# fuzz targets run longer. Prints Markdown; see docs/benchmarks.md.
#
# Usage: scripts/bench.sh [--quick] [--fuzztime 60s] [--no-fuzz] [--no-percall] [-- SUITE FLAGS]
#   --quick       3 runs per spec, spec to server on petstore and stripe only,
#                 no cold-cache builds, no slow-upstream case, 10 s per fuzz target
#   --fuzztime D  time per fuzz target (default 60s, quick 10s)
#   --no-fuzz     skip fuzzing
#   --no-percall  skip the per-call overhead table (bench/run.sh)
#   --fuzz-only   only the fuzzing table
# Installs what it needs, idempotently: Node 22 into .cache/node
# (scripts/lib-node.sh), the peer and its servers' dependencies into
# .cache/peer, and builds the Go peer jedisct1/openapi-mcp into
# .cache/jedisct1 from a git copy of it (env OA2MCP_JEDISCT1_SRC: a bare
# git dir or a checkout; default /work/.mirror/jedisct1+openapi-mcp/repo,
# never committed); without it the side-by-side table says it is missing.
# Scratch files go to .cache/bench (wiped at start), the output also to
# .cache/bench-results.md.
#   Only the side-by-side per-call table and cold start:
#     scripts/bench.sh --no-fuzz --no-percall -- -steps peers,coldstart
#   Only generation against kin-openapi and side by side with oapi-codegen
#   (v2.8.2, built from the Go module proxy into .cache/oapi-codegen):
#     scripts/bench.sh --no-fuzz --no-percall -- -steps wholegen,oapicodegen
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

quick=0 fuzz=1 percall=1 suite=1 fuzztime=""
suite_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --no-fuzz) fuzz=0 ;;
    --no-percall) percall=0 ;;
    --fuzz-only) suite=0; percall=0 ;;
    --fuzztime) fuzztime="$2"; shift ;;
    --fuzztime=*) fuzztime="${1#*=}" ;;
    --) shift; suite_args=("$@"); break ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$fuzztime" ] || { [ $quick = 1 ] && fuzztime=10s || fuzztime=60s; }

PEER_VERSION=4.0.1
PEER_DIR="$ROOT/.cache/peer"
WORK="$ROOT/.cache/bench"
BIN="$ROOT/.cache/bench-bin"
RESULTS="$ROOT/.cache/bench-results.md"
log() { echo "[bench.sh $(date +%H:%M:%S)] $*" >&2; }

# --- Node 22 (the peer needs >= 20; type stripping needs 22) -------------
# shellcheck source=lib-node.sh
source scripts/lib-node.sh
if [ "$("$OA2MCP_NODE_BIN/node" --version 2>/dev/null || true)" != "v$OA2MCP_NODE_VERSION" ]; then
  log "installing Node $OA2MCP_NODE_VERSION into .cache/node"
  oa2mcp_install_node >&2
fi
NODE="$OA2MCP_NODE_BIN/node"
export PATH="$OA2MCP_NODE_BIN:$PATH"

# --- the peer, and one installed dependency tree for its servers ----------
peer_npm() {
  npm install --no-audit --no-fund --no-update-notifier --loglevel=warn --cache "$ROOT/.cache/npm" "$@" >&2
}
have=$("$NODE" -p "require('$PEER_DIR/node_modules/openapi-mcp-generator/package.json').version" 2>/dev/null || true)
if [ "$have" != "$PEER_VERSION" ]; then
  log "installing openapi-mcp-generator@$PEER_VERSION into .cache/peer (found: ${have:-none})"
  mkdir -p "$PEER_DIR"
  [ -f "$PEER_DIR/package.json" ] || echo '{"private":true}' >"$PEER_DIR/package.json"
  (cd "$PEER_DIR" && peer_npm --save-exact "openapi-mcp-generator@$PEER_VERSION")
fi
if [ ! -x "$PEER_DIR/deps/node_modules/typescript/bin/tsc" ] || [ ! -d "$PEER_DIR/deps/node_modules/@modelcontextprotocol/sdk" ]; then
  log "installing the peer's generated-server dependencies into .cache/peer/deps"
  tmp=$(mktemp -d)
  "$NODE" "$PEER_DIR/node_modules/openapi-mcp-generator/bin/openapi-mcp-generator.js" \
    -i "$ROOT/examples/petstore/openapi.yaml" -o "$tmp/out" -b http://127.0.0.1:9 --force >"$tmp/gen.log" 2>&1 \
    || { cat "$tmp/gen.log" >&2; exit 1; }
  mkdir -p "$PEER_DIR/deps"
  # the generated package.json, name neutralised: the same for every spec
  "$NODE" -e 'const p=require(process.argv[1]); p.name="peer-deps"; p.description=""; require("fs").writeFileSync(process.argv[2], JSON.stringify(p,null,2))' \
    "$tmp/out/package.json" "$PEER_DIR/deps/package.json"
  rm -rf "$tmp"
  (cd "$PEER_DIR/deps" && peer_npm)
fi

# --- jedisct1/openapi-mcp (Go, reads the spec at run time) ----------------
# Built from a git copy into .cache/jedisct1 (git-ignored), once per commit;
# its modules come from the Go module proxy. A failure is reported and
# the rest is measured.
JEDISCT1_SRC="${OA2MCP_JEDISCT1_SRC:-/work/.mirror/jedisct1+openapi-mcp/repo}"
JEDISCT1_DIR="$ROOT/.cache/jedisct1"
JEDISCT1_BIN="$JEDISCT1_DIR/openapi-mcp"
build_jedisct1() {
  local commit src="$JEDISCT1_DIR/src"
  if [ -f "$JEDISCT1_SRC/HEAD" ] && [ -d "$JEDISCT1_SRC/objects" ]; then
    commit=$(git --git-dir="$JEDISCT1_SRC" rev-parse HEAD) || return 1
    if [ -x "$JEDISCT1_BIN" ] && [ "$(cat "$JEDISCT1_DIR/commit" 2>/dev/null)" = "$commit" ]; then return 0; fi
    rm -rf "$src" && mkdir -p "$src"
    git --git-dir="$JEDISCT1_SRC" archive HEAD | tar -x -C "$src" || return 1
  elif [ -f "$JEDISCT1_SRC/go.mod" ]; then
    commit=checkout
    rm -rf "$src" && mkdir -p "$src" && cp -R "$JEDISCT1_SRC/." "$src/" || return 1
  else
    log "jedisct1/openapi-mcp: no git copy at $JEDISCT1_SRC (set OA2MCP_JEDISCT1_SRC); the suite measures the rest"
    return 1
  fi
  log "building jedisct1/openapi-mcp ($commit) into .cache/jedisct1"
  (cd "$src" && GOWORK=off GOFLAGS=-mod=mod go build -o "$JEDISCT1_BIN" ./cmd/openapi-mcp) >&2 || {
    log "jedisct1/openapi-mcp: go build failed (its modules must come from the Go module proxy; see above)"
    rm -f "$JEDISCT1_BIN"
    return 1
  }
  echo "$commit" >"$JEDISCT1_DIR/commit"
}
build_jedisct1 || true

# --- oapi-codegen, the Go generator of the side-by-side generation table ---
# Built from the Go module proxy into .cache/oapi-codegen once per version;
# a failure is reported and the rest is measured.
OAPI_VERSION=v2.8.2
OAPI_DIR="$ROOT/.cache/oapi-codegen"
if [ "$(cat "$OAPI_DIR/version" 2>/dev/null)" != "$OAPI_VERSION" ] || [ ! -x "$OAPI_DIR/oapi-codegen" ]; then
  log "building oapi-codegen $OAPI_VERSION into .cache/oapi-codegen"
  mkdir -p "$OAPI_DIR"
  if GOWORK=off GOBIN="$OAPI_DIR" go install "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$OAPI_VERSION" >&2; then
    echo "$OAPI_VERSION" >"$OAPI_DIR/version"
  else
    log "oapi-codegen: go install failed (see above); the suite measures the rest"
  fi
fi

# --- binaries ---------------------------------------------------------------
mkdir -p "$BIN"
log "building oa2mcp and the suite"
go build -o "$BIN/oa2mcp" ./cmd/oa2mcp
go build -o "$BIN/suite" ./bench/suite
go build -o "$BIN/petstore-backend" ./examples/petstore/cmd/petstore-backend
go build -o "$BIN/kinload" ./bench/kinload

suite_flags=(-root "$ROOT" -work "$WORK" -oa2mcp "$BIN/oa2mcp" -peer "$PEER_DIR" -node "$NODE" -json "$ROOT/.cache/bench-results.json"
  -backend "$BIN/petstore-backend" -jedisct1 "$JEDISCT1_BIN" -kinload "$BIN/kinload" -oapi-codegen "$OAPI_DIR/oapi-codegen")
[ $quick = 1 ] && suite_flags+=(-quick -runs 3)

start=$(date +%s)
{
  if [ $suite = 1 ]; then
    "$BIN/suite" "${suite_flags[@]}" "${suite_args[@]}"
  fi

  if [ $percall = 1 ]; then
    echo "## Per-call overhead (bench/run.sh)"
    echo
    if [ $quick = 1 ]; then n=500; else n=2000; fi
    echo "\`bench/run.sh -n $n -c 8\`"
    echo
    bench/run.sh -n $n -c 8 2>&1 || echo "bench/run.sh failed (exit $?); its output is above"
    echo
  fi

  if [ $fuzz = 1 ]; then
    echo "## Fuzzing (-fuzztime $fuzztime per target)"
    echo
    # Run in a copy of the sources so that a crasher, which go test writes
    # to testdata/fuzz/ of its package, lands in .cache/bench/fuzz/main and
    # not in the tree; crashers are listed below, to become regression tests.
    # The copy gets a ../shared/corpus beside it, as the fuzz seeds expect.
    corpus="${OA2MCP_CORPUS:-$ROOT/../shared/corpus}"
    rm -rf "$WORK/fuzz"
    src="$WORK/fuzz/main"
    mkdir -p "$src" "$WORK/fuzz/shared"
    ln -s "$(cd "$corpus" && pwd)" "$WORK/fuzz/shared/corpus"
    tar --exclude=./.cache --exclude=./.git -cf - . | tar -C "$src" -xf -
    echo "| package | target | fuzz time | wall s | result | new crasher |"
    echo "|---|---|---|---:|---|---|"
    total=0
    while IFS=: read -r file name <&3; do
      pkg="./$(dirname "$file")"
      t0=$(date +%s)
      touch "$WORK/fuzz-start"
      set +e
      (cd "$src" && go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -parallel 2 "$pkg") </dev/null >"$WORK/fuzz-$name.log" 2>&1
      rc=$?
      set -e
      t=$(( $(date +%s) - t0 )); total=$((total + t))
      if [ $rc = 0 ]; then res="ok: $(grep -Eo 'elapsed: [^,]+, execs: [0-9]+' "$WORK/fuzz-$name.log" | tail -1)"; else res="**FAIL** (exit $rc), log: .cache/bench/fuzz-$name.log"; fi
      crash=$(cd "$src" && find "$(dirname "$file")/testdata/fuzz/$name" -newer "$WORK/fuzz-start" -type f 2>/dev/null | head -3 | tr '\n' ' ' || true)
      if [ -n "$crash" ]; then
        mkdir -p "$ROOT/.cache/bench-crashers"
        (cd "$src" && cp $crash "$ROOT/.cache/bench-crashers/")
        crash="$crash(copied to .cache/bench-crashers/)"
      fi
      echo "| \`$pkg\` | \`$name\` | $fuzztime | $t | $res | ${crash:-none} |"
    done 3< <(grep -rHoE '^func Fuzz[A-Za-z0-9_]*' --include='*_test.go' generator overrides | sed 's/:func /:/' | sort)
    echo
    echo "Fuzzing wall time: ${total} s in total."
    echo
  fi
  if [ $suite = 1 ]; then
    # The override-file generator test, longer than in go test ./...
    # (240 files): every file a new seed, the same invariants.
    files=3000; [ $quick = 1 ] && files=600
    echo "## Random override files (generator/ovgen, $files files)"
    echo
    t0=$(date +%s)
    if go test -count=1 -run '^TestOverrideFiles$' -v -timeout 60m ./generator/ovgen -ovgen.files=$files -ovgen.seed=100000 >"$WORK/ovgen.log" 2>&1; then
      grep -E 'files, .* tools|paging chains' "$WORK/ovgen.log" | sed 's/^ *ovgen_test.go:[0-9]*: /- /'
    else
      echo "**FAIL**: the failing seeds and their minimised files are in .cache/bench/ovgen.log"
    fi
    echo
    echo "Wall time: $(( $(date +%s) - t0 )) s."
    echo
  fi
  echo "Whole run: $(( $(date +%s) - start )) s."
} | tee "$RESULTS"
log "results also in ${RESULTS#$ROOT/}"
