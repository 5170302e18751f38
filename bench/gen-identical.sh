#!/usr/bin/env bash
# gen-identical.sh OLD NEW: generates each of the 21 corpus specs with two
# oa2mcp binaries (`generate --spec SPEC --out DIR/x --package x
# --runtime-dir runtime`) and compares the trees (diff -r) and the
# printed messages (output folders named alike); exits 1 on any
# difference. Corpus: $OA2MCP_CORPUS, else ../shared/corpus beside the
# repository.
set -uo pipefail
[ $# -eq 2 ] || { sed -n '2,7p' "$0"; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${OA2MCP_CORPUS:-$ROOT/../shared/corpus}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail=0
for s in box-3.0.json digitalocean-3.0/DigitalOcean-public.v2.yaml discourse-3.1.json go-admin-2.0.json \
  kubernetes-2.0.json matrix-cs-3.1/api/client-server/key_backup.yaml matrix-cs-3.1/api/client-server/sync.yaml \
  oai-api-with-examples-3.0.yaml oai-petstore-2.0.json oai-petstore-3.0.yaml oai-petstore-expanded-3.0.yaml \
  oai-petstore-separate-2.0/spec/swagger.yaml oai-tictactoe-3.1.yaml oai-webhook-example-3.1.yaml openai-3.1.yaml \
  redocly-museum-3.1.yaml slack-web-2.0.json stripe-2018-3.0.yaml swagger-petstore-3.0.yaml swagger-petstore-3.1.yaml \
  twilio-api-v2010-3.0.json; do
  for b in old new; do
    bin=$1; [ $b = new ] && bin=$2
    rm -rf "$D/$b"; mkdir -p "$D/$b"
    (cd "$D/$b" && "$bin" generate --spec "$CORPUS/$s" --out x --package x --runtime-dir "$ROOT/runtime" >msgs 2>&1; echo "exit $?" >>msgs)
  done
  if diff -r "$D/old" "$D/new" >/dev/null; then
    echo "same $s ($(find "$D/new/x" -type f | wc -l) files, $(tail -1 "$D/new/msgs"))"
  else
    echo "DIFFERENT $s"; diff -r "$D/old" "$D/new" | head -20; fail=1
  fi
done
exit $fail
