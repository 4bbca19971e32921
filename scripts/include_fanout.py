"""How many of the build's object files include a given file (from ninja's recorded
dependencies): what a change to that file recompiles.

    python scripts/include_fanout.py build generated/dispatch/op_ids/elementwise.h include/ember/tensor.h
"""
import subprocess
import sys


def main():
    build, files = sys.argv[1], sys.argv[2:]
    text = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True,
                          check=True).stdout
    deps, cur = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" ") and ":" in line:
            cur = line.split(":")[0]
            deps[cur] = []
        elif line.strip() and cur:
            deps[cur].append(line.strip())
    objects = [k for k in deps if k.endswith(".o")]
    print(f"{len(objects)} object files")
    for f in files:
        n = sum(1 for o in objects if any(d.endswith(f) for d in deps[o]))
        print(f"{f}: {n} ({100 * n / max(len(objects), 1):.0f}%)")


if __name__ == "__main__":
    main()
