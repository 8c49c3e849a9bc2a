r"""Options of grading and equivalence as values: :class:`EquivConfig` and :class:`GradeConfig`.

A config is frozen, slotted and hashable, so one value can be shared by threads, used as a cache
key and written into a report. Each default is written once, here; the keyword arguments of
:func:`~rapidgrade.equivalent`, :func:`~rapidgrade.grade` and :func:`~rapidgrade.grade_many` are
a thin layer over them.

>>> cfg = GradeConfig(last_number=False, equiv=EquivConfig(float_rounding=2))
>>> cfg.timeout, cfg.equiv.rel_tol
(5.0, 1e-09)
>>> cfg == GradeConfig(last_number=False, equiv=EquivConfig(float_rounding=2))
True

Keywords and a config together: the config is the base and every keyword that is given
overrides its field (``grade_many(g, r, config=cfg, timeout=1.0)`` grades with ``cfg`` except
for the timeout).

Validation is one set of rules with one error style, ``"<where>: <option> must be ..."``, where
``<where>`` is the function that received the option, or the class name when a config is built
directly. ``bool`` is not accepted where a number is expected (``float_rounding=True`` is a
``TypeError``):

>>> EquivConfig(float_rounding=2.7)
Traceback (most recent call last):
  ...
TypeError: EquivConfig: float_rounding must be an int or None, not float
>>> GradeConfig(timeout=0)
Traceback (most recent call last):
  ...
ValueError: GradeConfig: timeout must be a positive number or None, got 0
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

__all__ = ["DEFAULT_MEMORY_LIMIT", "UNSET", "EquivConfig", "GradeConfig", "Unset"]


class Unset(enum.Enum):
    """The type of :data:`UNSET`."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"


UNSET = Unset.UNSET
"""The default of a keyword option that was not given: the value then comes from the config
(``config=``, or the defaults of :class:`GradeConfig` / :class:`EquivConfig`)."""

_MAX_FLOAT_ROUNDING = 15


def _real(where: str, name: str, value: object) -> float:
    """*value* as a float: an int or float, never a bool; else TypeError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where}: {name} must be a number, not {type(value).__name__}")
    return float(value)


def check_tolerance(where: str, name: str, value: object) -> float:
    """A tolerance: a finite number >= 0."""
    x = _real(where, name, value)
    if not (math.isfinite(x) and x >= 0):
        raise ValueError(f"{where}: {name} must be a finite number >= 0, got {value!r}")
    return x


def check_float_rounding(where: str, value: object) -> int | None:
    """None (the precision rule) or an int of decimal places in [0, 15]."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where}: float_rounding must be an int or None, not {type(value).__name__}")
    if not 0 <= value <= _MAX_FLOAT_ROUNDING:
        raise ValueError(f"{where}: float_rounding must be in [0, {_MAX_FLOAT_ROUNDING}], got {value!r}")
    return int(value)


def check_flag(where: str, name: str, value: object) -> bool:
    """A bool (not 0/1, not None)."""
    if not isinstance(value, bool):
        raise TypeError(f"{where}: {name} must be a bool, not {type(value).__name__}")
    return value


#: An int timeout beyond this many seconds (past a billion years) means no limit.
_MAX_EXACT_TIMEOUT = 10**16


def check_timeout(where: str, value: object) -> float | None:
    """Seconds per fallback pair: a positive finite number, or None / ``math.inf`` (no limit,
    returned as None). A number too large for a float (``10**400``) is no limit too."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _MAX_EXACT_TIMEOUT:
        # An int beyond any float (10**400) is clamped, not an OverflowError: a positive one
        # is as good as no limit; a negative one is refused below.
        x = math.inf if value > 0 else -math.inf
    else:
        x = _real(where, "timeout", value)
    if x == math.inf:
        return None
    if not (math.isfinite(x) and x > 0):
        shown = "a negative number beyond any float" if x == -math.inf and isinstance(value, int) else repr(value)
        raise ValueError(f"{where}: timeout must be a positive number or None, got {shown}")
    return x


#: Bytes of address space a fallback worker may use while it decides one pair (1 GiB): a warm
#: worker uses about 270 MiB of it and an ordinary pair a few MiB more; what SymPy builds past
#: that (a power like 2^{10^{10}}, an expansion of tens of thousands of terms) fails with
#: ``MemoryError`` and the pair is decided ``"limit"``.
DEFAULT_MEMORY_LIMIT = 1 << 30


def check_memory_limit(where: str, value: object) -> int | None:
    """Bytes of address space per fallback pair: None (no limit) or an int >= 64 MiB."""
    from rapidgrade._pool import check_memory_limit as check

    return check(value, where)


def check_deadline(where: str, value: object) -> float | None:
    """Seconds of wall time for a whole call: None (no deadline) or a positive number; infinity
    and ints beyond any float are no deadline (returned as None)."""
    from rapidgrade._pool import check_deadline as check

    return check(value, where)


def _check_type(where: str, name: str, value: object, cls: type) -> None:
    if not isinstance(value, cls):
        article = "an" if cls.__name__[0] in "AEIOU" else "a"
        raise TypeError(f"{where}: {name} must be {article} {cls.__name__}, not {type(value).__name__}")


def check_threads(where: str, value: object) -> int | None:
    """C++ threads of a batch: None (all cores) or an int >= 1 (not a config field: it changes
    how fast, never what)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where}: threads must be an int or None, not {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{where}: threads must be >= 1, got {value!r}")
    return value


def check_workers(where: str, value: object) -> int | None:
    """Fallback worker processes: None (the shared pool) or an int >= 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where}: workers must be an int or None, not {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{where}: workers must be >= 1, got {value!r}")
    return value


def _validate_equiv(config: EquivConfig, where: str) -> None:
    check_tolerance(where, "rel_tol", config.rel_tol)
    check_tolerance(where, "abs_tol", config.abs_tol)
    check_float_rounding(where, config.float_rounding)


def _validate_grade(config: GradeConfig, where: str) -> None:
    check_flag(where, "last_number", config.last_number)
    check_flag(where, "fallback", config.fallback)
    timeout = check_timeout(where, config.timeout)
    if timeout is None and config.timeout is not None:
        object.__setattr__(config, "timeout", None)  # math.inf is stored as None
    _check_type(where, "equiv", config.equiv, EquivConfig)
    if config.judge is not None and not callable(config.judge):
        raise TypeError(f"{where}: judge must be a callable or None, not {type(config.judge).__name__}")
    limit = config.max_answer_bytes
    if limit is not None:
        if not isinstance(limit, int) or isinstance(limit, bool):
            raise TypeError(f"{where}: max_answer_bytes must be an int or None, not {type(limit).__name__}")
        if limit < 1:
            raise ValueError(f"{where}: max_answer_bytes must be >= 1 or None, got {limit!r}")
    check_memory_limit(where, config.memory_limit)


@dataclass(frozen=True, slots=True)
class EquivConfig:
    """Options of :func:`~rapidgrade.equivalent`.

    Attributes:
        rel_tol: relative tolerance of numeric agreement at a sample point (finite, >= 0).
        abs_tol: absolute tolerance of numeric agreement at a sample point (finite, >= 0).
        float_rounding: decimal places both sides are rounded to when either is a decimal
            literal, in [0, 15]; None for the precision rule (the gold's own number of
            decimals, or 6 when only the prediction is a decimal).
    """

    rel_tol: float = 1e-9
    abs_tol: float = 1e-12
    float_rounding: int | None = None

    def __post_init__(self) -> None:
        _validate_equiv(self, type(self).__name__)

    @classmethod
    def build(cls, where: str, config: EquivConfig | None = None, **options: Any) -> EquivConfig:
        """*config* (default: the defaults) with the given options replaced; errors name
        *where* (the calling function). Options equal to :data:`UNSET` are not given."""
        return _build(cls, where, config, options)


@dataclass(frozen=True, slots=True)
class GradeConfig:
    """Options of :func:`~rapidgrade.grade` and :func:`~rapidgrade.grade_many`.

    Attributes:
        last_number: accept an answer found only as the last number of the response (False
            for RL rewards, where only an explicit final answer may earn credit). With True, a
            response with no marked answer whose final sentence holds exactly as many numbers
            as a gold list has values ("There are 9 chickens and 10 rabbits." against
            ``{9, 10}``) is read as that list; False refuses that reading too.
        fallback: send the pairs the fast path cannot decide to math-verify and SymPy; when
            False they are counted wrong.
        timeout: seconds allowed per fallback pair (positive); None (or ``math.inf``, stored
            as None) means no limit.
        equiv: the options of the equivalence test (:class:`EquivConfig`).
        max_answer_bytes: longest extracted answer (bytes of UTF-8) that is compared; a
            longer one gets ``decided_by="limit"`` (counted wrong, never sent to the
            fallback), so that no answer costs more than a bounded amount of work. None
            means no limit. Default 64 KiB.
        memory_limit: bytes of address space a fallback worker may use while it decides one
            pair (``RLIMIT_AS``, Linux); a pair that needs more gets ``decided_by="limit"``
            (reason ``"limit: memory: ..."``) and its worker is replaced, the batch goes on.
            At least 64 MiB, or None for no limit. Default 1 GiB (:data:`DEFAULT_MEMORY_LIMIT`).
        judge: what decides the pairs the grader leaves open (:mod:`rapidgrade.judge`):
            ``judge(golds, responses) -> [True | False | None, ...]``, sync or async, called once
            per ``grade_many`` call; None (default): no judge.
    """

    last_number: bool = True
    fallback: bool = True
    timeout: float | None = 5.0
    equiv: EquivConfig = EquivConfig()
    max_answer_bytes: int | None = 65536
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT
    judge: Callable[[list[str], list[str]], Any] | None = None

    def __post_init__(self) -> None:
        _validate_grade(self, type(self).__name__)

    @classmethod
    def build(cls, where: str, config: GradeConfig | None = None, **options: Any) -> GradeConfig:
        """*config* (default: the defaults) with the given options replaced; errors name
        *where*. The equivalence options (``rel_tol``, ``abs_tol``, ``float_rounding``) may be
        given flat and replace the fields of ``equiv``."""
        base = _DEFAULT_GRADE if config is None else config
        _check_type(where, "config", base, GradeConfig)
        options = {k: v for k, v in options.items() if v is not UNSET}
        equiv_options = {k: options.pop(k) for k in _EQUIV_FIELDS if k in options}
        if equiv_options:
            options["equiv"] = EquivConfig.build(where, base.equiv, **equiv_options)
        return _build(cls, where, base, options)


_EQUIV_FIELDS = tuple(f.name for f in dataclasses.fields(EquivConfig))


_VALIDATORS: dict[type, Any] = {
    EquivConfig: _validate_equiv,
    GradeConfig: _validate_grade,
}


_DEFAULT_EQUIV = EquivConfig()
_DEFAULT_GRADE = GradeConfig()
_DEFAULTS: dict[type, Any] = {EquivConfig: _DEFAULT_EQUIV, GradeConfig: _DEFAULT_GRADE}


_C = TypeVar("_C", EquivConfig, GradeConfig)


def _build(cls: type[_C], where: str, config: _C | None, options: dict[str, Any]) -> _C:
    base: _C = _DEFAULTS[cls] if config is None else config
    _check_type(where, "config", base, cls)
    options = {k: v for k, v in options.items() if v is not UNSET}
    if not options:
        return base
    try:  # with each value's type: True == 1 and 2.0 == 2, but the checks tell them apart
        key = tuple(sorted((name, type(value), value) for name, value in options.items()))
        hash(key)
    except TypeError:  # an unhashable option value: checked (and refused) below, uncached
        return _replaced(cls, where, base, options)
    return cast(_C, _replaced_cached(cls.__name__, where, base, key))


@functools.lru_cache(maxsize=256)
def _replaced_cached(cls_name: str, where: str, base: Any, key: tuple[tuple[str, type, Any], ...]) -> Any:
    # The per-call paths (a reward function called once per sample with the same options) build
    # the same config from the same base and options again and again: the result is a frozen value
    # of these hashable arguments, so it is kept, a bounded number of them. Errors are not kept.
    cls = next(c for c in _DEFAULTS if c.__name__ == cls_name)
    return _replaced(cls, where, base, {name: value for name, _, value in key})


def _replaced(cls: type[_C], where: str, base: _C, options: dict[str, Any]) -> _C:
    """*base* with *options* replaced, validated first with the caller's name *where*."""
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(options) - names)
    if unknown:
        raise TypeError(f"{where}: unexpected option {unknown[0]!r}")
    # Validate with the caller's name first, so that the error names the function, not the class.
    candidate = object.__new__(cls)
    for f in dataclasses.fields(cls):
        object.__setattr__(candidate, f.name, options.get(f.name, getattr(base, f.name)))
    _VALIDATORS[cls](candidate, where)
    return dataclasses.replace(base, **options)
