#!/usr/bin/env bash
# gen-ab.sh OLD NEW ROUNDS [SPEC...]: whole-process `oa2mcp generate` of
# corpus specs with two oa2mcp binaries (before and after a change)
# against bench/kinload (kin-openapi loading the same spec), interleaved
# per spec and round (old, new, kin; a fresh output folder each time),
# best of ROUNDS wall time each (and the ratio of medians, which the
# host's noise moves more), with the load average at both ends. No
# SPEC: the 21 corpus specs of docs/benchmarks.md. Corpus:
# $OA2MCP_CORPUS, else ../shared/corpus beside the repository.
#
#   go build -o /tmp/old ./cmd/oa2mcp   # at the old commit
#   go build -o /tmp/new ./cmd/oa2mcp   # at the new one
#   bench/gen-ab.sh /tmp/old /tmp/new 5
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,14p' "$0"; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=$1 NEW=$2 N=$3; shift 3
CORPUS=${OA2MCP_CORPUS:-$ROOT/../shared/corpus}
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(box-3.0.json digitalocean-3.0/DigitalOcean-public.v2.yaml discourse-3.1.json go-admin-2.0.json
  kubernetes-2.0.json matrix-cs-3.1/api/client-server/key_backup.yaml matrix-cs-3.1/api/client-server/sync.yaml
  oai-api-with-examples-3.0.yaml oai-petstore-2.0.json oai-petstore-3.0.yaml oai-petstore-expanded-3.0.yaml
  oai-petstore-separate-2.0/spec/swagger.yaml oai-tictactoe-3.1.yaml oai-webhook-example-3.1.yaml openai-3.1.yaml
  redocly-museum-3.1.yaml slack-web-2.0.json stripe-2018-3.0.yaml swagger-petstore-3.0.yaml swagger-petstore-3.1.yaml
  twilio-api-v2010-3.0.json)
KIN=$(mktemp -d)/kinload
(cd "$ROOT/bench" && go build -o "$KIN" ./kinload)
T=$(mktemp -d)
trap 'rm -rf "$T" "$(dirname "$KIN")"' EXIT
now() { date +%s%N; }
# keep NAME ELAPSED records one elapsed time per name; best and median
# read them back.
declare -A times
keep() { times[$1]="${times[$1]:-} $2"; }
best() { tr ' ' '\n' <<<"${times[$1]}" | sed '/^$/d' | sort -n | head -1; }
median() { tr ' ' '\n' <<<"${times[$1]}" | sed '/^$/d' | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| spec | kin s | old s | old / kin | new s | new / kin | new / old | new / kin, medians |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for s in "${specs[@]}"; do
  p=$CORPUS/$s
  sw=(); case $s in *-2.0*) sw=(-swagger) ;; esac
  times=()
  kinok=1
  for _ in $(seq "$N"); do
    for b in old new; do
      bin=$OLD; [ $b = new ] && bin=$NEW
      rm -rf "$T/x"
      a=$(now); "$bin" generate --spec "$p" --out "$T/x" --package x --runtime-dir "$ROOT/runtime" >/dev/null 2>&1 || true; keep $b $(( $(now) - a ))
    done
    a=$(now); "$KIN" "${sw[@]}" "$p" >/dev/null 2>&1 || kinok=0; keep kin $(( $(now) - a ))
  done
  awk -v s="$s" -v o="$(best old)" -v n="$(best new)" -v k="$(best kin)" -v mn="$(median new)" -v mk="$(median kin)" -v ok=$kinok 'BEGIN {
    if (ok) printf "| `%s` | %.3f | %.3f | %.2f | %.3f | %.2f | %.2f | %.2f |\n", s, k/1e9, o/1e9, o/k, n/1e9, n/k, n/o, mn/mk
    else printf "| `%s` | kin fails | %.3f | n/a | %.3f | n/a | %.2f | n/a |\n", s, o/1e9, n/1e9, n/o }'
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
