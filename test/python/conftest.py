import os
import pathlib
import sys

# Tests import their shared helpers (_helpers, error_cases) from this folder.
sys.path.insert(0, str(pathlib.Path(__file__).parent))

import pytest  # noqa: E402

import ember  # noqa: E402

# Every dispatched call of the test run is checked against its op's schema row
# (lib/dispatch/schema/): a row that misstates an op's arguments fails the tests.
ember._C._set_schema_checks(True)

# Device-parameterized tests: a test that takes a `device` argument runs once per
# available device ("cpu", and "cuda" when a GPU is usable). A test marked
# @pytest.mark.cuda needs a GPU and is skipped, with the reason, without one.
DEVICES = ["cpu"] + (["cuda"] if ember.cuda.is_available() else [])
NO_GPU_REASON = ("no CUDA GPU is available" if ember.cuda.is_built()
                 else "ember was built without CUDA")


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: the test needs a CUDA GPU (skipped without one)")
    config.addinivalue_line(
        "markers", "release_numerics: the test holds ember to torch bit for bit (or within a few "
        "ulp amplified over many steps), which only the release build's code generation reproduces; "
        "skipped under make sanitize (EMBER_SANITIZED=1, an -O1 build)")


# make sanitize (scripts/sanitize_run.sh) sets EMBER_SANITIZED=1 for its -O1 build.
SANITIZED = bool(os.environ.get("EMBER_SANITIZED"))


def pytest_collection_modifyitems(config, items):
    skips = []
    if not ember.cuda.is_available():
        skips.append(("cuda", pytest.mark.skip(reason=NO_GPU_REASON)))
    if SANITIZED:
        skips.append(("release_numerics", pytest.mark.skip(
            reason="bit-exact comparison with torch: the sanitized -O1 build computes in another order")))
    for item in items:
        for marker, skip in skips:
            if item.get_closest_marker(marker):
                item.add_marker(skip)


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
