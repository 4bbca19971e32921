"""The caching allocator from Python: statistics and steady-state behaviour."""
import gc

import ember


def stats():
    return ember.memory_stats()


def test_stats_have_the_documented_keys():
    s = stats()
    for key in ("allocated_bytes", "reserved_bytes", "peak_allocated_bytes", "num_raw_allocs",
                "num_allocs", "num_frees", "num_cache_hits"):
        assert key in s and s[key] >= 0
    assert s["reserved_bytes"] >= s["allocated_bytes"]


def test_allocated_bytes_follow_tensor_lifetimes():
    gc.collect()
    base = stats()["allocated_bytes"]
    t = ember.empty(1 << 20)  # 4 MiB
    assert stats()["allocated_bytes"] >= base + 4 * (1 << 20)
    del t
    assert stats()["allocated_bytes"] == base


def test_peak_is_tracked_and_resettable():
    ember.reset_peak_memory_stats()
    base = stats()["allocated_bytes"]
    t = ember.empty(1 << 21)
    del t
    s = stats()
    assert s["peak_allocated_bytes"] >= base + 8 * (1 << 20)
    ember.reset_peak_memory_stats()
    assert stats()["peak_allocated_bytes"] == stats()["allocated_bytes"]


def test_steady_loop_makes_no_raw_allocations_after_its_first_iteration():
    x = ember.randn(256, 256)
    y = ember.randn(256, 256)

    def step():
        z = (x + y) * x
        w = z.t().contiguous().sum(0)
        return (w @ x).relu().mean()

    step()
    before = stats()["num_raw_allocs"]
    for _ in range(200):
        step()
    assert stats()["num_raw_allocs"] == before


def test_empty_cache_returns_cached_blocks():
    # Free memory that stays reserved after empty_cache sits in segments that live
    # tensors partly use; other tests in this process may hold some, so the measure is
    # relative to what is left before this test's own allocation.
    ember.empty_cache()
    before = stats()
    held = before["reserved_bytes"] - before["allocated_bytes"]
    t = ember.empty(1 << 22)
    del t
    assert stats()["reserved_bytes"] > stats()["allocated_bytes"]
    ember.empty_cache()
    s = stats()
    assert s["reserved_bytes"] - s["allocated_bytes"] <= held + (1 << 20)
