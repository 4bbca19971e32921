"""Fuzzes ember.load(weights_only=True) with damaged PyTorch checkpoints.

    PYTHONPATH=python python scripts/fuzz_checkpoint.py --seconds 120
    make fuzz-checkpoint                  # 30 minutes (FUZZ_CHECKPOINT_SECONDS)

The seeds are valid checkpoints that ember.save writes (byte for byte what torch.save
writes): state dicts, views sharing a storage, every dtype, nested plain values, an
optimizer's state, in the zip format (pickle protocols 2 and 4) and the legacy format.
Each input is a seed mutated by one or more of
  - bit flips and byte overwrites anywhere in the file;
  - truncation, and deletion / duplication / transplanting of byte ranges;
  - pickle-aware edits of the checkpoint's pickle: opcodes deleted, duplicated or
    swapped, spliced-in opcode snippets (globals such as os.system or builtins.eval,
    REDUCE / BUILD / SETITEM on the wrong objects, huge lengths, memo lookups), the
    arguments of GLOBALs and ints rewritten. In a zip checkpoint the edited pickle
    (or storage, or version record) is packed into a fresh, valid archive, so that the
    edit reaches the unpickler rather than the CRC check.

Each input goes to ember.load(io.BytesIO(data), weights_only=True) in-process, in a
worker process (every eighth input from a file, by path, half of those with mmap=True).
An input fails the run if
  - the load raises anything but the documented errors (pickle.UnpicklingError,
    RuntimeError, ValueError, EOFError, zipfile.BadZipFile);
  - the load imports a module, runs a command or compiles code (an audit hook watches);
  - the worker crashes (a signal, an abort) or makes no progress for --hang-seconds:
    the supervisor keeps the input being loaded in shared memory and saves it.
Failing inputs are written to --artifacts. The exit status is 1 if any input failed.
"""
import argparse
import collections
import io
import mmap
import multiprocessing
import os
import pickle
import pickletools
import random
import resource
import struct
import sys
import time
import traceback
import zipfile

ALLOWED = (pickle.UnpicklingError, RuntimeError, ValueError, EOFError, zipfile.BadZipFile)
MAX_INPUT = 1 << 20  # inputs are cut to this (the seeds are a few KB)
_HEADER = 16         # shared memory: [iterations: u64][length of the current input: u64][input]


# ---- seeds ---------------------------------------------------------------------------------

def make_seeds():
    """[(name, bytes)]: valid checkpoints, from ember.save."""
    import ember
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(4, 3), ember.nn.BatchNorm1d(3), ember.nn.ReLU(),
                                ember.nn.Linear(3, 2))
    opt = ember.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(2):
        opt.zero_grad()
        model(ember.randn(5, 4)).sum().backward()
        opt.step()
    x = ember.arange(24.0).reshape(4, 6)
    views = {"x": x, "t": x.t(), "row": x[1], "cols": x[:, ::2], "corner": x[1:, 2:],
             "scalar": ember.tensor(2.5), "empty": ember.zeros(0, 3),
             "param": ember.nn.Parameter(x[0]), "grad": ember.ones(2, requires_grad=True)}
    dtypes = {str(d): ember.arange(6).to(d) for d in (
        ember.float64, ember.float32, ember.float16, ember.bfloat16, ember.int64, ember.int32,
        ember.int16, ember.int8, ember.uint8, ember.bool)}
    plain = {"ints": [0, 1, -1, 255, 65535, 2 ** 31, -2 ** 63, 2 ** 70],
             "floats": [1.5, float("inf")], "str": "naïve ✓", "bytes": b"\x00\xff",
             "bytearray": bytearray(b"ab"), "set": {1, 2},
             "frozen": frozenset({"a"}), "complex": 1 + 2j, (1, "t"): None, "bool": True,
             "size": ember.Size([2, 3]), "device": ember.device("cpu"), "dtype": ember.bfloat16,
             "nested": collections.OrderedDict(a=[{"b": (1, 2.0)}])}
    objects = {"state_dict": model.state_dict(), "views": views, "dtypes": dtypes, "plain": plain,
               "optimizer": opt.state_dict()}
    seeds = []
    for name, obj in objects.items():
        for fmt, kwargs in (("zip2", {}), ("zip4", {"pickle_protocol": 4}),
                            ("legacy", {"_use_new_zipfile_serialization": False})):
            buf = io.BytesIO()
            ember.save(obj, buf, **kwargs)
            seeds.append((f"{name}-{fmt}", buf.getvalue()))
    return seeds


# ---- mutations -------------------------------------------------------------------------------

# Snippets to splice into a pickle: dangerous globals, calls and stack edits on the
# wrong objects, lengths that claim far more than the data holds.
SNIPPETS = [
    b"cos\nsystem\n", b"cposix\nsystem\n", b"c__builtin__\neval\n", b"cbuiltins\nexec\n",
    b"c__builtin__\ngetattr\n", b"csubprocess\nPopen\n", b"cimportlib\nimport_module\n",
    b"ctorch._utils\n_rebuild_tensor_v2\n", b"ctorch\nFloatStorage\n", b"ctorch\nSize\n",
    b"ctorch\ndevice\n", b"ccollections\nOrderedDict\n", b"c_codecs\nencode\n",
    b"c__builtin__\nbytearray\n", b"ctorch._tensor\n_rebuild_from_type_v2\n",
    b"ctorch.storage\n_load_from_bytes\n", b"ctorch\ncomplex64\n",
    b"\x8c\x02os\x8c\x06system\x93", b"R", b"b", b"s", b"u", b"a", b"e", b"Q", b"P0\n", b"(",
    b"t", b")", b"}", b"]", b"\x8f", b"\x90", b"\x91", b"\x81", b"\x92", b"\x94", b"0", b"1", b"2",
    b"N", b"\x88", b"\x89", b"h\x00", b"h\xff", b"j\xff\xff\xff\x7f", b"q\x00",
    b"r\xff\xff\xff\xff", b"K\xff", b"J\xff\xff\xff\xff", b"M\xff\xff", b"\x8a\x08" + b"\xff" * 8,
    b"\x8b\xff\xff\xff\x7f",
    b"X\xff\xff\xff\x7f", b"B\xff\xff\xff\xff", b"\x8e" + b"\xff" * 8, b"\x8d" + b"\xff" * 8,
    b"\x96" + b"\xff" * 8, b"T\xff\xff\xff\x7f", b"U\x05abc", b"X\x07\x00\x00\x00storage",
    b"X\x06\x00\x00\x00cuda:9", b"X\x03\x00\x00\x00mps", b"G\x7f\xf0\x00\x00\x00\x00\x00\x00",
    b"I99999999999999999999\n", b"L1" + b"0" * 5000 + b"L\n", b"F1e999\n", b"S'\\x41'\n",
    b"Vabc\\u1234\n", b"\x95" + b"\xff" * 8, b"\x80\x09", b"\x82\x01", b"\x97", b"\x98",
    b"ios\nsystem\n", b"o", b"g0\n", b"p0\n", b"d", b"l",
]
INTERESTING_INTS = [0, 1, -1, 2, 255, 256, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 62, 2 ** 63 - 1]


def opcode_spans(data):
    """[(start, end)] of each opcode of the pickle that starts data (empty if it does not parse)."""
    spans = []
    try:
        ops = list(pickletools.genops(data))
    except Exception:  # noqa: BLE001  (a mutated pickle need not parse)
        return spans
    for i, (_, _, pos) in enumerate(ops):
        end = ops[i + 1][2] if i + 1 < len(ops) else pos + 1
        spans.append((pos, end))
    return spans


def mutate_pickle(rng, data):
    spans = opcode_spans(data)
    if not spans:
        return mutate_bytes(rng, data)
    kind = rng.randrange(7)
    a, b = spans[rng.randrange(len(spans))]
    if kind == 6:    # repeat an opcode (or a snippet) many times: deep nesting, long stacks
        unit = data[a:b] if rng.random() < 0.5 else rng.choice(SNIPPETS)
        times = min(rng.choice((10, 1000, 100_000)), MAX_INPUT // (2 * max(len(unit), 1)))
        return data[:a] + unit * times + data[a:]
    if kind == 0:    # delete an opcode
        return data[:a] + data[b:]
    if kind == 1:    # duplicate one
        return data[:b] + data[a:b] + data[b:]
    if kind == 2:    # swap two
        c, d = spans[rng.randrange(len(spans))]
        if c < a:
            a, b, c, d = c, d, a, b
        if b <= c:
            return data[:a] + data[c:d] + data[b:c] + data[a:b] + data[d:]
        return data
    if kind == 3:    # splice in snippets before an opcode
        snippet = b"".join(rng.choice(SNIPPETS) for _ in range(rng.randint(1, 4)))
        return data[:a] + snippet + data[a:]
    if kind == 4:    # rewrite an int argument
        op = data[a]
        if op in b"KMJhjqr" and b - a > 1:
            width = b - a - 1
            value = rng.choice(INTERESTING_INTS) % (1 << (8 * width))
            return data[:a + 1] + value.to_bytes(width, "little") + data[b:]
        return data[:a] + bytes([rng.randrange(256)]) + data[a + 1:]
    # replace an opcode by a snippet
    return data[:a] + rng.choice(SNIPPETS) + data[b:]


def mutate_bytes(rng, data):
    data = bytearray(data)
    kind = rng.randrange(6)
    if not data:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    if kind == 0:    # bit flips
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif kind == 1:  # interesting bytes
        for _ in range(rng.randint(1, 4)):
            value = rng.choice((0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)))
            data[rng.randrange(len(data))] = value
    elif kind == 2:  # truncation
        del data[rng.randrange(len(data)):]
    elif kind == 3:  # delete a range
        i = rng.randrange(len(data))
        del data[i:i + rng.randint(1, 64)]
    elif kind == 4:  # duplicate a range
        i = rng.randrange(len(data))
        chunk = data[i:i + rng.randint(1, 64)]
        j = rng.randrange(len(data))
        data[j:j] = chunk
    else:            # a 32/64-bit field set to an interesting value
        i = rng.randrange(len(data))
        width = rng.choice((4, 8))
        value = rng.choice(INTERESTING_INTS) % (1 << (8 * width))
        data[i:i + width] = value.to_bytes(width, "little")
    return bytes(data)


def mutate_zip_record(rng, data):
    """Edits one record of a zip checkpoint and packs a fresh, valid archive."""
    from ember.serialization._zip import ZipWriter
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
        records = [(i.filename, z.read(i)) for i in z.infolist()]
    except Exception:  # noqa: BLE001
        return mutate_bytes(rng, data)
    if not records:
        return mutate_bytes(rng, data)
    prefix = records[0][0].split("/")[0]
    weights = [8 if n.endswith("data.pkl") else 1 for n, _ in records]
    i = rng.choices(range(len(records)), weights)[0]
    name, body = records[i]
    edit = mutate_pickle if name.endswith(".pkl") and rng.random() < 0.8 else mutate_bytes
    records[i] = (name, edit(rng, body))
    if rng.random() < 0.05:  # or drop a record
        del records[rng.randrange(len(records))]
    out = io.BytesIO()
    zw = ZipWriter(out.write, prefix)
    for n, body in records:
        zw.add(n[len(prefix) + 1:] if n.startswith(prefix + "/") else n, body)
    zw.finish()
    return out.getvalue()


def mutate_legacy(rng, data):
    """Edits the legacy stream: its pickles are the file's own bytes."""
    # The object's pickle is the fourth; edit any of them at an opcode boundary.
    starts, pos = [], 0
    for _ in range(5):
        spans = opcode_spans(data[pos:])
        if not spans:
            break
        starts.append(pos)
        pos += spans[-1][1]
    if not starts or rng.random() < 0.3:
        return mutate_bytes(rng, data)
    k = rng.randrange(len(starts))
    start = starts[k]
    end = starts[k + 1] if k + 1 < len(starts) else start + opcode_spans(data[start:])[-1][1]
    return data[:start] + mutate_pickle(rng, data[start:end]) + data[end:]


def mutate(rng, seeds):
    name, data = rng.choice(seeds)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        r = rng.random()
        if data[:2] == b"PK" and r < 0.6:
            data, how = mutate_zip_record(rng, data), "zip-record"
        elif data[:1] == b"\x80" and r < 0.6:
            data, how = mutate_legacy(rng, data), "legacy-pickle"
        elif r < 0.7 and rng.random() < 0.2:  # transplant part of another seed
            other = rng.choice(seeds)[1]
            i, j = rng.randrange(len(data) + 1), rng.randrange(len(other))
            data, how = data[:i] + other[j:j + rng.randint(1, 512)] + data[i:], "splice"
        else:
            data, how = mutate_bytes(rng, data), "bytes"
    return name, how, data[:MAX_INPUT]


# ---- the worker ------------------------------------------------------------------------------

class Watch:
    """An audit hook that records what a weights_only load must never do."""

    EVENTS = ("os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "subprocess.Popen",
              "exec", "compile", "ctypes.dlopen", "socket.connect", "shutil.rmtree", "os.remove")

    def __init__(self):
        self.active = False
        self.seen = []
        sys.addaudithook(self._hook)

    def _hook(self, event, args):
        if not self.active:
            return
        if event == "import":
            module = args[0]
            # Decoding with a standard codec may import its module the first time.
            if module not in sys.modules and not module.startswith("encodings."):
                self.seen.append(f"import {module}")
        elif event == "exec" and "/encodings/" in getattr(args[0], "co_filename", ""):
            pass  # ... and run it
        elif event.startswith(self.EVENTS):
            self.seen.append(event)


def worker(shared, seeds, seconds, seed, artifacts, memory_mb, results):
    import ember
    # The address-space cap catches an input that makes the loader reserve a huge buffer.
    # AddressSanitizer reserves terabytes of shadow address space and cannot run under
    # such a cap (every later mmap fails: MemoryError in zipfile), so under `make
    # sanitize` (EMBER_SANITIZED=1) ASan's own allocation limit stands in for it.
    if os.environ.get("EMBER_SANITIZED") != "1":
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, resource.RLIM_INFINITY))
    import faulthandler
    faulthandler.enable()
    rng = random.Random(seed)
    watch = Watch()
    stats = collections.Counter()
    outcomes = collections.Counter()
    failures = []
    seen_failures = set()
    deadline = time.monotonic() + seconds
    scratch = os.path.join(artifacts, f"scratch-{os.getpid()}.pt")
    n = 0
    for _, data in seeds:  # the seeds themselves must load
        ember.load(io.BytesIO(data))
    while time.monotonic() < deadline:
        name, how, data = mutate(rng, seeds)
        shared[_HEADER:_HEADER + len(data)] = data
        shared[8:16] = struct.pack("<Q", len(data))
        n += 1
        shared[0:8] = struct.pack("<Q", n)
        stats[how] += 1
        # Most inputs are loaded from memory; every eighth from a file, by path (half of
        # those through a memory map), where seeks and reads go to the OS.
        source = io.BytesIO(data)
        if n % 8 == 0:
            with open(scratch, "wb") as f:
                f.write(data)
            source = scratch
        watch.active, watch.seen = True, []
        error = None
        try:
            ember.load(source, weights_only=True, mmap=(n % 16 == 0) or None)
        except BaseException as e:  # noqa: BLE001  (sorted out below)
            error = e
        finally:
            watch.active = False
        if error is None:
            outcome = "loaded"
        elif isinstance(error, ALLOWED):
            outcome = type(error).__name__
        elif isinstance(error, KeyboardInterrupt):
            raise error
        else:  # anything else is what we look for
            outcome = "FAIL " + type(error).__name__
            key = (type(error).__name__, str(error)[:60])
            if key not in seen_failures:
                seen_failures.add(key)
                path = os.path.join(artifacts, f"failure-{len(failures)}.bin")
                with open(path, "wb") as f:
                    f.write(data)
                failures.append(f"{path} ({name}, {how}): {type(error).__name__}: {error}\n"
                                + "".join(traceback.format_exception(error))[-1500:])
        if watch.seen:
            outcome = "FAIL side effect"
            path = os.path.join(artifacts, f"side-effect-{len(failures)}.bin")
            with open(path, "wb") as f:
                f.write(data)
            failures.append(f"{path} ({name}, {how}): the load did {watch.seen}")
        outcomes[outcome] += 1
    if os.path.exists(scratch):
        os.remove(scratch)
    results.send({"iterations": n, "mutations": dict(stats), "outcomes": dict(outcomes),
                  "failures": failures})


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=120, help="how long to fuzz")
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock)")
    ap.add_argument("--artifacts", default="build-fuzz-checkpoint",
                    help="where failing inputs are written")
    ap.add_argument("--hang-seconds", type=float, default=20,
                    help="a load that takes longer than this is a failure")
    ap.add_argument("--memory-mb", type=int, default=8192, help="address-space limit of the worker")
    args = ap.parse_args(argv)
    seed = args.seed if args.seed is not None else int(time.time())
    os.makedirs(args.artifacts, exist_ok=True)
    seeds = make_seeds()
    print(f"fuzz_checkpoint: {len(seeds)} seeds ({sum(len(d) for _, d in seeds)} bytes), "
          f"seed {seed}, {args.seconds:.0f} s", flush=True)

    shared = mmap.mmap(-1, _HEADER + MAX_INPUT)
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=worker, args=(shared, seeds, args.seconds, seed, args.artifacts,
                                            args.memory_mb, send))
    proc.start()
    send.close()
    result, failures = None, []
    last_count, last_change = -1, time.monotonic()
    while True:
        if receive.poll(0.5):
            try:
                result = receive.recv()
            except EOFError:
                pass
            break
        if not proc.is_alive():
            break
        count = struct.unpack("<Q", shared[0:8])[0]
        if count != last_count:
            last_count, last_change = count, time.monotonic()
        elif time.monotonic() - last_change > args.hang_seconds:
            proc.kill()
            failures.append(_save_current(shared, args.artifacts, "hang",
                                          f"no progress for {args.hang_seconds:.0f} s"))
            break
    proc.join(timeout=30)
    if result is None and not failures:
        failures.append(_save_current(shared, args.artifacts, "crash",
                                      f"the worker died (exit code {proc.exitcode})"))
    if result is not None:
        failures.extend(result["failures"])
        rate = result["iterations"] / max(args.seconds, 1e-9)
        print(f"{result['iterations']} inputs ({rate:.0f}/s)")
        print("mutations:", ", ".join(f"{k} {v}" for k, v in sorted(result["mutations"].items())))
        print("outcomes: ", ", ".join(f"{k} {v}" for k, v in sorted(result["outcomes"].items())))
    for failure in failures:
        print("FAILURE:", failure)
    print("fuzz_checkpoint:", "FAILED" if failures else "OK (no failures)")
    return 1 if failures else 0


def _save_current(shared, artifacts, what, why):
    (length,) = struct.unpack("<Q", shared[8:16])
    path = os.path.join(artifacts, f"{what}.bin")
    with open(path, "wb") as f:
        f.write(shared[_HEADER:_HEADER + length])
    return f"{path}: {why} while loading this input"


if __name__ == "__main__":
    sys.exit(main())
