#!/usr/bin/env bash
# npm start: installs what is missing, generates code, applies migrations, builds if the
# sources changed, and serves the dashboard on http://localhost:${PORT:-3000}
# (scripts/serve.ts: Next.js plus a fast lane for the hottest cached reads).
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
# The AWS SDK warns that its releases after January 2027 need Node 22; the pinned one runs on 20.
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "varal: installing dependencies"
  npm ci --no-audit --no-fund
fi
npm run --silent generate
npm run --silent db:migrate

stamp=.next/varal-build-stamp
sources=$(find app server lua prisma next.config.js instrumentation.ts package-lock.json -type f -newer "$stamp" 2>/dev/null | grep -v "/generated/" | head -n 1 || true)
if [ ! -f "$stamp" ] || [ -n "$sources" ]; then
  echo "varal: building"
  npx next build
  touch "$stamp"
fi
exec npx tsx scripts/serve.ts
