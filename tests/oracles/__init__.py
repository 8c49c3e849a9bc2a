"""Plain-Python reference implementations (oracles) of rapidgrade's rules.

Used by the parity tests and as the baselines the benchmarks time rapidgrade against; none of them
is shipped in the package, and none calls rapidgrade.

- ``reference_extract``: answer extraction and normalization (the C++ cascade, written with ``re``);
  its parts are the ``reference_*`` modules beside it (its docstring lists them).
- ``hendrycks_grader``: the Hendrycks MATH-style grader (last box, ``strip_string``, equality).
- ``absa_oracle`` and ``absa_data``: the sentiment-tuple (ABSA) rules and a seeded record generator.
"""
