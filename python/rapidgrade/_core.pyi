# Type stubs of the compiled core. The documented API is in the rapidgrade package; these are
# the raw entry points it wraps. Kept exact by `python -m mypy.stubtest rapidgrade._core`.
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

_T = TypeVar("_T", bound=tuple[object, ...])

class ParseError(ValueError): ...
class LimitError(ValueError): ...

# scan
def find_boxed(text: str | bytes, span_type: type[_T]) -> list[_T]: ...
def find_math_spans(text: str | bytes, span_type: type[_T]) -> list[_T]: ...
def find_boxed_many(
    texts: Sequence[str | bytes], span_type: type[_T], *, threads: int | None = None
) -> list[list[_T]]: ...
def vector_loops() -> str: ...

# distance
def edit_distance(a: str, b: str, *, max_distance: int | None = None) -> int: ...
def closest(word: str, choices: Iterable[str], *, max_distance: int | None = None) -> tuple[str, int] | None: ...
def edit_distance_many(
    pairs: Sequence[tuple[str, str]], *, max_distance: int | None = None, threads: int | None = None
) -> list[int]: ...

# extract
def extract_answer(text: str | bytes, extraction_type: type[_T], *, strategy: str = "auto") -> _T | None: ...
def extract_many(
    texts: Sequence[str | bytes], extraction_type: type[_T], *, strategy: str = "auto", threads: int | None = None
) -> list[_T | None]: ...
def extract_fields(text: str | bytes, *, function: str = "u", variable: str = "x") -> dict[str, object]: ...

# normalize
UNIT_WORDS: tuple[str, ...]

def normalize_latex(s: str | bytes, *, units: bool = True, equations: bool = True) -> str | bytes: ...
def normalize_answer(
    s: str | bytes, normalized_type: type[_T], *, units: bool = True, equations: bool = True
) -> _T: ...
def normalize_many(
    strings: Sequence[str | bytes], *, units: bool = True, equations: bool = True, threads: int | None = None
) -> list[str | bytes]: ...
def normalize_answer_many(
    strings: Sequence[str | bytes],
    normalized_type: type[_T],
    *,
    units: bool = True,
    equations: bool = True,
    threads: int | None = None,
) -> list[_T]: ...

# expr
class Expr:
    @property
    def free_symbols(self) -> frozenset[str]: ...
    def tree(self) -> tuple[Any, ...]: ...
    def evaluate(self, **kwargs: Any) -> Any: ...
    def to_sympy(self) -> Any: ...  # defined in Python (rapidgrade.expr)

def expr_function_table() -> list[tuple[str, str, str, str, str, int, int | None, bool]]: ...
def expr_text_wrappers() -> list[tuple[str, str]]: ...
def expr_fraction_commands() -> list[str]: ...
def latex_spacing_commands() -> list[tuple[str, str]]: ...
def latex_joiner_words() -> list[tuple[str, bool]]: ...
def unicode_spaces() -> list[int]: ...
def parse_expr(text: str | bytes, *, syntax: str = "auto") -> Expr: ...
def equivalent(
    a: str | bytes | Expr,
    b: str | bytes | Expr,
    *,
    rel_tol: float = 1e-09,
    abs_tol: float = 1e-12,
    float_rounding: int | None = None,
) -> int: ...
def equivalent_many(
    pairs: Sequence[tuple[str | bytes | Expr, str | bytes | Expr]],
    *,
    rel_tol: float = 1e-09,
    abs_tol: float = 1e-12,
    float_rounding: int | None = None,
    threads: int | None = None,
) -> list[int]: ...

# grade
def grade_fast_many(
    golds: Sequence[str],
    responses: Sequence[str],
    *,
    last_number: bool = True,
    rel_tol: float = 1e-09,
    abs_tol: float = 1e-12,
    float_rounding: int | None = None,
    threads: int | None = None,
    max_answer_bytes: int | None = 65536,
) -> FastColumns: ...

class FastColumns:
    def __init__(
        self,
        *,
        tri: bytearray,
        reason: bytes,
        method: bytes,
        gold_index: bytes,
        gold_table: list[str],
        raw_index: bytes,
        raw_table: list[str],
        extracted_offsets: bytes,
        extracted_data: bytes,
        normalized_offsets: bytes,
        normalized_data: bytes,
    ) -> None: ...
    @property
    def tri(self) -> bytearray: ...
    @property
    def reason(self) -> bytes: ...
    @property
    def method(self) -> bytes: ...
    @property
    def gold_index(self) -> bytes: ...
    @property
    def gold_table(self) -> list[str]: ...
    @property
    def raw_index(self) -> bytes: ...
    @property
    def raw_table(self) -> list[str]: ...
    @property
    def extracted_offsets(self) -> bytes: ...
    @property
    def extracted_data(self) -> bytes: ...
    @property
    def normalized_offsets(self) -> bytes: ...
    @property
    def normalized_data(self) -> bytes: ...

# absa (sentiment tuples; wrapped by rapidgrade.tasks.absa)
_D = TypeVar("_D")

def absa_normalize_for_eval(s: str | None) -> str: ...
def absa_normalize_ref_for_eval(s: str | None) -> str: ...
def absa_normalize_polarity(s: str | None, default_missing: _D) -> str | _D: ...
def absa_canonicalize_polarity_with_repair(s: str | None, default_missing: _D) -> tuple[str | _D | None, bool]: ...
def absa_gold_aspect_term(row: dict[str, object]) -> str: ...
def absa_score(
    records: Sequence[object],
    stages: Iterable[str],
    *,
    repair: bool,
    default_missing: str | None,
    ref_allowlist: Iterable[str] | None,
    transitions: Iterable[tuple[int, int]],
    threads: int | None = None,
) -> dict[str, Any]: ...

# mvcompat
def mv_boxed_winner(text: str | bytes) -> tuple[str, bool, str | bytes | None, int, int]: ...
def mv_last_number(text: str | bytes, *, non_ascii_inert: bool = False) -> tuple[str, str | None, bool]: ...

# physics (normalize_answer flow and unit reading; wrapped by rapidgrade.tasks.physics)
# (imported here, in this part's block, to keep the parts of the file apart)
from collections.abc import Callable as _Callable  # noqa: E402

import numpy as _np  # noqa: E402
import numpy.typing as _npt  # noqa: E402

PHYSICS_UNIT_SYMBOLS: tuple[tuple[str, str, bool], ...]
PHYSICS_UNIT_PREFIXES: tuple[tuple[str, str], ...]

def physics_normalize(s: str | bytes) -> tuple[str, float | str, bool]: ...
def physics_normalize_many(
    strings: Sequence[str | bytes], *, threads: int | None = None
) -> tuple[list[tuple[str, float | str]], list[int]]: ...
def physics_parse_unit(s: str | bytes, *, greedy: bool = False) -> tuple[str, str, bool] | None: ...
def physics_read_quantity(s: str | bytes) -> tuple[float, int, str | None, str | None, bool] | None: ...
def physics_grade_columns(
    golds: Sequence[str],
    responses: Sequence[str],
    resolve_unit: _Callable[[str], tuple[int, float, float] | None],
    *,
    rel_tol: float,
    sig_figs: bool,
    unit_required: bool,
    threads: int | None = None,
) -> PhysicsColumns: ...

class PhysicsColumns:
    @property
    def path(self) -> _npt.NDArray[_np.int8]: ...
    @property
    def correct(self) -> _npt.NDArray[_np.bool_]: ...
    @property
    def value(self) -> _npt.NDArray[_np.float64]: ...
    @property
    def has_value(self) -> _npt.NDArray[_np.bool_]: ...
    @property
    def category(self) -> list[str]: ...
    @property
    def gold(self) -> list[str]: ...
    @property
    def extracted(self) -> list[str | None]: ...
    @property
    def method(self) -> list[str | None]: ...
    @property
    def reason(self) -> list[str | None]: ...
    @property
    def unit(self) -> list[str | None]: ...
    @property
    def normalized(self) -> list[str | None]: ...

# fredholm (issue 15): integral-equation answers (rapidgrade.tasks.fredholm)
def fredholm_parse(
    response: str | bytes,
    *,
    extract_solution: bool = True,
    validate: bool = True,
    syntax: str = "auto",
    symbols: Mapping[str, tuple[str, str]] = {},
) -> tuple[Any, ...]: ...
def fredholm_parse_many(
    responses: Sequence[str | bytes],
    *,
    extract_solution: bool = True,
    validate: bool = True,
    syntax: str = "auto",
    symbols: Mapping[str, tuple[str, str]] = {},
    threads: int | None = None,
) -> list[tuple[Any, ...]]: ...
def fredholm_read_solution(
    text: str, *, syntax: str = "auto", symbols: Mapping[str, tuple[str, str]] = {}
) -> tuple[str, str, str] | None: ...
def fredholm_sample_many(
    exprs: Sequence[tuple[str, str]],
    xs: Sequence[Any],
    *,
    variable: str = "x",
    constants: dict[str, float] = {},
    threads: int | None = None,
) -> list[Any]: ...

# perf (issue 18): the packed result columns of grade_fast_many
def unpack_strings(data: bytes, offsets: Any, present: Any) -> list[str | None]: ...
def grade_tables() -> tuple[list[str], list[str]]: ...

# jsonl (issue 17): the scoring job's reader and writer of JSON lines (rapidgrade._io, tasks.math)
def jsonl_pick(
    lines: list[bytes] | tuple[bytes, ...], keys: Sequence[str], reserved: Sequence[str], *, threads: int | None = None
) -> tuple[bytes, list[list[Any]]]: ...
def jsonl_pick_block(
    data: bytes,
    keys: Sequence[str],
    reserved: Sequence[str],
    *,
    stop: int | None = None,
    threads: int | None = None,
) -> tuple[bytes, list[list[Any]], list[bytes]]: ...
def jsonl_splice(
    texts: list[bytes] | tuple[bytes, ...],
    heads: list[bytes] | tuple[bytes, ...],
    strings: list[str | None] | tuple[str | None, ...],
    tails: list[bytes] | tuple[bytes, ...],
) -> list[bytes]: ...
def jsonl_splice_joined(
    texts: list[bytes] | tuple[bytes, ...],
    heads: list[bytes] | tuple[bytes, ...],
    strings: list[str | None] | tuple[str | None, ...],
    tails: list[bytes] | tuple[bytes, ...],
) -> tuple[bytes, bytes]: ...
def eed_score(
    gold: str | bytes,
    answer: str | bytes,
    *,
    answer_scale: float = 1.0,
    initial_score: float = 60.0,
    scoring_slope: float = 100.0,
    insert_cost: Sequence[float] = (1.0, 1.0, 1.0, 1.0),
    delete_cost: Sequence[float] = (1.0, 1.0, 1.0, 1.0),
    update_cost: Sequence[float] = (1.0, 1.0, 1.0, 1.0),
    change_type_cost: float = 1.0,
    bar_size: float = 5.0,
    discount_slope: float = 0.6,
    max_cells: int = 1048576,
) -> tuple[float, float, float, float, str, str, str]: ...
def eed_score_many(
    golds: Sequence[str | bytes],
    answers: Sequence[str | bytes],
    *,
    scales: Sequence[float] | None = None,
    threads: int | None = None,
    initial_score: float = 60.0,
    scoring_slope: float = 100.0,
    insert_cost: Sequence[float] = (1.0, 1.0, 1.0, 1.0),
    delete_cost: Sequence[float] = (1.0, 1.0, 1.0, 1.0),
    update_cost: Sequence[float] = (1.0, 1.0, 1.0, 1.0),
    change_type_cost: float = 1.0,
    bar_size: float = 5.0,
    discount_slope: float = 0.6,
    max_cells: int = 1048576,
) -> tuple[
    _npt.NDArray[_np.float64],
    _npt.NDArray[_np.float64],
    _npt.NDArray[_np.float64],
    _npt.NDArray[_np.float64],
    list[str],
    list[str],
    list[str],
]: ...
def eed_canonical_tree(text: str | bytes) -> str: ...

# residual (issue 46): residual check of integral-equation solutions (rapidgrade.tasks.fredholm)
def fredholm_residual_many(
    candidates: Sequence[str],
    equations: Sequence[tuple[str, str, float, float, float, str, Any | None]],
    equation_index: Sequence[int],
    *,
    syntax: str = "auto",
    equation_syntax: str = "auto",
    tolerance: float = 1e-06,
    n_points: int = 50,
    constants: dict[str, float] = {},
    free_constants: float | None = None,
    max_ops: int = 800,
    max_points: int = 1024,
    max_nodes: int = 4096,
    max_work: int = 33554432,
    threads: int | None = None,
) -> list[tuple[str, str, float, float, float, float, int, Any, Any]]: ...
