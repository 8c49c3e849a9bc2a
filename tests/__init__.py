"""rapidgrade's test suite.

A package (with ``tests/oracles`` as a subpackage) so that the plain-Python oracles are imported
by name, ``from tests.oracles import reference_extract``, by the tests and by the benchmarks
(``python -m benchmarks.bench_extract`` from the repository root), without editing ``sys.path``.
The test folders by kind (``unit/``, ``parity/``, ``property/``, ``cli/``, ``corpora/``) are plain
folders of test modules; shared fixtures live in ``tests/conftest.py``, shared data loaders in
``tests/datasets.py``.
"""
