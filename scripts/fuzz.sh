#!/usr/bin/env bash
# Fuzz the C++ core: build the libFuzzer harnesses of cpp/fuzz/ (RAPIDGRADE_FUZZ=ON: clang,
# -fsanitize=fuzzer,address,undefined), write their seed corpora from the test data, and run each
# harness for a fixed number of executions. Fails when any harness reports a crash, a sanitizer
# finding, a broken invariant, a leak or a timeout; the reproducer is left in build/fuzz/crashes/.
#
#   scripts/fuzz.sh [RUNS]            RUNS executions per harness (default 200000)
#   FUZZ_ONLY="fuzz_equiv fuzz_extract" scripts/fuzz.sh 10000     a subset of the harnesses
#
# Installs clang from the distribution's packages (Debian/Ubuntu: clang and the compiler-rt
# libraries with libFuzzer) when clang++ is missing, so it works on a fresh machine (as root, or
# with sudo). Environment: JOBS (build parallelism, default: all cores), FUZZ_TIMEOUT (seconds one
# input may take before it counts as a hang, default 10), FUZZ_MAX_LEN (default 4096 bytes).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200000}
build=build/fuzz

install_clang() {
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
  # Debian 12 ships clang 14; libFuzzer and the sanitizer runtimes are in libclang-rt-14-dev.
  local rt
  rt=$(apt-cache policy 'libclang-rt-*-dev' 2>/dev/null | sed -n 's/^\(libclang-rt-[0-9]*-dev\):$/\1/p' | sort -V | tail -n 1 || true)
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang ${rt:-libclang-rt-dev} >/dev/null
}

cxx=${CXX_FUZZ:-}
if [ -z "$cxx" ]; then
  if ! command -v clang++ >/dev/null 2>&1; then
    echo "fuzz.sh: clang++ not found; installing clang from the distribution's packages" >&2
    install_clang
  fi
  cxx=$(command -v clang++)
fi

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
  -DRAPIDGRADE_FUZZ=ON -DRAPIDGRADE_WERROR=ON >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}"

rm -rf "$build/seeds"
python3 -m scripts.fuzz_seeds "$build/seeds" >/dev/null
mkdir -p "$build/crashes" "$build/corpus"

harnesses=${FUZZ_ONLY:-$(cd "$build" && ls fuzz_* | grep -v '\.' || true)}
[ -n "$harnesses" ] || { echo "fuzz.sh: no harness built" >&2; exit 1; }
failed=()
total_runs=0
for h in $harnesses; do
  mkdir -p "$build/corpus/$h"
  start=$(date +%s%N)
  # New inputs go to build/fuzz/corpus/<h> (kept between runs); the seeds are read only.
  if "$build/$h" -runs="$runs" -max_len="${FUZZ_MAX_LEN:-4096}" -timeout="${FUZZ_TIMEOUT:-10}" \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/crashes/$h-" \
      "$build/corpus/$h" "$build/seeds/$h" >"$build/$h.log" 2>&1; then
    status=ok
  else
    status=FAILED
    failed+=("$h")
  fi
  ms=$((($(date +%s%N) - start) / 1000000))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/$h.log" | tail -n 1)
  total_runs=$((total_runs + ${execs:-0}))
  printf '%-18s %-6s %10s execs %6d.%01d s\n' "$h" "$status" "${execs:-?}" $((ms / 1000)) $((ms % 1000 / 100))
done
echo "total: $total_runs executions"
if [ ${#failed[@]} -gt 0 ]; then
  for h in "${failed[@]}"; do
    echo "== $h: $build/$h.log" >&2
    grep -E 'ERROR|SUMMARY|invariant|runtime error|Test unit written' "$build/$h.log" | head -n 20 >&2 || true
  done
  exit 1
fi
