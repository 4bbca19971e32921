"""init_method URLs to a store, a rank and a world size, as torch.distributed's
rendezvous handlers do:

- ``env://``: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE from the environment (the
  rank= and world_size= arguments win over RANK and WORLD_SIZE);
- ``tcp://host:port[?rank=R&world_size=N]``: rank 0 runs the TCPStore server;
- ``file:///path[?rank=R&world_size=N]``: a FileStore on a shared file system.
"""
import os
from urllib.parse import parse_qs, urlparse

from ._store import FileStore, TCPStore


def _error(kind, message):
    return ValueError(f"Error initializing ember.distributed using {kind} rendezvous: {message}")


def _int_setting(value, name, kind, env_name=None):
    if value is None or value == -1:
        if env_name is not None:
            text = os.environ.get(env_name)
            if text is None:
                raise _error(kind, f"environment variable {env_name} expected, but not set")
            value = text
        else:
            raise _error(kind, f"{name} parameter missing")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise _error(kind, f"{name} must be an integer, got {value!r}") from None


def rendezvous(url, rank, world_size, timeout):
    """(store, rank, world_size) for an init_method URL."""
    if not isinstance(url, str):
        raise TypeError(f"init_method must be a str, got {type(url).__name__}")
    parsed = urlparse(url)
    query = {k: v[-1] for k, v in parse_qs(parsed.query).items()}
    if parsed.scheme == "env":
        rank = _int_setting(rank, "rank", "env://", "RANK")
        world_size = _int_setting(world_size, "world_size", "env://", "WORLD_SIZE")
        addr = os.environ.get("MASTER_ADDR")
        if not addr:
            raise _error("env://", "environment variable MASTER_ADDR expected, but not set")
        port = _int_setting(None, "MASTER_PORT", "env://", "MASTER_PORT")
        return _tcp_store(addr, port, rank, world_size, timeout), rank, world_size
    if parsed.scheme == "tcp":
        rank = _int_setting(query.get("rank", rank), "rank", "tcp://")
        world_size = _int_setting(query.get("world_size", world_size), "world_size", "tcp://")
        if not parsed.hostname or parsed.port is None:
            raise _error("tcp://", f"the URL {url!r} has no host:port")
        return _tcp_store(parsed.hostname, parsed.port, rank, world_size, timeout), rank, world_size
    if parsed.scheme == "file":
        rank = _int_setting(query.get("rank", rank), "rank", "file://")
        world_size = _int_setting(query.get("world_size", world_size), "world_size", "file://")
        path = parsed.path or parsed.netloc
        if not path:
            raise _error("file://", f"the URL {url!r} has no path")
        store = FileStore(path, world_size)
        store.set_timeout(timeout)
        return store, rank, world_size
    raise ValueError(f"No rendezvous handler for {parsed.scheme}:// (ember has env://, tcp://, file://)")


def _tcp_store(host, port, rank, world_size, timeout):
    if world_size <= 0:
        raise ValueError(f"world_size must be positive, got {world_size}")
    if not 0 <= rank < world_size:
        raise ValueError(f"rank {rank} is out of range for world_size {world_size}")
    return TCPStore(host, port, world_size, rank == 0, timeout, wait_for_workers=True)
