"""End to end: `rapidgrade score` on a big JSONL file vs a math-verify script over the same file.

    python -m benchmarks.bench_cli [--rows 1000000] [--mv-rows 2000]

Writes the demo corpus replicated to --rows rows into a temporary JSONL file, then times, in one
run:
- the floor: a script that only reads the file's lines with orjson and writes them back with
  orjson (no grading, no metrics), in a subprocess like the job;
- `rapidgrade score FILE --quiet` (a subprocess: reading, grading, writing evaluated.jsonl,
  metrics.json and report.html), and its peak memory;
- a script that reads the same file and runs math-verify's verify(parse("$gold$"),
  parse(response)) on each row in one process, on its first --mv-rows rows (math-verify grades
  about 1,000 pairs/s, so a million rows would take a quarter of an hour; the figures compared
  are rows/s, each measured on its own file prefix, stated as such in the output).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._common import load_corpus

FLOOR_SCRIPT = """
import sys, time, orjson
src, dst = sys.argv[1], sys.argv[2]
start = time.perf_counter()
rows = 0
with open(src, "rb") as f, open(dst, "wb") as out:
    while True:
        lines = f.readlines(1 << 20)
        if not lines:
            break
        block = [orjson.dumps(orjson.loads(line)) for line in lines]
        block.append(b"")
        out.write(b"\\n".join(block))
        rows += len(lines)
print(orjson.dumps({"rows": rows, "seconds": time.perf_counter() - start}).decode())
"""

MV_SCRIPT = """
import json, sys, time
from math_verify import parse, verify
path, limit = sys.argv[1], int(sys.argv[2])
start = time.perf_counter()
done = correct = 0
with open(path, encoding="utf-8") as f:
    for line in f:
        if done >= limit:
            break
        row = json.loads(line)
        correct += bool(verify(parse("$" + row["gold"] + "$"), parse(row["response"])))
        done += 1
print(json.dumps({"rows": done, "correct": correct, "seconds": time.perf_counter() - start}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--mv-rows", type=int, default=2000)
    args = parser.parse_args()
    corpus = load_corpus()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "rows.jsonl"
        with data.open("w", encoding="utf-8") as f:
            for i in range(args.rows):
                row = corpus[i % len(corpus)]
                record = {
                    "id": f"{row['id']}#{i}",
                    "gold": row["gold"],
                    "response": row["response"],
                    "level": row["level"],
                }
                f.write(json.dumps(record) + "\n")
        size_gb = data.stat().st_size / 1e9
        print(f"input: {args.rows:,} rows, {size_gb:.2f} GB")

        start = time.perf_counter()
        floor_run = subprocess.run(
            [sys.executable, "-c", FLOOR_SCRIPT, str(data), str(Path(tmp) / "floor.jsonl")],
            check=True,
            capture_output=True,
            text=True,
        )
        floor_wall = time.perf_counter() - start
        floor = json.loads(floor_run.stdout.strip().splitlines()[-1])
        assert floor["rows"] == args.rows
        (Path(tmp) / "floor.jsonl").unlink()

        start = time.perf_counter()
        command = [sys.executable, "-m", "rapidgrade", "score", str(data), "--out", str(Path(tmp) / "out"), "--quiet"]
        job = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        # The job's own peak memory (ru_maxrss of this child alone, from wait4).
        _, status, usage = os.wait4(job.pid, 0)
        ours = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"rapidgrade score failed: exit {os.waitstatus_to_exitcode(status)}")
        metrics = json.loads((Path(tmp) / "out" / "metrics.json").read_text())
        assert metrics["rows"] == args.rows
        ours_rate = args.rows / ours
        floor_rate = args.rows / floor_wall
        print(
            f"rapidgrade score: {args.rows:,} rows in {ours:.1f} s = {ours_rate:,.0f} rows/s end to end "
            f"(accuracy {metrics['accuracy']:.4f})"
        )
        print(
            f"floor (orjson read + write only, same file, same run): {args.rows:,} rows in {floor_wall:.1f} s "
            f"= {floor_rate:,.0f} rows/s; rapidgrade score takes {ours / floor_wall:.2f}x the floor's time"
        )
        peak_mb = usage.ru_maxrss / 1024
        print(f"rapidgrade score peak memory (max RSS): {peak_mb:,.0f} MB for a {size_gb:.2f} GB input (streamed)")
        print(
            f"target: {args.rows:,} rows in under 10 s (>= 100,000 rows/s), peak RSS under 500 MB: "
            f"{'met' if ours_rate >= 100_000 and peak_mb < 500 else 'NOT met'} on this machine "
            f"(cores: {os.cpu_count()}, load average {os.getloadavg()[0]:.1f})"
        )

        out = subprocess.run(
            [sys.executable, "-c", MV_SCRIPT, str(data), str(args.mv_rows)], check=True, capture_output=True, text=True
        )
        mv = json.loads(out.stdout.strip().splitlines()[-1])
        mv_rate = mv["rows"] / mv["seconds"]
        print(
            f"math-verify script: {mv['rows']:,} rows (a sample of the same file) in {mv['seconds']:.1f} s "
            f"= {mv_rate:,.0f} rows/s"
        )
        print(
            f"ratio: {ours_rate / mv_rate:,.1f}x rows/s (rapidgrade end to end on {args.rows:,} rows "
            f"vs math-verify on {mv['rows']:,})"
        )


if __name__ == "__main__":
    main()
