#!/usr/bin/env bash
# Create .venv and install the pinned requirements (skipped when they have not changed since the last install).
# torch==2.13.0 is listed in requirements.txt, so it is installed in the same pip command as transformers and
# sentence-transformers and pip takes the CPU build instead of a multi-GB CUDA one.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
stamp=.venv/.requirements.sha256
want=$(cat requirements.txt requirements-dev.txt requirements-nodeps.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt -r requirements-dev.txt
  .venv/bin/pip install --quiet --disable-pip-version-check --no-deps -r requirements-nodeps.txt
  .venv/bin/pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
  echo "$want" > "$stamp"
fi
