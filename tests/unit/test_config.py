"""GradeConfig / EquivConfig: values, the keyword layer, and one validation with one error style."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest

import rapidgrade
from rapidgrade import (
    EquivConfig,
    GradeConfig,
    Tri,
    _core,
    equivalent,
    equivalent_many,
    grade,
    grade_many,
)
from rapidgrade.config import UNSET


def test_configs_are_frozen_slotted_hashable_values() -> None:
    a = GradeConfig(last_number=False, equiv=EquivConfig(float_rounding=2))
    b = GradeConfig(last_number=False, equiv=EquivConfig(float_rounding=2))
    assert a == b and hash(a) == hash(b)
    assert len({a, b, GradeConfig()}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.last_number = True  # type: ignore[misc]
    assert not hasattr(a, "__dict__") and not hasattr(a.equiv, "__dict__")
    assert rapidgrade.GradeConfig is GradeConfig and rapidgrade.EquivConfig is EquivConfig


def test_defaults_are_those_of_the_core() -> None:
    """Each default is written once (config.py); the compiled core's keyword defaults agree."""
    e = EquivConfig()
    assert (e.rel_tol, e.abs_tol, e.float_rounding) == (1e-9, 1e-12, None)
    g = GradeConfig()
    assert (g.last_number, g.fallback, g.timeout, g.equiv) == (True, True, 5.0, e)


def test_keywords_override_the_config() -> None:
    cfg = EquivConfig(float_rounding=2)
    assert equivalent("0.5", "0.504", config=cfg) is Tri.TRUE
    assert equivalent("0.5", "0.504", config=cfg, float_rounding=3) is Tri.FALSE
    assert equivalent_many([("0.5", "0.504")], config=cfg) == [Tri.TRUE]
    strict = GradeConfig(last_number=False, fallback=False)
    assert grade("4", "so it is 4", config=strict).reason.startswith("no explicit final answer")
    assert grade("4", "so it is 4", config=strict, last_number=True).correct
    # a flat equivalence keyword replaces that field of config.equiv only
    built = GradeConfig.build(
        "f",
        GradeConfig(equiv=EquivConfig(rel_tol=1e-3, float_rounding=2)),
        float_rounding=4,
    )
    assert built.equiv == EquivConfig(rel_tol=1e-3, float_rounding=4)
    assert GradeConfig.build("f", built) is built
    assert GradeConfig.build("f", None, timeout=UNSET) == GradeConfig()


def test_grade_many_with_config_matches_keywords() -> None:
    golds, responses = ["0.5", "3"], [r"\boxed{0.504}", "the answer is 3"]
    by_config = grade_many(
        golds,
        responses,
        config=GradeConfig(fallback=False, equiv=EquivConfig(float_rounding=2)),
    )
    by_keywords = grade_many(golds, responses, fallback=False, float_rounding=2)
    assert by_config == by_keywords
    assert by_config.correct.tolist() == [True, True]


def test_timeout_none_and_inf_mean_no_limit() -> None:
    assert GradeConfig(timeout=None).timeout is None
    assert GradeConfig(timeout=math.inf) == GradeConfig(timeout=None)
    assert GradeConfig.build("grade_many", None, timeout=math.inf).timeout is None
    assert GradeConfig(timeout=2).timeout == 2


BAD_EQUIV: list[tuple[dict[str, Any], type[Exception], str]] = [
    (
        {"float_rounding": 2.7},
        TypeError,
        "float_rounding must be an int or None, not float",
    ),
    (
        {"float_rounding": True},
        TypeError,
        "float_rounding must be an int or None, not bool",
    ),
    ({"float_rounding": 99}, ValueError, "float_rounding must be in [0, 15], got 99"),
    ({"float_rounding": -1}, ValueError, "float_rounding must be in [0, 15], got -1"),
    ({"rel_tol": -1}, ValueError, "rel_tol must be a finite number >= 0, got -1"),
    (
        {"abs_tol": math.nan},
        ValueError,
        "abs_tol must be a finite number >= 0, got nan",
    ),
    ({"rel_tol": True}, TypeError, "rel_tol must be a number, not bool"),
    ({"abs_tol": "0"}, TypeError, "abs_tol must be a number, not str"),
]

BAD_GRADE: list[tuple[dict[str, Any], type[Exception], str]] = [
    *BAD_EQUIV,
    ({"last_number": 1}, TypeError, "last_number must be a bool, not int"),
    ({"fallback": None}, TypeError, "fallback must be a bool, not NoneType"),
    ({"timeout": 0}, ValueError, "timeout must be a positive number or None, got 0"),
    (
        {"timeout": -1.0},
        ValueError,
        "timeout must be a positive number or None, got -1.0",
    ),
    (
        {"timeout": math.nan},
        ValueError,
        "timeout must be a positive number or None, got nan",
    ),
    (
        {"timeout": -math.inf},
        ValueError,
        "timeout must be a positive number or None, got -inf",
    ),
    ({"timeout": True}, TypeError, "timeout must be a number, not bool"),
]


@pytest.mark.parametrize(("options", "error", "message"), BAD_EQUIV)
def test_bad_equivalence_options_name_function_and_option(
    options: dict[str, Any], error: type[Exception], message: str
) -> None:
    for name, call in [
        ("equivalent", lambda: equivalent("1", "1", **options)),
        ("equivalent_many", lambda: equivalent_many([("1", "1")], **options)),
        ("grade_many", lambda: grade_many(["1"], ["1"], **options)),
        ("grade", lambda: grade("1", "1", **options)),
        # the compiled core converts its keywords in one place, with the same rules and words
        ("equivalent", lambda: _core.equivalent("1", "1", **options)),
        ("equivalent_many", lambda: _core.equivalent_many([("1", "1")], **options)),
        ("grade_fast_many", lambda: _core.grade_fast_many(["1"], ["1"], **options)),
    ]:
        with pytest.raises(error) as info:
            call()
        assert str(info.value) == f"{name}: {message}"
    with pytest.raises(error) as info:
        EquivConfig(**options)
    assert str(info.value) == f"EquivConfig: {message}"


@pytest.mark.parametrize(("options", "error", "message"), BAD_GRADE)
def test_bad_grade_options_name_function_and_option(
    options: dict[str, Any], error: type[Exception], message: str
) -> None:
    for name, call in [
        ("grade_many", lambda: grade_many(["1"], ["1"], **options)),
        ("grade", lambda: grade("1", "1", **options)),
    ]:
        with pytest.raises(error) as info:
            call()
        assert str(info.value) == f"{name}: {message}"
    equiv_names = {f.name for f in dataclasses.fields(EquivConfig)}
    if not set(options) & equiv_names:
        with pytest.raises(error) as info:
            GradeConfig(**options)
        assert str(info.value) == f"GradeConfig: {message}"


def test_bad_threads_and_config_types() -> None:
    with pytest.raises(TypeError, match=r"^grade_many: threads must be an int or None, not float$"):
        grade_many(["1"], ["1"], threads=2.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^equivalent_many: threads must be >= 1, got 0$"):
        equivalent_many([("1", "1")], threads=0)
    with pytest.raises(TypeError, match=r"^grade_many: workers must be an int or None, not str$"):
        grade_many(["1"], ["1"], workers="2")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^grade_fast_many: threads must be an int or None, not bool$"):
        _core.grade_fast_many(["1"], ["1"], threads=True)
    with pytest.raises(TypeError, match=r"^grade: config must be a GradeConfig, not EquivConfig$"):
        grade("1", "1", config=EquivConfig())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^equivalent: config must be an EquivConfig, not GradeConfig$"):
        equivalent("1", "1", config=GradeConfig())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^GradeConfig: equiv must be an EquivConfig, not dict$"):
        GradeConfig(equiv={})  # type: ignore[arg-type]


def test_a_kept_config_is_never_given_for_an_option_of_another_type() -> None:
    # built configs are kept by their options' values and types: a valid call first must not let
    # an equal value of a refused type through later (True == 1, 2.0 == 2)
    assert rapidgrade.grade("3", "It is 3", last_number=True).correct is True
    with pytest.raises(TypeError, match="last_number must be a bool"):
        rapidgrade.grade("3", "It is 3", last_number=1)
    rapidgrade.grade("3", "3", float_rounding=2)
    with pytest.raises(TypeError, match="float_rounding"):
        rapidgrade.grade("3", "3", float_rounding=2.0)
    a = GradeConfig.build("f", None, last_number=False, timeout=2.0)
    assert a is GradeConfig.build("f", None, timeout=2.0, last_number=False)
    assert a == GradeConfig(last_number=False, timeout=2.0)
