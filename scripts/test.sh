#!/usr/bin/env bash
# npm test: starts the services the tests need, builds, and runs every suite
# (unit, integration against real brokers and PostgreSQL, e2e in Debian's Chromium).
# Extra arguments go to vitest, e.g. `npm test -- --project unit`.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
# The AWS SDK warns that its releases after January 2027 need Node 22; the pinned one runs on 20.
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true

if [ ! -d node_modules ]; then npm ci --no-audit --no-fund; fi

# Debian's Chromium for the browser tests, promtool (package prometheus) to check /metrics,
# libcurl for varal-agent's reports and clang for the libFuzzer run on its header parser.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
[ -f /usr/include/x86_64-linux-gnu/curl/curl.h ] || [ -f /usr/include/curl/curl.h ] || missing+=(libcurl4-openssl-dev)
command -v clang >/dev/null 2>&1 || missing+=(clang)
if [ ${#missing[@]} -gt 0 ]; then
  echo "test: installing ${missing[*]} from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

bash scripts/services.sh
make -C native-agent test
npm run --silent generate
npx tsc --noEmit
npx next build
npx vitest run "$@"
