#!/usr/bin/env bash
# The project's test command: installs the pinned npm test dependencies
# (scripts/test-deps.sh), then runs every Go test with the race detector.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/test-deps.sh
echo "test: go test -race -count=1 -timeout 10m ./..."
go test -race -count=1 -timeout 10m ./...
