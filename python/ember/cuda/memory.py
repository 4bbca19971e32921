"""ember.cuda.memory: the CUDA caching allocator's functions under torch.cuda.memory's
module path (the same functions as ember.cuda's; programs import them from here too)."""
from . import (empty_cache, get_per_process_memory_fraction, max_memory_allocated,  # noqa: F401
               max_memory_cached, max_memory_reserved, mem_get_info, memory_allocated, memory_cached,
               memory_reserved, memory_snapshot, memory_stats, memory_stats_as_nested_dict,
               memory_summary, reset_accumulated_memory_stats, reset_max_memory_allocated,
               reset_max_memory_cached, reset_peak_memory_stats, set_per_process_memory_fraction)

__all__ = ["empty_cache", "get_per_process_memory_fraction", "max_memory_allocated", "max_memory_cached",
           "max_memory_reserved", "mem_get_info", "memory_allocated", "memory_cached", "memory_reserved",
           "memory_snapshot", "memory_stats", "memory_stats_as_nested_dict", "memory_summary",
           "reset_accumulated_memory_stats", "reset_max_memory_allocated", "reset_max_memory_cached",
           "reset_peak_memory_stats", "set_per_process_memory_fraction"]
