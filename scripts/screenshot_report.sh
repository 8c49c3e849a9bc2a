#!/usr/bin/env bash
# Render a scoring report in headless Chromium and save a screenshot, to see the page as a
# person does.
#
#   scripts/screenshot_report.sh [REPORT_HTML] [OUT_PNG]
#
# Defaults: rapidgrade-out/report.html -> rapidgrade-out/report.png. Installs Debian's
# chromium-headless-shell with apt-get when no Chromium is on the PATH (needs root).
set -euo pipefail
report=${1:-rapidgrade-out/report.html}
out=${2:-${report%.html}.png}
[ -f "$report" ] || { echo "no report at $report (run 'rapidgrade score' first)" >&2; exit 2; }
browser=$(command -v chromium-headless-shell || command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null
  browser=$(command -v chromium-headless-shell)
fi
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,1800 \
  --screenshot="$(realpath -m "$out")" "file://$(realpath "$report")" 2>/dev/null
echo "screenshot: $out"
