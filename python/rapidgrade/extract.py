r"""Final-answer extraction from model output.

:func:`extract_answer` finds the final answer of a response with a cascade of strategies, first
hit wins (``strategy="auto"``):

1. ``boxed``: the last top-level ``\boxed{...}`` / ``\fbox{...}`` (braces matched by counting,
   escaped ``\{``/``\}`` ignored, ``\boxed 5`` accepted). A box whose whole content is another
   box is unwrapped (``\boxed{\boxed{2}}`` gives ``2``, up to 8 levels). When several boxes sit
   in the final sentence (no ``.``/``!``/``?`` followed by whitespace, ``$``, ``\`` or the end of
   the gap, and no blank line between them), they are returned together, joined with ``", "``,
   with method ``boxed_multi``.
2. ``answer_is`` and 3. ``tagged``: the markers of one table (``detail/markers.hpp``), of which
   the one nearest the end of the response that yields an answer wins:

   - ``answer_is``: "answer is", "answer is:", "answer:", "answer**:", "answer:**"
     (case-insensitive, "answer" starting a word, so "the answer is", "Final Answer:",
     "**Answer:**" all count); a heading line ``# Answer`` / ``**Final Answer**`` whose answer is
     on the next lines; the value before "is the answer" at a sentence's or a clause's end
     ("Thus, 6 is the correct answer.", "Thus $x <= 2$ is our answer.": a number or a ``$``
     span, then "is" or "must be", "the" or "our", at most one of "only", "correct", "final",
     "right"; not after "if" or "whether"); GSM8K's last line ``A: 18``; Chinese ``答案是 12``, ``答案为``,
     ``答案：`` and a final clause ``所以…为 -3`` / ``因此…是 6`` that ends the text;
   - ``tagged``: ``<answer>...</answer>``; a GSM8K line ``#### X`` whose X is a plain number
     (digits, ``, . - + / $``, spaces) or a number followed by words (``#### 18 eggs``);
     GAOKAO's ``【答案】X<eoa>`` (X to ``<eoa>`` or the line end).

   After a marker the answer is a whole display block ``$$...$$`` / ``\[...\]``, or the math
   object at the start of the rest of the sentence, read by the answer phrase grammar: numbers
   with sign, thousands separators (``1,000``, ``1 000``), decimals, fractions, mixed numbers
   (``1 1/2``), percent, scientific notation and currency signs (``$18``, ``\$18.00``,
   ``¥12``); math spans, expressions, tuples, intervals, relations (``x = 5``) and lists joined
   by ``,``, "and", "or", ``和``; a choice letter. It ends at the first word that is not math
   (``18 eggs``, ``200 GB``, ``48g``, ``5 km/h``: a unit of the units table is kept apart),
   at a sentence end or a line end; a chain or a computation gives its last member
   (``9 * 2 = 18`` gives ``18``). A phrase that starts with words is a text answer (``Yes``,
   ``no solution``), or a restating sentence whose one number is the answer ("The answer is
   Melanie started with 18 vacuum cleaners." gives ``18``). Such a reading, one with several
   numbers and no math span, and one that another marker disagrees with are weak: grading
   says UNKNOWN, not FALSE, when they do not match. So does a last "answer is" whose answer
   differs when one of the four markers of this rule before it matches ("So the final answer
   is ``$n=960$``. In general, ... the answer is ``$n=...$``.", a change of mind). A gold
   written as a phrase (``18 eggs``, ``\$18.00``) is read as its number by the same grammar.
   When math bold marks numbers only (``\mathbf{1 7}``: ARML's solutions bold their final
   value) and the last bold number comes in a later math span than the one the "answer is"
   answer was read from ("so the answer is ``$\min\{-m,-n\}$``. With ``$m=7, n=8$``, ... is
   ``$\mathbf{-8}$``."), that span is read as ``final_span`` reads a bolded answer, with the
   marked answer as its rival.
4. ``code_output``: the content of the last fenced block tagged ``output`` or ``text`` that
   comes after a fenced code block (program-of-thought answers).
5. ``choice``: a multiple-choice letter A-J that closes the text, announced by "answer",
   "option" or "choice" (``Answer B``, ``correct answer A``, ``(ANSWER E)``, ``the correct
   option is C``), alone on the last line (``C``, ``(B)``), or in parentheses right after "is"
   (``The piece that fits is (D).``).
6. ``bare``: the whole response, on one line, is itself an answer: math (``pi/2``, ``-2*pi``,
   ``14.0 + -1.0i``, ``$\frac{1}{\sqrt{n}}$``, ``1 1/4``, ``(1, 2)``, ``$45^\circ$``) or a short
   text answer without digits (``Yes``, ``no solution``: at most four words).
7. ``final_span``: the last math span (``$...$``, ``$$...$$``, ``\(...\)``, ``\[...\]``,
   ``equation``/``align``/... environments) holding a symbol or a digit, provided no number
   follows it in the prose (``<img_1>`` tags and references such as ``(see Figure 2)`` or
   ``(3)`` do not count). Its answer: after the last ``\Rightarrow``/``\implies``; a chain
   ``a = b = c`` gives its last member, ``1 - 2 = - 1`` (an arithmetic left side) its right side;
   a relation that is the answer stays whole (``x < - 2``, ``x \neq 4``, ``f(x)=x+22``,
   ``x = 5``); ``\tag{..}`` and trailing punctuation are dropped. Spans joined only by "and",
   "or", "和", "或" or commas (``$(-6,6)$ and $(2,6)$``, ``$x=-1$ or $x=2$``) are one answer of
   several parts, joined with ``", "`` like ``boxed_multi`` (with ``" or "`` where "or" or "或"
   joins them: ``$x<2$ or $x>3$`` is ``x<2 or x>3``, alternatives), when they state one shape: values, or
   relations of one left side, read before a chain gives its last member (``$x=2^{-2/3}$ or
   $x=2^{3}=8$`` is two parts; ``$A+B=136$ and $C=180-(A+B)=44$`` states two things, the last
   counts). Where only those statements agree, "or" joins alternatives and "and" may restate
   one value (``$a+b=2-6=-4$, and $a+b=-4$``); a left side with no symbol is a computation.
8. ``last_number``: the last number, the last resort: integers, decimals (``.5`` too),
   thousands separators (``1,234,567``: groups of exactly three digits after one to three),
   exponents (``1.5e-3``), integer fractions ``3/4``, and ``\frac{a}{b}`` with integer a, b
   (``\dfrac12`` is 1/2). A ``-`` or ``−`` (U+2212) right before the number is its sign when it
   follows the start, whitespace or one of ``( [ { = , : ; $``: ``x = -5`` gives ``-5`` but
   ``pages 3-5`` gives ``5``; a sign written apart (``= - 2``, ``is - 5``, ``\times - 3``) counts
   after one of those, a word or an operator, not after a number, a variable or ``)``
   (``3 - 5`` gives ``5``). Two readings of the final statement come before it: a final count
   sentence answers with its count (``There are 3 bars with values below 40.`` gives ``3``), and
   when every bold span of the response states one and the same number, in at most four words
   and not as a label (``The total value is **52**.`` before a table; ``**Step 1:**`` is a
   label), that number is the answer; the last number is then their rival, so a mismatch is
   never certain while it matches.

``final_span`` and ``last_number`` read the text before the remarks in parentheses that close it
(two at most): a ``(`` after a blank, a line break or a sentence's end, opening with a word of two
letters or more before a blank or a comma, closed by the text's last ``)`` (``Therefore, $x =
7$.\n\n(We can check that $x = 0, 1, 2$ do not work.)``, ``... is 13 (which occurs when $x=5$)``
read ``x = 7`` and 13; ``(iii)`` and ``(B)`` are no remarks), and before a closing section that
checks or illustrates the answer: from the last line that opens with "Verification", "Check",
"Checking", "We check", "We can check", "Let us check", "For example" or "For instance" (an
example only as the last paragraph; neither when a later paragraph opens with "Therefore",
"Thus", "So", "Hence", "Consequently", "Finally", "In conclusion" or "In summary"). They also
read the final sentence before a clause that gives a reason for the value stated right before it
or an example of it, when that clause closes the sentence: "since", "because", "given that", "for
example", "for instance" or "e.g." right after math or a number, outside math, with no ``,`` or
``;`` and no conclusion lead after it (``So $x = 3$ since $x > 0$.`` reads ``x = 3``; ``$a=5$,
because $ab=-1$, therefore $b=-1/5$.`` reads ``b=-1/5``).

``final_span`` and ``last_number`` guess where an unmarked answer is; grading treats a mismatch
found through them as certain only when the other readings of the final statement (the other
spans of the final sentence, the last number, the last span) do not match either. A span that
the sentence introduces as its conclusion (after "so", "thus", "therefore", "hence", "then",
"is", "gives", "get", "obtain", "yields", ... or a span holding only ``\therefore``) ends the
other readings: the spans before it are the steps that led to it (``Substituting $x = 3$ ...
gives: $a = -2$`` has no other reading ``x = 3``).

Several boxes of the final sentence that hold one value (``\boxed{025} ... \boxed{25}``) are
graded as that value when their list does not match the gold.

When the response contains ``</think>``, only the text after the last one is searched.

Offsets are in the units of the input (code points for ``str``, bytes for ``bytes``), so
``text[e.start:e.end] == e.text`` for every method but ``boxed_multi`` (whose ``text`` joins the
boxes and whose span runs from the first box's content to the last one's).

Every scan is linear in the input, without recursion or regular expressions.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, AnyStr, Generic, Literal, NamedTuple, Union, overload

from rapidgrade import _core

__all__ = ["STRATEGIES", "Extraction", "Strategy", "extract_answer", "extract_fields", "extract_many"]

Strategy = Literal["auto", "boxed", "answer_is", "tagged", "code_output", "choice", "bare", "final_span", "last_number"]

#: The strategies accepted by :func:`extract_answer`, in cascade order after ``"auto"``.
STRATEGIES: tuple[str, ...] = (
    "auto",
    "boxed",
    "answer_is",
    "tagged",
    "code_output",
    "choice",
    "bare",
    "final_span",
    "last_number",
)


if sys.version_info < (3, 11) and not TYPE_CHECKING:

    class Extraction(NamedTuple):
        """An extracted answer (Python 3.10, where a NamedTuple cannot be generic:
        ``Extraction[str]`` is ``Extraction`` itself at run time)."""

        text: Union[str, bytes]  # noqa: UP007 (NamedTuple field annotations are evaluated on 3.10)
        start: int
        end: int
        method: str

        @classmethod
        def __class_getitem__(cls, item: object) -> type:
            return cls

else:

    class Extraction(NamedTuple, Generic[AnyStr]):
        """An extracted answer.

        ``text`` is the answer as written, of the input's type: ``Extraction[str]`` for a
        ``str`` input, ``Extraction[bytes]`` for ``bytes``. ``start``/``end`` are its span in
        the input, ``method`` the rule that found it: ``"boxed"``, ``"boxed_multi"``,
        ``"answer_is"``, ``"tagged"``, ``"code_output"``, ``"choice"``, ``"bare"``,
        ``"final_span"`` or ``"last_number"``.
        """

        text: AnyStr
        start: int
        end: int
        method: str


@overload
def extract_answer(text: str, *, strategy: Strategy = "auto") -> Extraction[str] | None: ...
@overload
def extract_answer(text: bytes, *, strategy: Strategy = "auto") -> Extraction[bytes] | None: ...
@overload
def extract_answer(text: str | bytes, *, strategy: Strategy = "auto") -> Extraction[str] | Extraction[bytes] | None: ...
def extract_answer(text: str | bytes, *, strategy: Strategy = "auto") -> Extraction[str] | Extraction[bytes] | None:
    r"""The final answer in *text*, or ``None`` when no strategy finds one.

    The answer's ``text`` has the type of *text*: ``str`` for ``str``, ``bytes`` for ``bytes``
    (type checkers see ``Extraction[str] | None`` and ``Extraction[bytes] | None``).

    >>> extract_answer(r"so the total is $\boxed{\frac{1}{2}}$.")
    Extraction(text='\\frac{1}{2}', start=24, end=35, method='boxed')
    >>> extract_answer(r"The roots are $\boxed{2}$ and $\boxed{3}$.").text
    '2, 3'
    >>> extract_answer("Final Answer: $42$").text
    '42'
    >>> extract_answer("<think>maybe 7</think> it is 12, not 13").text
    '13'
    >>> extract_answer("I am not sure how to solve this one") is None
    True
    >>> extract_answer(r"Hence $a - b = 5 / ( - 2 ) = - 2.5$.")
    Extraction(text='- 2.5', start=29, end=34, method='final_span')
    >>> extract_answer("Hence the required number = 12x = 24.\nAnswer B").text
    'B'
    >>> extract_answer("x = -5 and pages 3-5", strategy="last_number").text
    '5'

    Raises:
        TypeError: *text* is not ``str`` or ``bytes``.
        ValueError: unknown *strategy*.
    """
    if strategy == "auto":  # keyword arguments cost more than the scan of a typical response
        return _core.extract_answer(text, Extraction)
    return _core.extract_answer(text, Extraction, strategy=strategy)


@overload
def extract_many(
    texts: Sequence[str], *, strategy: Strategy = "auto", threads: int | None = None
) -> list[Extraction[str] | None]: ...
@overload
def extract_many(
    texts: Sequence[bytes], *, strategy: Strategy = "auto", threads: int | None = None
) -> list[Extraction[bytes] | None]: ...
@overload
def extract_many(
    texts: Sequence[str | bytes], *, strategy: Strategy = "auto", threads: int | None = None
) -> list[Extraction[str] | Extraction[bytes] | None]: ...
def extract_many(
    texts: Sequence[str | bytes] | Sequence[str] | Sequence[bytes],
    *,
    strategy: Strategy = "auto",
    threads: int | None = None,
) -> list[Extraction[str] | None] | list[Extraction[bytes] | None] | list[Extraction[str] | Extraction[bytes] | None]:
    """:func:`extract_answer` over many texts, on *threads* threads (default: all cores).

    The inputs are read while holding the GIL, the scans run with it released, and results come
    back in input order (``None`` where nothing was found).

    Raises:
        TypeError: *texts* is not a sequence, or one of its items is not ``str``/``bytes``.
        ValueError: unknown *strategy*, or *threads* < 1.
    """
    return _core.extract_many(texts, Extraction, strategy=strategy, threads=threads)


def extract_fields(text: str | bytes, *, function: str = "u", variable: str = "x") -> dict[str, object]:
    r"""Fields of the key/value answer protocol used for function-valued solutions.

    Returns a dict holding only the keys found:

    * ``solution`` (str): the right-hand side of the last ``SOLUTION: u(x) = ...`` line; failing
      that of the last ``Solution: u(x) = ...`` line (key in any other capitalization); failing
      that of the last line that is a bare ``u(x) = ...`` (possibly opened by ``$``, ``$$``,
      ``\(`` or ``\[``). Trailing ``.``, ``$``, ``\)``, ``\]`` and whitespace are removed. Lines
      may start with markdown decoration (``**``, ``-``, ``#``, ``>``).
    * ``has_solution`` (bool): from the last ``HAS_SOLUTION:`` or ``SOLUTION_EXISTS:`` line
      (``yes``/``true``/``no``/``false``, any case); failing that, ``False`` when the text says
      "no solution exists".
    * ``solution_type`` (str): the last ``SOLUTION_TYPE:`` value among ``exact_symbolic``,
      ``approx_coef``, ``series``, ``family``, ``discrete_points``, ``regularized``, ``none``.
    * ``reasoning`` (str): the text after the last ``REASONING:`` marker, up to the next line
      starting with one of the keys above, trimmed.

    *function* and *variable* name the unknown (``u`` and ``x`` in ``u(x)``).

    >>> extract_fields("REASONING: guess\nSOLUTION: u(x) = x^2 + 1.\nHAS_SOLUTION: yes")
    {'solution': 'x^2 + 1', 'has_solution': True, 'reasoning': 'guess'}
    >>> extract_fields("We find:\n$\\phi(t) = e^t$.", function="\\phi", variable="t")
    {'solution': 'e^t'}

    Raises:
        TypeError: *text* is not ``str``/``bytes`` or *function*/*variable* not ``str``.
        ValueError: *function* or *variable* is empty.
    """
    return _core.extract_fields(text, function=function, variable=variable)
