"""Every entry point of the compiled core has one signature, stated three times: by pybind11 (the
first line of its docstring), by ``_core.pyi``, and by the public wrapper. The three must agree
on parameter names, order, keyword-only markers and defaults (stub checking by name alone does not
catch a wrong default).

A wrapper default of :data:`rapidgrade.config.UNSET` means "from the config", so it is compared
through the config class's default: the core's default must be the config's.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import rapidgrade
from rapidgrade import _core
from rapidgrade.config import UNSET, EquivConfig, GradeConfig

_NO_DEFAULT = "<required>"

# (name, kind, default) per parameter; kind is "positional" (positional or keyword), "keyword"
# (keyword-only), "var_keyword" (**kwargs).
Param = tuple[str, str, object]


def _params_of_arguments(args: ast.arguments, skip_self: bool = False) -> list[Param]:
    out: list[Param] = []
    positional = [*args.posonlyargs, *args.args]
    required = len(positional) - len(args.defaults)
    for i, a in enumerate(positional):
        if skip_self and i == 0:
            continue
        default = _NO_DEFAULT if i < required else ast.literal_eval(args.defaults[i - required])
        out.append((a.arg, "positional", default))
    for a, kd in zip(args.kwonlyargs, args.kw_defaults):
        out.append((a.arg, "keyword", _NO_DEFAULT if kd is None else ast.literal_eval(kd)))
    if args.kwarg is not None:
        out.append((args.kwarg.arg, "var_keyword", _NO_DEFAULT))
    return out


def pybind_params(fn: Callable[..., Any], skip_self: bool = False) -> list[Param]:
    """The parameters pybind11 reports on the first line of the docstring."""
    first = (fn.__doc__ or "").splitlines()[0]
    name = fn.__name__
    assert first.startswith(name + "("), first
    depth = 0
    for end, ch in enumerate(first):  # noqa: B007 (end is read after the loop)
        depth += ch in "(["
        depth -= ch in ")]"
        if depth == 0 and ch == ")":
            break
    source = f"def {name}{first[len(name) : end + 1]}: ..."
    tree = ast.parse(source)
    func = tree.body[0]
    assert isinstance(func, ast.FunctionDef)
    return _params_of_arguments(func.args, skip_self)


_STUB = ast.parse(Path(_core.__file__).with_name("_core.pyi").read_text(encoding="utf-8"))


def stub_params(name: str, cls: str | None = None) -> list[Param]:
    body = _STUB.body
    if cls is not None:
        (klass,) = [n for n in body if isinstance(n, ast.ClassDef) and n.name == cls]
        body = klass.body
    funcs = [n for n in body if isinstance(n, ast.FunctionDef) and n.name == name]
    assert funcs, f"_core.pyi has no {cls + '.' if cls else ''}{name}"
    return _params_of_arguments(funcs[0].args, skip_self=cls is not None)


_CONFIG_DEFAULTS = {
    **{f.name: f.default for f in dataclasses.fields(GradeConfig)},
    **{f.name: f.default for f in dataclasses.fields(EquivConfig)},
}


def wrapper_params(fn: Callable[..., Any]) -> list[Param]:
    kinds = {
        inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
        inspect.Parameter.POSITIONAL_ONLY: "positional",
        inspect.Parameter.KEYWORD_ONLY: "keyword",
        inspect.Parameter.VAR_KEYWORD: "var_keyword",
    }
    out: list[Param] = []
    for p in inspect.signature(fn).parameters.values():
        default: object = _NO_DEFAULT if p.default is inspect.Parameter.empty else p.default
        if default is UNSET:
            default = _CONFIG_DEFAULTS[p.name]
        out.append((p.name, kinds[p.kind], default))
    return out


def core_functions() -> list[str]:
    return sorted(
        name
        for name in dir(_core)
        if not name.startswith("_") and callable(getattr(_core, name)) and not isinstance(getattr(_core, name), type)
    )


# _core function -> (public wrapper, core parameters the wrapper supplies itself, parameters the
# wrapper adds). Entry points without a public wrapper of the same shape are listed in
# _NO_WRAPPER with the reason.
_WRAPPERS: dict[str, tuple[str, set[str], set[str]]] = {
    "find_boxed": ("rapidgrade.scan.find_boxed", {"span_type"}, set()),
    "find_math_spans": ("rapidgrade.scan.find_math_spans", {"span_type"}, set()),
    "find_boxed_many": ("rapidgrade.scan.find_boxed_many", {"span_type"}, set()),
    "edit_distance": ("rapidgrade.edit_distance", set(), set()),
    "closest": ("rapidgrade.closest", set(), set()),
    "edit_distance_many": ("rapidgrade.edit_distance_many", set(), set()),
    "extract_answer": ("rapidgrade.extract.extract_answer", {"extraction_type"}, set()),
    "extract_many": ("rapidgrade.extract.extract_many", {"extraction_type"}, set()),
    "extract_fields": ("rapidgrade.extract.extract_fields", set(), set()),
    "normalize_latex": ("rapidgrade.normalize.normalize_latex", set(), set()),
    "normalize_answer": (
        "rapidgrade.normalize.normalize_answer",
        {"normalized_type"},
        set(),
    ),
    "normalize_many": ("rapidgrade.normalize.normalize_many", set(), set()),
    "normalize_answer_many": (
        "rapidgrade.normalize.normalize_answer_many",
        {"normalized_type"},
        set(),
    ),
    "parse_expr": ("rapidgrade.expr.parse_expr", set(), set()),
    "equivalent": ("rapidgrade.equiv.equivalent", set(), {"config"}),
    "equivalent_many": ("rapidgrade.equiv.equivalent_many", set(), {"config"}),
    "grade_fast_many": (
        "rapidgrade.grade.grade_many",
        {"max_answer_bytes"},  # from config (GradeConfig.max_answer_bytes)
        {"config", "workers", "progress", "timeout", "fallback", "task", "deadline"},
    ),
}
_NO_WRAPPER = {
    # wrapped by the ABSA task with its own conventions (defaults for default_missing, stage
    # names), which are the task's API, not a restatement of the core's
    "absa_canonicalize_polarity_with_repair",
    "absa_gold_aspect_term",
    "absa_normalize_for_eval",
    "absa_normalize_polarity",
    "absa_normalize_ref_for_eval",
    "absa_score",
    # wrapped by the physics task (rapidgrade.tasks.physics), which adds the SymPy conversion
    # and pint to the core's string work
    "physics_normalize",
    "physics_normalize_many",
    "physics_parse_unit",
    "physics_read_quantity",
    "physics_grade_columns",
    # wrapped by the fredholm task (ParsedOutput, evaluate_solutions), whose API is the task's
    "fredholm_parse",
    "fredholm_parse_many",
    "fredholm_read_solution",
    "fredholm_sample_many",
    # wrapped by rapidgrade.tasks.physics_eed (EEDConfig carries the costs; pint converts units);
    # the canonical tree is a debugging view read by tests/unit/test_eed.py
    "eed_score",
    "eed_score_many",
    "eed_canonical_tree",
    # wrapped by the fredholm task's residual check (IntegralEquation, ResidualConfig)
    "fredholm_residual_many",
    # internal to the math-verify compatible fast path
    "mv_boxed_winner",
    "mv_last_number",
    # the core's vocabulary tables, read by _sympy.py and checked by tests/unit/test_vocab.py
    "expr_function_table",
    "expr_text_wrappers",
    "expr_fraction_commands",
    "latex_spacing_commands",
    "latex_joiner_words",
    "unicode_spaces",
    # internal to GradeResults' packed columns (rapidgrade.verdict, rapidgrade.grade)
    "grade_tables",
    "unpack_strings",
    # internal to the scoring job's reader and writer of JSON lines (rapidgrade._io, tasks.math)
    "jsonl_pick",
    "jsonl_pick_block",
    "jsonl_splice",
    "jsonl_splice_joined",
    # which form of the scanning loops runs (AVX2 or SSE2), read by tests/unit/test_twins.py
    "vector_loops",
}


def _resolve(dotted: str) -> Callable[..., Any]:
    module, _, attr = dotted.rpartition(".")
    fn: Callable[..., Any] = getattr(importlib.import_module(module), attr)
    return fn


def test_every_core_function_is_classified() -> None:
    assert set(core_functions()) == set(_WRAPPERS) | _NO_WRAPPER


@pytest.mark.parametrize("name", core_functions())
def test_pybind_signature_matches_stub(name: str) -> None:
    assert pybind_params(getattr(_core, name)) == stub_params(name)


@pytest.mark.parametrize("method", ["tree", "evaluate"])
def test_expr_method_signature_matches_stub(method: str) -> None:
    assert pybind_params(getattr(_core.Expr, method), skip_self=True) == stub_params(method, cls="Expr")


def test_to_sympy_signature_matches_stub() -> None:
    """to_sympy is Python (rapidgrade.expr), attached to the compiled Expr."""
    assert wrapper_params(_core.Expr.to_sympy)[1:] == stub_params("to_sympy", cls="Expr")


@pytest.mark.parametrize("name", sorted(_WRAPPERS))
def test_wrapper_signature_matches_core(name: str) -> None:
    dotted, supplied, added = _WRAPPERS[name]
    if _resolve(dotted) is getattr(_core, name):  # exported as it is: one signature by construction
        assert not supplied and not added
        return
    core = [p for p in pybind_params(getattr(_core, name)) if p[0] not in supplied]
    wrapper = [p for p in wrapper_params(_resolve(dotted)) if p[0] not in added]
    assert wrapper == core
    # the names the wrapper adds really are additions, and the public name is exported
    core_names = {p[0] for p in pybind_params(getattr(_core, name))}
    assert not added & core_names
    assert added <= {p[0] for p in wrapper_params(_resolve(dotted))}
    assert hasattr(rapidgrade, dotted.rpartition(".")[2])


def test_wrapper_defaults_are_compared() -> None:
    """The comparison sees defaults, not only names: a wrong default is a mismatch."""

    def wrong(
        a: str,
        b: str,
        *,
        rel_tol: float = 1e-6,
        abs_tol: float = 1e-12,
        float_rounding: int | None = None,
    ) -> None:
        return None

    core = pybind_params(_core.equivalent)
    assert [p[0] for p in wrapper_params(wrong)] == [p[0] for p in core]
    assert wrapper_params(wrong) != core
