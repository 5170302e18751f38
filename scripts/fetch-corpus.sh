#!/usr/bin/env bash
# Fetches the public spec corpus the tests read ($OA2MCP_CORPUS, else
# ../shared/corpus beside the repository) for a clone outside the usual
# layout: every file listed in scripts/corpus.sha256 from its public
# source at the pinned commit (raw GitHub URLs at the full commit), each
# checked against its sha256.
#
#   scripts/fetch-corpus.sh DIR            fetch into DIR, then check it
#   scripts/fetch-corpus.sh --verify DIR   only check DIR (no network)
#
# Then: export OA2MCP_CORPUS=DIR. The check reports every missing or
# changed file at once and fails if there is any.
set -euo pipefail
list="$(cd "$(dirname "$0")" && pwd)/corpus.sha256"

usage() { echo "usage: $0 [--verify] DIR" >&2; exit 2; }

# verify DIR: every listed file is there with its sha256.
verify() {
  local dir=$1 bad
  [ -d "$dir" ] || { echo "fetch-corpus: $dir is not a folder" >&2; return 1; }
  bad=$(cd "$dir" && grep -v '^#' "$list" | awk -F'\t' '{print $1 "  " $2}' | sha256sum --quiet --check - 2>/dev/null |
    sed -e 's/^\(.*\): FAILED open or read$/missing: \1/' -e 's/^\(.*\): FAILED$/changed: \1/' || true)
  if [ -n "$bad" ]; then
    echo "fetch-corpus: $dir does not match scripts/corpus.sha256 ($(echo "$bad" | wc -l) files):" >&2
    echo "$bad" >&2
    echo "fetch-corpus: run scripts/fetch-corpus.sh $dir to fetch the listed files again" >&2
    return 1
  fi
  echo "fetch-corpus: $dir matches scripts/corpus.sha256 ($(grep -vc '^#' "$list") files)"
}

# fetch DIR: each listed file from raw.githubusercontent.com at its commit.
fetch() {
  local dir=$1
  mkdir -p "$dir"
  grep -v '^#' "$list" | while IFS=$'\t' read -r _ path repo commit src; do
    printf '%s\t%s\n' "https://raw.githubusercontent.com/$repo/$commit/$src" "$dir/$path"
  done | while IFS=$'\t' read -r url out; do
    mkdir -p "$(dirname "$out")"
    curl --fail --silent --show-error --location --retry 3 -o "$out" "$url" || echo "fetch-corpus: cannot fetch $url" >&2
  done
  [ -f "$dir/README.md" ] || printf '# oa2mcp test corpus (public)\n\nFetched by scripts/fetch-corpus.sh; sources and sha256 in scripts/corpus.sha256.\n' > "$dir/README.md"
}

case "${1:-}" in
  --verify) [ $# -eq 2 ] || usage; verify "$2" ;;
  -*|"") usage ;;
  *) [ $# -eq 1 ] || usage; fetch "$1"; verify "$1" ;;
esac
