#!/usr/bin/env bash
# Render a scoring report in headless Chromium and save a screenshot, to see the page as a
# person does.
#
#   scripts/screenshot_report.sh [REPORT_HTML] [OUT_PNG] [FRAGMENT]
#
# Defaults: rapidgrade-out/report.html -> rapidgrade-out/report.png. FRAGMENT (e.g.
# '#wrong=1&method=boxed') sets the drill-down's filters. WINDOW (default 1200,1800) is the
# viewport, so the page's height that is captured. Installs Debian's chromium-headless-shell
# with apt-get when no Chromium is on the PATH (needs root).
#
# The docs' screenshot (docs/img/report.png) is made by:
#   rapidgrade score --out rapidgrade-out --reference-key qwen_grader
#   python -m rapidgrade.report rapidgrade-out --option reference_key=qwen_grader
#   WINDOW=1200,3000 scripts/screenshot_report.sh rapidgrade-out/report.html docs/img/report.png
#   WINDOW=1200,1400 scripts/screenshot_report.sh rapidgrade-out/report.html docs/img/report-wrong.png '#wrong=1'
set -euo pipefail
report=${1:-rapidgrade-out/report.html}
out=${2:-${report%.html}.png}
fragment=${3:-}
[ -f "$report" ] || { echo "no report at $report (run 'rapidgrade score' first)" >&2; exit 2; }
browser=$(command -v chromium-headless-shell || command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null
  browser=$(command -v chromium-headless-shell)
fi
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="${WINDOW:-1200,1800}" \
  --screenshot="$(realpath -m "$out")" "file://$(realpath "$report")$fragment" 2>/dev/null
echo "screenshot: $out"
