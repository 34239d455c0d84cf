"""``tokviz encode`` of a large file against a plain tiktoken script: time and peak memory.

The plain script is what one would write by hand: read the whole file, ``enc.encode`` it with
GPT-2's ranks (the same ``r50k_base.tiktoken`` file tokviz ships, so no network), and write the ids
space-separated. ``tokviz encode FILE -o OUT`` must write the same bytes. Every run is a fresh
process, which reports its own peak RSS. Ratios are tokviz / plain script, in the same run.

    python benchmarks/bench_cli_encode.py [--mb 100] [--json-mb 10]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

from corpora import cache_dir, corpus_path  # noqa: E402

PLAIN = """
import sys, tiktoken
from tiktoken.load import load_tiktoken_bpe
from tokviz.core.pretok.pretokenize import GPT2_PATTERN
ranks = load_tiktoken_bpe(sys.argv[1])
enc = tiktoken.Encoding("gpt2", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                        special_tokens={"<|endoftext|>": 50256})
with open(sys.argv[2], encoding="utf-8", newline="") as fh:
    text = fh.read()
ids = enc.encode(text, allowed_special="all")
with open(sys.argv[3], "w") as out:
    out.write(" ".join(map(str, ids)) + "\\n")
"""
# Each child reports its own peak RSS as the last line of its stderr (what wait4 reports for a
# child can include its parent's memory from before the exec).
REPORT = "\nimport resource\nsys.stderr.write(f'{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n')\n"
TOKVIZ = "import sys\nfrom tokviz.cli import main\ncode = main(sys.argv[1:])" + REPORT + "sys.exit(code)\n"


def big_file(mb: int, cache: str | None) -> Path:
    """The stdlib corpus repeated to ``mb`` megabytes (cut at a line end), built on first use."""
    target = cache_dir(cache) / f"encode-{mb}mb.txt"
    if not target.exists():
        src = corpus_path("stdlib", cache).read_bytes()
        data = (src * (mb * 2**20 // len(src) + 1))[: mb * 2**20]
        data = data[: data.rfind(b"\n") + 1]
        tmp = target.with_suffix(".partial")
        tmp.write_bytes(data)
        tmp.replace(target)
    return target


def measure(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB, as the child reports it) of one child process."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")]))
    )
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:2])} ... failed: {done.stderr.strip()}")
    return wall, int(done.stderr.split()[-1]) / 1024


def main(argv: list[str] | None = None) -> int:
    """Run the plain script and ``tokviz encode`` (ids, then json on a smaller file); print the rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100, help="size of the file for the ids rows")
    parser.add_argument("--json-mb", type=int, default=10, help="size of the file for the json row")
    parser.add_argument("--cache", help="corpus cache directory")
    args = parser.parse_args(argv)
    ranks = HERE.parent / "resources" / "encodings" / "r50k_base.tiktoken"
    tokviz = [sys.executable, "-c", TOKVIZ, "encode"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out_plain = Path(tmp) / "plain.txt"
        out_tv = Path(tmp) / "tokviz.txt"
        path = big_file(args.mb, args.cache)
        t_plain, m_plain = measure(
            [sys.executable, "-c", PLAIN + REPORT, str(ranks), str(path), str(out_plain)]
        )
        t_tv, m_tv = measure([*tokviz, str(path), "-o", str(out_tv)])
        # Compared a block at a time: the parent stays small, and a child's peak RSS includes
        # its parent's at the fork (Linux keeps the larger across exec).
        same = filecmp.cmp(out_plain, out_tv, shallow=False)
        rows.append((f"ids, {args.mb} MB", t_tv, m_tv, t_plain, m_plain, same))
        small = big_file(args.json_mb, args.cache)
        t_ids, m_ids = measure([*tokviz, str(small), "-o", str(out_tv)])
        t_json, m_json = measure([*tokviz, str(small), "--format", "json", "-o", str(out_tv)])
    print("GPT-2 (r50k_base); files: the stdlib sources repeated to size; one process per run")
    print(f"{'':14}  {'tokviz':>16}  {'plain tiktoken':>16}  {'ratio':>6}  ids identical")
    for name, t, m, tp, mp, ok in rows:
        print(
            f"{name:14}  {t:7.2f} s {m:5.0f} MB  {tp:7.2f} s {mp:5.0f} MB  {t / tp:5.2f}x  {'yes' if ok else 'NO'}"
        )
    print(
        f"json, {args.json_mb} MB    {t_json:7.2f} s {m_json:5.0f} MB  (ids format {t_ids:.2f} s {m_ids:.0f} MB)  "
        f"json/ids {t_json / t_ids:.2f}x"
    )
    target = rows[0][1] / rows[0][3] <= 1.2 and rows[0][2] <= 300 and t_json / t_ids <= 2
    print(f"targets (<= 1.2x plain, <= 300 MB, json <= 2x ids): {'met' if target else 'NOT met'}")
    return 0 if rows[0][5] else 1


if __name__ == "__main__":
    sys.exit(main())
