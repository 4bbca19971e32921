"""Bad calls of the Python front end: ember.tensor, numpy and DLPack exchange,
printing options, pickling input, Tensor protocols."""
import numpy as np

import ember


def _consumed_capsule():
    cap = ember.zeros(2).__dlpack__()
    ember.from_dlpack(cap)
    return ember.from_dlpack(cap)


def _set_requires_grad(t):
    t.requires_grad = True


def _nested(depth):
    data = 1.0
    for _ in range(depth):
        data = [data]
    return data


def _unaligned_float32():
    buf = np.zeros(9, np.uint8)
    return np.frombuffer(buf.data, dtype=np.float32, count=2, offset=1)


CASES = [
    # ---- ember.tensor ---------------------------------------------------------------
    ("tensor of a ragged list", lambda: ember.tensor([[1, 2], [3]]), ValueError,
     r"expected sequence of length 2 at dim 1 \(got 1\)"),
    ("tensor of a ragged 3-d list", lambda: ember.tensor([[[1], [2]], [[3], [4], [5]]]), ValueError,
     r"expected sequence of length 2 at dim 1 \(got 3\)"),
    ("tensor with a number where a row belongs", lambda: ember.tensor([[1, 2], 3]), TypeError,
     r"expected a sequence at dim 1"),
    ("tensor with a row where a number belongs", lambda: ember.tensor([1, [2, 3]]), TypeError,
     r"expected a number at dim 1 \(got list\)"),
    ("tensor of a string", lambda: ember.tensor("abc"), TypeError, r"invalid data type 'str'"),
    ("tensor with a string inside", lambda: ember.tensor([1.0, "a"]), TypeError,
     r"invalid data type 'str'"),
    ("tensor of None", lambda: ember.tensor(None), RuntimeError, r"Could not infer dtype of NoneType"),
    ("tensor of a dict", lambda: ember.tensor({1: 2}), RuntimeError, r"Could not infer dtype of dict"),
    ("tensor of complex numbers", lambda: ember.tensor([1 + 2j]), TypeError, r"complex"),
    ("tensor value overflowing uint8", lambda: ember.tensor([300], dtype=ember.uint8), RuntimeError,
     r"cannot be converted to type uint8 without overflow"),
    ("tensor of nan as int64", lambda: ember.tensor([float("nan")], dtype=ember.int64), RuntimeError,
     r"int64 without overflow"),
    ("tensor of an int beyond int64 (torch: ValueError)", lambda: ember.tensor([2**64]), ValueError,
     r"int64 without overflow"),
    ("tensor of ints with requires_grad", lambda: ember.tensor([1, 2], requires_grad=True),
     RuntimeError, r"floating point.*int64"),
    ("tensor nested too deep", lambda: ember.tensor(_nested(70)), ValueError, r"too many dimensions"),
    ("tensor of a numpy string array", lambda: ember.tensor(np.array(["a"])), TypeError,
     r"numpy\.str_"),
    ("tensor of a list holding tensors of several elements (PyTorch takes each as a number)",
     lambda: ember.tensor([ember.zeros(2), ember.zeros(3)]), ValueError,
     r"only one element tensors can be converted to Python scalars"),
    ("tensor on an unknown device", lambda: ember.tensor([1.0], device="gpu"), RuntimeError,
     r"device type.*gpu"),
    ("tensor with a device of the wrong type", lambda: ember.tensor([1.0], device=3), TypeError,
     r"expected a device.*int"),
    ("tensor with a string dtype", lambda: ember.tensor([1], dtype="float32"), TypeError, r"tensor"),
    # ---- from_numpy / numpy() / __array__ -----------------------------------------------
    ("from_numpy of a list", lambda: ember.from_numpy([1, 2]), TypeError,
     r"expected np.ndarray \(got list\)"),
    ("from_numpy of complex", lambda: ember.from_numpy(np.zeros(2, np.complex64)), TypeError,
     r"can't convert np.ndarray of type numpy.complex64"),
    ("from_numpy of objects", lambda: ember.from_numpy(np.array([1, None])), TypeError,
     r"numpy.object_"),
    ("from_numpy of uint16", lambda: ember.from_numpy(np.zeros(2, np.uint16)), TypeError,
     r"numpy.uint16.*only supported types"),
    ("from_numpy with negative strides", lambda: ember.from_numpy(np.arange(4.0)[::-1]), ValueError,
     r"negative"),
    ("from_numpy of big-endian data", lambda: ember.from_numpy(np.zeros(3, ">f4")), ValueError,
     r"byte order"),
    ("from_numpy of unaligned data", lambda: ember.from_numpy(_unaligned_float32()), ValueError,
     r"not aligned"),
    ("numpy() of bfloat16", lambda: ember.zeros(2, dtype=ember.bfloat16).numpy(), TypeError,
     r"Got unsupported ScalarType BFloat16"),
    ("numpy() of a tensor requiring grad", lambda: ember.zeros(2, requires_grad=True).numpy(),
     RuntimeError, r"Can't call numpy\(\) on Tensor that requires grad\. Use tensor\.detach\(\)\.numpy\(\)"),
    ("np.asarray of bfloat16", lambda: np.asarray(ember.zeros(2, dtype=ember.bfloat16)), TypeError,
     r"BFloat16"),
    ("__array__ that would need a copy", lambda: ember.zeros(2).__array__(np.float64, copy=False),
     ValueError, r"Unable to avoid copy"),
    # ---- DLPack ------------------------------------------------------------------------
    ("from_dlpack of a list", lambda: ember.from_dlpack([1.0]), TypeError,
     r"from_dlpack: expected an object with __dlpack__.*got list"),
    ("from_dlpack of a consumed capsule", _consumed_capsule, ValueError, r"already consumed"),
    ("from_dlpack with negative strides", lambda: ember.from_dlpack(np.arange(3.0)[::-1]), ValueError,
     r"negative strides"),
    ("from_dlpack of complex", lambda: ember.from_dlpack(np.zeros(2, np.complex128)), TypeError,
     r"unsupported DLPack dtype complex128"),
    ("__dlpack__ of a tensor requiring grad", lambda: ember.zeros(2, requires_grad=True).__dlpack__(),
     BufferError, r"require gradient"),
    ("__dlpack__ to another device", lambda: ember.zeros(2).__dlpack__(dl_device=(2, 0)), BufferError,
     r"cannot export a tensor on cpu"),
    ("__dlpack__ with a stream on CPU", lambda: ember.zeros(2).__dlpack__(stream=5), BufferError,
     r"stream must be None"),
    # ---- Tensor protocols ------------------------------------------------------------------
    ("iterating a 0-d tensor", lambda: iter(ember.tensor(1.0)), TypeError, r"iteration over a 0-d tensor"),
    ("setting requires_grad on ints", lambda: _set_requires_grad(ember.zeros(2, dtype=ember.int32)),
     RuntimeError, r"only Tensors of floating point dtype can require gradients.*int32"),
    ("requires_grad_ on bools", lambda: ember.zeros(2, dtype=ember.bool).requires_grad_(), RuntimeError,
     r"floating point"),
    ("Size of floats", lambda: ember.Size([2.5]), TypeError, r"iterable of 'int' \(item 0 is 'float'\)"),
    # ---- unpickling input ---------------------------------------------------------------
    ("_rebuild_tensor with too few bytes", lambda: ember._rebuild_tensor(b"\0" * 7, "float32", (2,)),
     ValueError, r"7 bytes do not make a tensor of shape \[2\]"),
    ("_rebuild_tensor with an unknown dtype", lambda: ember._rebuild_tensor(b"", "complex64", (0,)),
     TypeError, r"unknown dtype 'complex64'"),
    ("_rebuild_tensor with a bad bool", lambda: ember._rebuild_tensor(b"\x02", "bool", (1,)), ValueError,
     r"bad bool value"),
    ("_rebuild_tensor of a str", lambda: ember._rebuild_tensor("abcd", "float32", (1,)), TypeError,
     r"expected bytes"),
    ("_rebuild_tensor with a negative size", lambda: ember._rebuild_tensor(b"", "float32", (-1,)),
     RuntimeError, r"negative dimension"),
    ("_rebuild_tensor with a huge shape", lambda: ember._rebuild_tensor(b"", "float32", (2**40, 2**40)),
     ValueError, r"too large"),
    ("_rebuild_tensor with a big shape and few bytes", lambda: ember._rebuild_tensor(b"", "int8", (2**40,)),
     ValueError, r"0 bytes do not make a tensor of shape \[1099511627776\]"),
    ("tensor of the most negative int as uint8",
     lambda: ember.tensor([-2**63], dtype=ember.uint8), RuntimeError, r"uint8 without overflow"),
    # ---- printing options ---------------------------------------------------------------
    ("negative precision", lambda: ember.set_printoptions(precision=-1), ValueError,
     r"precision must be >= 0"),
    ("float precision", lambda: ember.set_printoptions(precision=2.5), TypeError,
     r"precision must be an int"),
    ("zero linewidth", lambda: ember.set_printoptions(linewidth=0), ValueError, r"linewidth must be >= 1"),
    ("negative edgeitems", lambda: ember.set_printoptions(edgeitems=-2), ValueError, r"edgeitems"),
    ("string threshold", lambda: ember.set_printoptions(threshold="10"), TypeError,
     r"threshold must be a number"),
    ("unknown profile", lambda: ember.set_printoptions(profile="long"), ValueError, r"profile must be one of"),
    ("non-bool sci_mode", lambda: ember.set_printoptions(sci_mode="yes"), TypeError,
     r"sci_mode must be None, True or False"),
    ("set_num_threads of 0", lambda: ember.set_num_threads(0), RuntimeError,
     r"set_num_threads expects a positive integer, got 0"),
]
