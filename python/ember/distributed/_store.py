"""Key-value stores for rendezvous, as torch.distributed's: ``TCPStore``,
``FileStore``, ``HashStore``, ``PrefixStore`` (all ``Store``).

Values are bytes (``set`` also takes a str, stored as UTF-8); ``get`` and ``wait``
block until the keys exist or the store's timeout passes (``DistStoreError``);
``add`` keeps a decimal integer; ``compare_set`` swaps only when the current value
is the expected one. The stores are C++ (lib/distributed/): a TCPStore master runs
its server on a thread of its own process.

    store = TCPStore("127.0.0.1", 0, world_size=2, is_master=True,
                     timeout=timedelta(seconds=30), wait_for_workers=False)
    store.port  # the port the OS chose
"""
from .._C import _distributed as _dist

Store = _dist.Store
TCPStore = _dist.TCPStore
FileStore = _dist.FileStore
HashStore = _dist.HashStore
PrefixStore = _dist.PrefixStore

__all__ = ["Store", "TCPStore", "FileStore", "HashStore", "PrefixStore"]
