"""ember.xpu: torch.xpu's availability queries. ember has no Intel GPU (XPU) backend, so
none is available; programs ask before choosing the "xpu" device."""


def is_available():
    """False: ember cannot run on an Intel GPU."""
    return False


def device_count():
    """0: no XPU device is usable by ember."""
    return 0
