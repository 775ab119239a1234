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

if [ ! -x /usr/bin/chromium ]; then
  echo "test: installing Debian's chromium for the browser tests"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

bash scripts/services.sh
npm run --silent generate
npx tsc --noEmit
npx next build
npx vitest run "$@"
