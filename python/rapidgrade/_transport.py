"""Moving SymPy objects between processes without changing them.

Plain ``pickle`` does not round-trip the objects math-verify builds: SymPy pickles a compound
expression as ``type(e)(*e.args)``, which *evaluates* it again on loading. An unevaluated
``Eq(d, Interval.open(0, 1))`` comes back as ``false``, and objects that carry extra attributes
set after construction (latex2sympy2_extended keeps ``_unsorted_args`` on ``And``) fail to load.

:func:`dumps` pickles every compound SymPy object as *its class, its raw ``_args`` and its
instance attributes*, and :func:`loads` (plain :func:`pickle.loads`) rebuilds it with
``Basic.__new__`` — the constructor that stores arguments without evaluating — then restores the
attributes. Atoms (symbols, numbers, constants) keep SymPy's own pickling, which is exact.
The cached hash is dropped (string hashes differ between processes) and recomputed on demand.

>>> import sympy
>>> e = sympy.Eq(sympy.Symbol("d"), sympy.Interval.open(0, 1), evaluate=False)
>>> loads(dumps(e)) == e
True
"""

from __future__ import annotations

import io
import pickle
from typing import Any

from sympy import Atom, Basic

__all__ = ["dumps", "loads"]

# Attributes that are not copied: the arguments (passed to Basic.__new__), the hash cache
# (process-specific), and slots that are not state.
_SKIPPED = frozenset({"_args", "_mhash", "__weakref__", "__dict__"})


def _rebuild(cls: type[Basic], args: tuple[Any, ...], state: dict[str, Any]) -> Basic:
    obj = Basic.__new__(cls, *args)
    for name, value in state.items():
        setattr(obj, name, value)
    return obj


def _state(obj: Basic) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for klass in type(obj).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        if isinstance(slots, str):
            slots = (slots,)
        for name in slots:
            if name in _SKIPPED or name in state:
                continue
            try:
                state[name] = getattr(obj, name)
            except AttributeError:  # declared but never set
                continue
    instance_dict = getattr(obj, "__dict__", None)
    if instance_dict:
        for name, value in instance_dict.items():
            if name not in _SKIPPED:
                state[name] = value
    return state


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Basic) and not isinstance(obj, (Atom, type)):
            return _rebuild, (type(obj), obj._args, _state(obj))
        return NotImplemented


def dumps(obj: Any) -> bytes:
    """Pickle *obj*, keeping every SymPy object in it exactly as it is (no re-evaluation)."""
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buffer.getvalue()


def loads(data: bytes) -> Any:
    """Inverse of :func:`dumps`."""
    return pickle.loads(data)
