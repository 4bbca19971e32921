"""ember.backends and ember.set_float32_matmul_precision: the numerics switches of the
CUDA libraries, which exist (and are kept) without a GPU too. Their effect on the
CUDA kernels is tested in test_cuda_linalg.py."""
import pytest

import ember


@pytest.fixture(autouse=True)
def restore_flags():
    """Every test leaves the process-wide switches as it found them."""
    saved = (ember.get_float32_matmul_precision(), ember.backends.cudnn.allow_tf32,
             ember.backends.cudnn.benchmark)
    yield
    ember.set_float32_matmul_precision(saved[0])
    ember.backends.cudnn.allow_tf32 = saved[1]
    ember.backends.cudnn.benchmark = saved[2]


def test_defaults_are_pytorchs():
    assert ember.backends.cuda.matmul.allow_tf32 is False
    assert ember.get_float32_matmul_precision() == "highest"
    assert ember.backends.cudnn.allow_tf32 is True
    assert ember.backends.cudnn.benchmark is False


def test_matmul_allow_tf32_is_settable_and_readable():
    ember.backends.cuda.matmul.allow_tf32 = True
    assert ember.backends.cuda.matmul.allow_tf32 is True
    assert ember.get_float32_matmul_precision() == "high"
    ember.backends.cuda.matmul.allow_tf32 = False
    assert ember.backends.cuda.matmul.allow_tf32 is False
    assert ember.get_float32_matmul_precision() == "highest"


@pytest.mark.parametrize("precision,tf32", [("highest", False), ("high", True), ("medium", True)])
def test_float32_matmul_precision_sets_allow_tf32(precision, tf32):
    ember.set_float32_matmul_precision(precision)
    assert ember.get_float32_matmul_precision() == precision
    assert ember.backends.cuda.matmul.allow_tf32 is tf32


def test_float32_matmul_precision_ignores_case_as_torch():
    ember.set_float32_matmul_precision("HIGH")
    assert ember.get_float32_matmul_precision() == "high"


def test_bad_precision_raises():
    ember.set_float32_matmul_precision("high")
    with pytest.raises(ValueError, match="'low' is not one of 'highest', 'high' or 'medium'"):
        ember.set_float32_matmul_precision("low")
    assert ember.get_float32_matmul_precision() == "high"  # unchanged
    with pytest.raises(TypeError):
        ember.set_float32_matmul_precision(1)
    with pytest.raises(TypeError):
        ember.set_float32_matmul_precision(None)


def test_cudnn_flags_are_settable_and_readable():
    ember.backends.cudnn.allow_tf32 = False
    assert ember.backends.cudnn.allow_tf32 is False
    ember.backends.cudnn.benchmark = True
    assert ember.backends.cudnn.benchmark is True
    # cuDNN's switch is its own: matmul's stays as it was.
    assert ember.backends.cuda.matmul.allow_tf32 is False


@pytest.mark.parametrize("value", [1, 0, None, "True", 1.0])
def test_flags_take_bools_only(value):
    with pytest.raises(TypeError, match="expects a bool"):
        ember.backends.cuda.matmul.allow_tf32 = value
    with pytest.raises(TypeError, match="expects a bool"):
        ember.backends.cudnn.allow_tf32 = value
    with pytest.raises(TypeError, match="expects a bool"):
        ember.backends.cudnn.benchmark = value
    assert ember.backends.cuda.matmul.allow_tf32 is False
    assert ember.backends.cudnn.allow_tf32 is True
    assert ember.backends.cudnn.benchmark is False


def test_unknown_matmul_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="Unknown attribute allow_fp8"):
        ember.backends.cuda.matmul.allow_fp8  # noqa: B018
    with pytest.raises(AttributeError, match="Unknown attribute allow_fp8"):
        ember.backends.cuda.matmul.allow_fp8 = True


def test_backends_imports_as_torch():
    import ember.backends.cuda
    import ember.backends.cudnn
    assert ember.backends.cuda.is_built() == ember.cuda.is_built()
    assert "allow_tf32" in dir(ember.backends.cuda.matmul)


def test_cpu_capability_is_a_level_torch_names():
    # torch.backends.cpu.get_cpu_capability(): the performance-checklist programs print it.
    torch = pytest.importorskip("torch")
    import ember.backends.cpu
    level = ember.backends.cpu.get_cpu_capability()
    assert level in ("AVX512", "AVX2", "DEFAULT")
    # The CPU's own level, as torch reads it.
    assert level == torch.backends.cpu.get_cpu_capability()
