"""Runs every benchmark side by side with PyTorch and prints (or writes) the table.

    PYTHONPATH=python .venv/bin/python bench/run_all.py [--only small,matmul] [--write docs/PERF.md]
"""
import argparse
import datetime
import os
import pathlib
import platform
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))

import torch  # noqa: E402

import ember  # noqa: E402
from cases import ALL  # noqa: E402
from harness import markdown_table, measure  # noqa: E402


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    flags = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE"
    return (f"{cpu} ({isa}), {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"torch {torch.__version__} ({torch.get_num_threads()} threads), ember {ember.__version__}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=",".join(ALL))
    ap.add_argument("--write", help="markdown file whose benchmark table is replaced")
    args = ap.parse_args()
    results = []
    for group in args.only.split(","):
        for case in ALL[group]():
            r = measure(case)
            print(f"{case.group:18s} {case.name:36s} ratio {r.ratio:5.2f}", flush=True)
            results.append(r)
    table = markdown_table(results)
    header = (f"Measured {datetime.date.today().isoformat()} on {machine()}.\n"
              f"ratio = torch time / ember time (above 1: ember is faster), best of 5 blocks.\n")
    print(header)
    print(table)
    if args.write:
        path = pathlib.Path(args.write)
        text = path.read_text() if path.exists() else "# Performance\n\n<!-- bench -->\n<!-- /bench -->\n"
        start, end = text.index("<!-- bench -->"), text.index("<!-- /bench -->")
        text = text[:start] + "<!-- bench -->\n" + header + "\n" + table + "\n" + text[end:]
        path.write_text(text)


if __name__ == "__main__":
    main()
