#!/usr/bin/env bash
# The Python package's tests (issue 18): a virtual environment of their own
# (build/pyenv), the package built from this checkout with pip (kdt itself,
# through scikit-build-core), JAX and pytest from the package index; then
# pytest on python/tests, with the compile cache of the other tests.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build/pyenv
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv "$venv"
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1
"$venv/bin/pip" install -q "./python[test]"
KDT_CACHE_DIR=${KDT_CACHE_DIR:-$PWD/build/kdt-cache} "$venv/bin/python" -m pytest -q python/tests
