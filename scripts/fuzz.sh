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
# input may take before it counts as a hang, default 10), FUZZ_MAX_LEN (default 4096 bytes),
# FUZZ_MAX_TIME (seconds after which a harness stops even if it has not reached RUNS executions,
# default 0: no cap), FUZZ_JOBS (harness runs at once, default: one per core; each is one process
# on one core), FUZZ_TOTAL_TIME (seconds of wall time for all the runs together, default 0: no
# budget; the runs are dealt to FUZZ_JOBS lanes, and each run may take the budget still left
# divided by its lane's runs still to go, so time a quick harness leaves over goes to the slower
# ones; .ci/run sets one so that the fuzzing fits its time budget).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200000}
build=build/fuzz

apt_install() {
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

cxx=${CXX_FUZZ:-}
if [ -z "$cxx" ]; then
  if ! command -v clang++ >/dev/null 2>&1; then
    echo "fuzz.sh: clang++ not found; installing clang from the distribution's packages" >&2
    # The `clang` package depends on clang-N (14 on Debian 12), whose libFuzzer and sanitizer
    # runtimes are in libclang-rt-N-dev where that package exists (older releases bundle them).
    apt_install clang
    version=$(apt-cache depends clang 2>/dev/null | sed -n 's/^ *Depends: clang-\([0-9][0-9]*\)$/\1/p' | head -n 1)
    if [ -n "$version" ] && apt-cache show "libclang-rt-$version-dev" >/dev/null 2>&1; then
      apt_install "libclang-rt-$version-dev"
    fi
  fi
  cxx=$(command -v clang++)
fi
if ! command -v cmake >/dev/null 2>&1; then apt_install cmake; fi
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi

cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
  -DRAPIDGRADE_FUZZ=ON -DRAPIDGRADE_WERROR=ON >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}"

rm -rf "$build/seeds"
python3 -m scripts.fuzz_seeds "$build/seeds" >/dev/null
mkdir -p "$build/crashes" "$build/corpus"

harnesses=${FUZZ_ONLY:-$(cd "$build" && ls fuzz_* | grep -v '\.' || true)}
[ -n "$harnesses" ] || { echo "fuzz.sh: no harness built" >&2; exit 1; }
budget=${FUZZ_TOTAL_TIME:-0}
lanes=${FUZZ_JOBS:-$(nproc)}
[ "$lanes" -ge 1 ] || lanes=1
fuzz_start=$(date +%s)
reports="$build/reports"
rm -rf "$reports"
mkdir -p "$reports"
# The runs, one per line: harness, label (its log and crashes), executions, environment. The
# scanning loops have an AVX2 and an SSE2 form (the core picks one per process): on a machine
# with AVX2 the first runs test the AVX2 form; the harnesses of the scanners run again, a tenth as
# long, on the SSE2 form.
plan=()
for h in $harnesses; do plan+=("$h $h $runs"); done
for h in $(printf '%s\n' $harnesses | grep -xE 'fuzz_scan|fuzz_extract' || true); do
  plan+=("$h $h-sse2 $((runs / 10)) RAPIDGRADE_NO_AVX2=1")
done
# run_harness NAME LABEL RUNS CAP [VAR=VALUE...]: runs harness NAME for RUNS executions or CAP
# seconds (its log and crashes under LABEL) with the environment variables given; prints its
# report line and writes it to $reports/LABEL.
run_harness() {
  local h=$1 label=$2 n=$3 cap=$4 status ms execs start line
  shift 4
  mkdir -p "$build/corpus/$h"
  start=$(date +%s%N)
  # New inputs go to build/fuzz/corpus/<h> (kept between runs); the seeds are read only.
  if env "$@" "$build/$h" -runs="$n" -max_len="${FUZZ_MAX_LEN:-4096}" -timeout="${FUZZ_TIMEOUT:-10}" \
      -max_total_time="$cap" \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/crashes/$label-" \
      "$build/corpus/$h" "$build/seeds/$h" >"$build/$label.log" 2>&1; then
    status=ok
  else
    status=FAILED
  fi
  ms=$((($(date +%s%N) - start) / 1000000))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/$label.log" | tail -n 1)
  line=$(printf '%-18s %-6s %10s execs %6d.%01d s (cap %s s)' "$label" "$status" "${execs:-?}" $((ms / 1000)) \
    $((ms % 1000 / 100)) "$cap")
  echo "$line"
  echo "$status ${execs:-0} $line" >"$reports/$label"
}
# run_lane K: the runs K, K + lanes, K + 2 lanes, ... of the plan, one after the other. Each may
# take FUZZ_MAX_TIME, or the lane's share of the budget still left when that is smaller (the
# budget over the lane's runs still to go, at least one second: libFuzzer reads 0 as no limit),
# so time a quick harness leaves over goes to the slower ones of its lane.
run_lane() {
  local k left=0 cap share
  for ((k = $1; k < ${#plan[@]}; k += lanes)); do left=$((left + 1)); done
  for ((k = $1; k < ${#plan[@]}; k += lanes)); do
    cap=${FUZZ_MAX_TIME:-0}
    if [ "$budget" -gt 0 ]; then
      share=$(((budget - ($(date +%s) - fuzz_start)) / left))
      [ "$share" -ge 1 ] || share=1
      if [ "$cap" -eq 0 ] || [ "$share" -lt "$cap" ]; then cap=$share; fi
    fi
    left=$((left - 1))
    # shellcheck disable=SC2086  # the plan's fields: harness, label, executions, environment
    run_harness $(echo "${plan[k]}" | cut -d' ' -f1-3) "$cap" $(echo "${plan[k]}" | cut -s -d' ' -f4-)
  done
}
# FUZZ_JOBS lanes (default: one per core) run at once: a harness is one process on one core.
for ((lane = 0; lane < lanes; lane++)); do run_lane "$lane" & done
wait
failed=()
total_runs=0
for entry in "${plan[@]}"; do
  label=$(echo "$entry" | cut -d' ' -f2)
  if [ -f "$reports/$label" ]; then
    read -r status execs _ <"$reports/$label"
  else
    status=FAILED execs=0
  fi
  total_runs=$((total_runs + execs))
  [ "$status" = ok ] || failed+=("$label")
done
echo "total: $total_runs executions"
if [ ${#failed[@]} -gt 0 ]; then
  for h in "${failed[@]}"; do
    echo "== $h: $build/$h.log" >&2
    grep -E 'ERROR|SUMMARY|invariant|runtime error|Test unit written' "$build/$h.log" | head -n 20 >&2 || true
  done
  exit 1
fi
