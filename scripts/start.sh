#!/usr/bin/env bash
# Set up (first time only) and start the app on the bundled demo corpus with offline models.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec .venv/bin/streamlit run app.py --server.headless true --server.port "${PORT:-8501}" "$@"
