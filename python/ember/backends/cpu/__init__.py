"""ember.backends.cpu: the CPU's vector instruction level (torch.backends.cpu).

get_cpu_capability() names it as PyTorch does ("AVX512", "AVX2" or "DEFAULT" on x86-64).
ember's kernels are built for the baseline and pick AVX2/AVX-512 paths at run time where
they have them (the dtype conversions), so the level is the CPU's own, read from the
flags the kernel reports."""
import functools
import platform

__all__ = ["get_cpu_capability"]

# What each level needs, as in ATen's cpu capability check (AVX512 means F, BW, VL and DQ).
_AVX512_FLAGS = {"avx512f", "avx512bw", "avx512vl", "avx512dq"}
_AVX2_FLAGS = {"avx2", "fma"}


@functools.lru_cache(maxsize=None)
def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def get_cpu_capability():
    """The CPU's vector level as a string: "AVX512", "AVX2" or "DEFAULT" (x86-64); "DEFAULT"
    elsewhere (PyTorch names its ARM/POWER/Z levels otherwise; ember has no such paths)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return "DEFAULT"
    flags = _cpu_flags()
    if _AVX512_FLAGS <= flags:
        return "AVX512"
    if _AVX2_FLAGS <= flags:
        return "AVX2"
    return "DEFAULT"
