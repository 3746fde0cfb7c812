#!/usr/bin/env bash
# Set up (first time only) and start the app on the bundled demo corpus with offline models.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
port="${PORT:-8501}"

# Warm-up (issue 13): as soon as the server listens, ask it to run app.py once through Streamlit's script health
# check (server.scriptHealthCheckEnabled in .streamlit/config.toml). That run imports the app's modules, opens the run
# store (importing the demo run on a first start) and reads the demo findings while the browser is still loading
# Streamlit's frontend, so the first page only draws. Best effort: it gives up quietly after 60 s, and a server on
# another address simply is not warmed up.
warm_up() {
  local _
  for _ in $(seq 600); do
    if { printf 'GET /_stcore/script-health-check HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 && cat <&3; } \
        3<>"/dev/tcp/127.0.0.1/$port" >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.1
  done
}
warm_up </dev/null >/dev/null 2>&1 &

exec .venv/bin/streamlit run app.py --server.headless true --server.port "$port" "$@"
