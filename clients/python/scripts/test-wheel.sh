#!/usr/bin/env bash
# The Python client as users get it: the wheel built with `python -m build`, installed with its
# mcp extra into a fresh venv for each Python from 3.10 to 3.13 found on this machine (always at
# least python3), and the tests run against that installed wheel from a directory outside the
# source tree, so src/ is never importable (tests/test_installed_wheel.py checks it).
#
#   clients/python/scripts/test-wheel.sh [TOOLS_VENV]   (TOOLS_VENV has build and pytest; default .cache/python-venv)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
tools=${1:-$repo/.cache/python-venv}
work=$repo/.cache/python-wheel
pytest_pin=$(grep -E '^pytest==' "$repo/test/requirements.txt")
# fastmcp's client, for tests/test_third_party_fastmcp.py (a third-party MCP client against the
# Gateway); it needs Python 3.11 or newer, so that file runs on those only.
fastmcp_pin="fastmcp==4.2.3"
# JSON Schema validation for tests/test_wire_schemas.py (the Gateway's wire as JSON Schema); a
# test dependency only, the client does not import it.
jsonschema_pin="jsonschema==4.26.0"

rm -rf "$work/dist" && mkdir -p "$work"
"$tools/bin/python" -m build --wheel --outdir "$work/dist" "$repo/clients/python" >"$work/build.log" 2>&1 || {
  cat "$work/build.log" >&2
  exit 1
}
# setuptools leaves its work folders in the source tree.
rm -rf "$repo/clients/python/build" "$repo"/clients/python/src/*.egg-info
wheel=$(ls "$work"/dist/countersign-*.whl)

# Interpreters by minor version: python3.1x on the PATH, then pyenv's, then python3 itself.
candidates=()
for minor in 10 11 12 13; do
  # pyenv's shims on the PATH are skipped: they answer for whichever version pyenv selects.
  p=$(command -v "python3.$minor" 2>/dev/null || true)
  [ -n "$p" ] && [[ "$p" != */shims/* ]] && candidates+=("$p")
  for root in "${PYENV_ROOT:-}" "${HOME:-/root}/.pyenv"; do
    [ -n "$root" ] || continue
    for p in "$root"/versions/3."$minor".*/bin/python3."$minor"; do
      [ -x "$p" ] && candidates+=("$p")
    done
  done
done
candidates+=("$(command -v python3)")

declare -A chosen=()
versions=()
for python in "${candidates[@]}"; do
  v=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2]) if sys.version_info >= (3, 10) else None' 2>/dev/null) || continue
  [ -n "$v" ] && [ "$v" != None ] || continue
  [ -z "${chosen[$v]:-}" ] || continue
  # A Python without venv and ensurepip cannot make the clean venv; say so instead of failing later.
  "$python" -c 'import ensurepip, venv' >/dev/null 2>&1 || { echo "test-wheel: skipping $python (no venv/ensurepip)" >&2; continue; }
  chosen[$v]=$python
  versions+=("$v")
done
[ "${#versions[@]}" -gt 0 ] || { echo "test-wheel: no Python 3.10 or newer found" >&2; exit 1; }

outside=$(mktemp -d)
trap 'rm -rf "$outside"' EXIT
for v in $(printf '%s\n' "${versions[@]}" | sort -V); do
  venv=$work/venv-$v
  echo "== Python $v (${chosen[$v]}): $(basename "$wheel")"
  "${chosen[$v]}" -m venv --clear "$venv"
  # fastmcp where it installs (3.11+); elsewhere its test file is left out, not skipped.
  if [ "$(printf '%s\n' 3.11 "$v" | sort -V | head -1)" = 3.11 ]; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check "${wheel}[mcp]" "$pytest_pin" "$jsonschema_pin" "$fastmcp_pin"
    leave_out=()
  else
    "$venv/bin/pip" install --quiet --disable-pip-version-check "${wheel}[mcp]" "$pytest_pin" "$jsonschema_pin"
    leave_out=(--ignore="$repo/clients/python/tests/test_third_party_fastmcp.py")
  fi
  (cd "$outside" && "$venv/bin/python" -m pytest -q -p no:cacheprovider ${leave_out[@]+"${leave_out[@]}"} "$repo/clients/python/tests")
done
