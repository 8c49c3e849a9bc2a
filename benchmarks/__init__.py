"""rapidgrade's benchmarks: each ``bench_<concern>.py`` times rapidgrade against its peer.

Run them as modules from the repository root, so that the shared helpers (``benchmarks._common``),
the plain-Python oracles (``tests.oracles``) and the test data (``tests.datasets``) are imported by
name, without editing ``sys.path``::

    python -m benchmarks.bench_extract            # the installed rapidgrade
    PYTHONPATH=python python -m benchmarks.bench_extract   # the working tree (after scripts/dev_build.sh)

Every input is inside the repository or the installed package (the packaged demo set,
rapidgrade/data/qwen25_math_cot_800.jsonl; tests/data); results go to benchmarks/results/.
"""
