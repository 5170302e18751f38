#!/usr/bin/env bash
# Installs what the test suite needs, idempotently. Go modules come from
# the module proxy through go.mod; this fetches them ahead of the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
go mod download
