#!/usr/bin/env bash
# Builds stripe-mock (Stripe's own mock of its API, github.com/stripe/stripe-mock) once into
# .cache/stripe-mock/<version>/stripe-mock (ignored by Git), through the Go module proxy. The
# billing tests (test/billing/) point the official stripe package at it. No binary is downloaded
# from anywhere else.
set -euo pipefail

STRIPE_MOCK_VERSION="${STRIPE_MOCK_VERSION:-$(cat "$(dirname "$0")/version")}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${STRIPE_MOCK_DIR:-$root/.cache/stripe-mock/$STRIPE_MOCK_VERSION}"

if [[ -x "$cache/stripe-mock" ]]; then
  echo "stripe-mock $STRIPE_MOCK_VERSION already built in $cache"
  exit 0
fi
command -v go >/dev/null 2>&1 || { echo "go is required to build stripe-mock" >&2; exit 1; }
mkdir -p "$cache"
echo "building stripe-mock $STRIPE_MOCK_VERSION through the Go module proxy"
CGO_ENABLED=0 GOBIN="$cache/.bin" GOFLAGS=-mod=mod go install -trimpath -ldflags "-s -w" \
  "github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION"
mv "$cache/.bin/stripe-mock" "$cache/stripe-mock"
rmdir "$cache/.bin"
