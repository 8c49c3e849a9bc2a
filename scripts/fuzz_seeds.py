"""Write the seed corpora of the libFuzzer harnesses (cpp/fuzz/) from the repository's test data.

    python3 -m scripts.fuzz_seeds OUT_DIR        (from the repository root; scripts/fuzz.sh does it)

Writes OUT_DIR/<harness>/<sha1> files, one input each, from:

- the packaged demo set (python/rapidgrade/data/qwen25_math_cot_800.jsonl): responses (their last
  4 KiB, where the answer is), gold answers, and the boxed answers of the responses;
- tests/data: the math-verify conformance cases (gold, prediction, what math-verify parsed), the
  corpus verdicts and the deliberate differences;
- infix and RPN expressions written in tests/unit/test_expr_*.py (``("x 2 ^", "rpn")`` and
  ``parse_expr("...", syntax="infix")``);
- tests/oracles/absa_data.py's terms, references and polarity labels (for fuzz_absa, whose first
  byte selects the code-point width: 0 for 1 byte, 1 for 2 bytes, 2 for 4 bytes);
- tests/data/physics/dev.jsonl (fuzz_physics: gold and unit, "\\0", response) and
  tests/data/fredholm/parse_differences.jsonl plus FREDHOLM below (fuzz_fredholm);
- the demo set's first 200 lines as they are (fuzz_jsonl, the scoring job's line reader);
- the gold/boxed-answer pairs again (fuzz_eed), and five kernels with the fredholm texts as
  candidates (fuzz_residual);
- cpp/fuzz/reproducers/<harness>-*: inputs that made a harness report once (regression seeds).

Pairs (fuzz_equiv, fuzz_grade) are written ``gold + b"\\0" + other``. Needs only the standard
library and the repository (not the compiled extension).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from tests.oracles import absa_data

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "python" / "rapidgrade" / "data" / "qwen25_math_cot_800.jsonl"
DATA = ROOT / "tests" / "data"
#: Seeds are cut to this size (libFuzzer runs with -max_len of the same value).
MAX_LEN = 4096

BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")
EXPR_IN_TESTS = re.compile(r"""\(\s*r?"([^"\\]*)",\s*(?:syntax=)?"(infix|rpn)"\s*[,)]""")
#: RPN forms beyond those the tests write (every operator class once).
# Integral-equation responses in the forms the fredholm task reads (LaTeX, infix, RPN, none).
FREDHOLM = [
    "The solution is\n$$u(x) = x^{2} + \\sin(x)$$\nHAS_SOLUTION: yes\nSOLUTION_TYPE: exact_symbolic",
    "SOLUTION: u(x) = exp(-x)*cos(x)\nHAS_SOLUTION: yes",
    "SOLUTION: u(x) = x 2 ^ x sin +\nSOLUTION_TYPE: exact_symbolic",
    "HAS_SOLUTION: no\nSOLUTION_TYPE: none\nNo solution exists.",
    "u(x) \\approx 0.5 + 0.25 x - 0.1 x^2\nSOLUTION_TYPE: approx_coef",
    "SOLUTION: [(0.0, 1.2), (0.5, 2.4)]\nSOLUTION_TYPE: discrete_points",
    "u(x) = C\u00b7sin(\u03c0x)\nSOLUTION_TYPE: family",
    "SOLUTION: u(x) = lam*x + mu*sin(x)\nHAS_SOLUTION: yes",
    "u(x) = a\u2080 + a\u2081x + lambda_1*e**x",
]

RPN = [
    "x 2 ^ x sin +",
    "x neg exp x cos *",
    "1 2 + 3 *",
    "10 4 - 2 /",
    "2 sqrt",
    "x abs",
    "x ln",
    "pi 2 /",
    "e x ^",
    "1.5e-3 x *",
    "42",
    "x y * 3 / y -",
    "0 0 /",
    "1 0 /",
    "2 0.5 ^",
    "8 3 /",
]


def read_jsonl(path: Path) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def texts(rows: Iterable[dict[str, object]], *keys: str) -> list[str]:
    return [str(row[k]) for row in rows for k in keys if isinstance(row.get(k), str)]


def utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


#: Kernels K(x, t) of the residual harness's seeds (the candidates are the fredholm texts).
RESIDUAL_KERNELS = ["x*t", "\\sin(x - t)", "e^{x+t}", "x^2 t + 1", "\\frac{1}{1 + x t}"]


def write(out: Path, harness: str, seeds: Iterable[bytes]) -> int:
    folder = out / harness
    folder.mkdir(parents=True, exist_ok=True)
    names = set()
    for seed in seeds:
        seed = seed[-MAX_LEN:]
        name = hashlib.sha1(seed).hexdigest()
        if name not in names:
            names.add(name)
            (folder / name).write_bytes(seed)
    return len(names)


def absa_seed(text: str) -> list[bytes]:
    seeds = []
    if all(ord(c) < 256 for c in text):
        seeds.append(b"\x00" + text.encode("latin-1"))
    if all(ord(c) < 0x10000 for c in text):
        seeds.append(b"\x01" + text.encode("utf-16-le", "surrogatepass"))
    seeds.append(b"\x02" + text.encode("utf-32-le", "surrogatepass"))
    return seeds


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0])
    demo = read_jsonl(DEMO)
    cases = read_jsonl(DATA / "math_verify_0.9.0_cases.jsonl")
    verdicts = read_jsonl(DATA / "corpus_math_verify_0.9.0.jsonl")
    differences = read_jsonl(DATA / "deliberate_differences.jsonl")

    responses = texts(demo, "response") + texts(differences, "response")
    last_box = {i: m[-1] for i, r in enumerate(responses) if (m := BOXED.findall(r))}
    boxed = list(last_box.values())
    golds = texts(demo, "gold") + texts(cases, "gold") + texts(verdicts, "gold") + texts(differences, "gold")
    parsed = texts(cases, "pred", "gold_parsed", "pred_parsed") + texts(verdicts, "gold_parsed", "pred_parsed")
    answers = sorted(set(golds + boxed + parsed))
    test_files = sorted((ROOT / "tests" / "unit").glob("test_expr_*.py"))
    found = [m.groups() for p in test_files for m in EXPR_IN_TESTS.finditer(p.read_text(encoding="utf-8"))]
    infix = [text for text, syntax in found if syntax == "infix"]
    infix += [a for a in answers if "\\" not in a and "$" not in a]
    rpn = [text for text, syntax in found if syntax == "rpn"] + RPN
    pairs = [(str(r["gold"]), str(r["response"])) for r in demo + differences]
    answer_pairs = [(gold, last_box[i]) for i, (gold, _) in enumerate(pairs) if i in last_box]
    pairs += [(str(c["gold"]), str(c["pred"])) for c in cases if isinstance(c.get("pred"), str)]
    absa_texts = [str(t) for t in absa_data.TERMS + absa_data.REFS + absa_data.POLARITIES]

    physics = read_jsonl(DATA / "physics" / "dev.jsonl")
    physics_pairs = [(f"{r['gold']} {r['unit']}".strip(), str(r["response"])) for r in physics]
    fredholm_texts = texts(read_jsonl(DATA / "fredholm" / "parse_differences.jsonl"), "ours", "reference_solution_str")
    marked = "SOLUTION: u(x) = {}\nHAS_SOLUTION: yes\nSOLUTION_TYPE: exact_symbolic"
    fredholm_texts += [marked.format(t) for t in fredholm_texts]
    fredholm_texts += FREDHOLM

    other_pairs = pairs[len(demo) :]
    counts = {
        "fuzz_extract": write(out, "fuzz_extract", map(utf8, responses + answers)),
        "fuzz_scan": write(out, "fuzz_scan", map(utf8, responses + answers)),
        "fuzz_normalize": write(out, "fuzz_normalize", map(utf8, answers)),
        "fuzz_parse_latex": write(out, "fuzz_parse_latex", map(utf8, answers)),
        "fuzz_parse_infix": write(out, "fuzz_parse_infix", map(utf8, infix)),
        "fuzz_parse_rpn": write(out, "fuzz_parse_rpn", map(utf8, rpn)),
        "fuzz_rpn_eval": write(out, "fuzz_rpn_eval", map(utf8, rpn)),
        "fuzz_equiv": write(out, "fuzz_equiv", (utf8(g) + b"\0" + utf8(p) for g, p in answer_pairs + other_pairs)),
        "fuzz_grade": write(out, "fuzz_grade", (utf8(g) + b"\0" + utf8(r)[-MAX_LEN // 2 :] for g, r in pairs)),
        "fuzz_absa": write(out, "fuzz_absa", (s for t in absa_texts for s in absa_seed(t))),
        "fuzz_physics": write(out, "fuzz_physics", (utf8(g) + b"\0" + utf8(r) for g, r in physics_pairs)),
        "fuzz_fredholm": write(out, "fuzz_fredholm", map(utf8, fredholm_texts)),
        "fuzz_jsonl": write(out, "fuzz_jsonl", DEMO.read_bytes().splitlines()[:200]),
        "fuzz_eed": write(out, "fuzz_eed", (utf8(g) + b"\0" + utf8(p) for g, p in answer_pairs[:400])),
        "fuzz_residual": write(
            out,
            "fuzz_residual",
            (utf8(k) + b"\0" + utf8(c) for k in RESIDUAL_KERNELS for c in fredholm_texts[:60]),
        ),
    }
    for reproducer in sorted((ROOT / "cpp" / "fuzz" / "reproducers").glob("fuzz_*-*")):
        harness = reproducer.name.split("-", 1)[0]
        counts[harness] = counts.get(harness, 0) + write(out, harness, [reproducer.read_bytes()])
    for harness, n in counts.items():
        print(f"{harness:<18} {n:5d} seeds")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
