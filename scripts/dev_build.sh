#!/usr/bin/env bash
# Incremental developer build: compiles the extension with CMake into build/dev and copies it
# into python/rapidgrade/, so that `PYTHONPATH=python pytest` runs against the working tree.
# (The installed package is built by `pip install .`; this is only a faster edit-compile loop.)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
pybind11_dir=$("$python" -m pybind11 --cmakedir)
cmake -S . -B build/dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DRAPIDGRADE_BUILD_PYTHON=ON \
  -DPython_EXECUTABLE="$(command -v "$python")" -Dpybind11_DIR="$pybind11_dir" >/dev/null
cmake --build build/dev -j "${JOBS:-2}"
# Replace the module by rename, never in place: a running interpreter that has the old file
# mapped would crash if its pages changed under it.
for so in build/dev/_core*.so; do
  cp "$so" "python/rapidgrade/.$(basename "$so").tmp"
  mv -f "python/rapidgrade/.$(basename "$so").tmp" "python/rapidgrade/$(basename "$so")"
done
