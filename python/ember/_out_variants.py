"""PyTorch's `out=` keyword, for every function that takes it in PyTorch.

`torch.add(a, b, out=c)` writes the result into c and returns c. ember's bindings do
not take `out`; instead each function PyTorch gives an out= form is wrapped (install,
at import) in a `_C._OutVariant`: a call without `out` goes straight to the binding
(the wrapper costs a scan of the keyword names, in C), and a call with `out` comes here.
call_with_out applies PyTorch's rules once for all of them:

1. `out` is a tensor (a tuple of them for the functions that return several:
   `max(x, 1, out=(values, indices))`), else TypeError naming the argument;
2. no autograd through an out= call: with grad mode on, an input or an out that
   requires grad is a RuntimeError;
3. the result is computed as without `out` (factories take out's dtype and device, and
   the reductions with a `dtype` argument compute in out's dtype, as PyTorch does);
4. every out is checked before any is written (nothing is lost when one is refused):
   the device must be the result's; the dtype must be one the result casts to (or, for
   the ops PyTorch holds to the result's own dtype, EXACT_DTYPE, that dtype); an out
   whose elements overlap each other, or that partly overlaps an input, is refused;
5. an out of another shape is resized (with PyTorch's deprecation warning when it had
   elements), then the result is copied into it, and the out itself is returned.

The result is computed into a new tensor and copied, so an out= call costs one copy
more than PyTorch's; an out that is also an input (`add(x, y, out=x)`) is safe.
"""
from __future__ import annotations

import functools
import warnings

from . import _C, _numpy_arg_names

# Ops whose out must have the result's exact dtype (PyTorch refuses a float64 out for a
# float32 result: "Expected out tensor to have dtype float, but got double instead", or
# the op's own words): matrix products, sorts and selections, the rounding and sign
# ops, the index writes. Every other op casts into out's dtype when the result's dtype
# casts to it (PyTorch's TensorIterator rule). max, min, median and nanmedian are exact
# in their (values, indices) form only. test_out_variants.py checks each against PyTorch.
EXACT_DTYPE = frozenset("""
    mm bmm matmul addmm addbmm baddbmm addmv mv dot vdot inner tensordot chain_matmul cross
    sort argsort msort topk kthvalue mode cummax cummin aminmax argmax argmin nonzero
    searchsorted bucketize multinomial amax amin logcumsumexp softmax log_softmax quantile nanquantile norm
    abs absolute ceil conj_physical fix floor frac neg negative round sgn sign trunc hardshrink
    nan_to_num float_power bitwise_not heaviside renorm signbit isneginf isposinf all any isin
    where clamp clip clamp_min clamp_max index_select gather take take_along_dim masked_select
    tril triu diag narrow_copy scatter scatter_add scatter_reduce index_add index_copy
    index_reduce slice_scatter histc histogram lu_unpack geqrf orgqr ormqr triangular_solve
    cholesky lu_solve inverse matrix_power qr svd slogdet frexp special_round
    linalg_cross linalg_matmul linalg_multi_dot linalg_vecdot linalg_vector_norm
""".split())
EXACT_WHEN_TUPLE = frozenset("max min median nanmedian".split())
# PyTorch has no out= form of these without `dim` (TypeError there).
OUT_NEEDS_DIM = frozenset("median nanmedian".split())
# cat and its spellings refuse an out the inputs cannot cast to with a TypeError.
CAT_LIKE = frozenset("cat concat concatenate stack hstack vstack dstack column_stack row_stack".split())
# Ops PyTorch composes from others, whose out= records autograd through the copy into
# out (out then requires grad) instead of refusing an input that requires grad.
GRAD_THROUGH_OUT = frozenset("""
    conj_physical floor_divide softmax log_softmax quantile nanquantile nuclear_norm heaviside
    inner tensordot diag slice_scatter histogram special_ndtr
""".split())
# Non-differentiable ops with a floating result: an out that requires grad is fine.
NON_DIFFERENTIABLE = frozenset("histc".split())
# Factories and a few composites resize out silently (no deprecation warning).
SILENT_RESIZE = frozenset("""
    arange range linspace logspace empty zeros ones full eye narrow_copy addbmm
""".split())

# Reductions with a `dtype` argument: out's dtype becomes the computation's dtype.
DTYPE_FROM_OUT = frozenset("sum nansum prod cumsum cumprod".split())

# Factories: the result takes out's dtype and device (unless the call names them).
FACTORIES = frozenset("""
    arange range linspace logspace empty zeros ones full eye rand randn randint randperm
""".split())

_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
               "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long", "uint8": "Byte",
               "bool": "Bool"}
# c10's names, as PyTorch's "Expected out tensor to have dtype ..." message spells them.
_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int8": "signed char", "int16": "short int", "int32": "int", "int64": "long int",
            "uint8": "unsigned char", "bool": "bool"}


def _short(dtype) -> str:
    return str(dtype).replace("ember.", "")


def type_name(dtype) -> str:
    """PyTorch's ScalarType name of dtype (Float, Long, ...)."""
    return _TYPE_NAMES.get(_short(dtype), _short(dtype))


def _tensors_in(value):
    if isinstance(value, _C.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors_in(v)


def check_out_argument(op: str, out, inputs, n_outputs: int | None = 1, check_grad=True):
    """Steps 1 and 2: out's type (n_outputs None: a tensor or a tuple) and, with
    check_grad, no autograd (for an op known to be differentiable; write_outputs checks
    the others on their results). Returns out as a list of tensors."""
    if isinstance(out, _C.Tensor):
        if n_outputs not in (1, None):
            raise TypeError(f"{op}(): argument 'out' must be tuple of Tensors, not Tensor")
        outs = [out]
    elif isinstance(out, (tuple, list)) and n_outputs != 1:
        if not all(isinstance(o, _C.Tensor) for o in out):
            bad = next(type(o).__name__ for o in out if not isinstance(o, _C.Tensor))
            raise TypeError(f"{op}(): argument 'out' must be tuple of Tensors, but found element "
                            f"of type {bad}")
        if n_outputs is not None and len(out) != n_outputs:
            raise TypeError(f"expected tuple of {n_outputs} elements but got {len(out)}")
        outs = list(out)
    elif n_outputs is None:  # the arity is known from the result: write_outputs says which
        outs = []
    else:
        expected = "Tensor" if n_outputs == 1 else "tuple of Tensors"
        raise TypeError(f"{op}(): argument 'out' must be {expected}, not {type(out).__name__}")
    if check_grad and _C.is_grad_enabled() and any(t.requires_grad for t in (*_tensors_in(inputs), *outs)):
        _refuse_autograd(op)
    return outs


def _refuse_autograd(op):
    raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic "
                       "differentiation, but one of the arguments requires grad.")


def _byte_range(t):
    """[first, last] byte addresses t's elements occupy (t non-empty)."""
    start = t.data_ptr()
    last = start + sum((s - 1) * st for s, st in zip(t.shape, t.stride()) if s > 0) * t.element_size()
    return start, last + t.element_size() - 1


def _check_overlap(op, out, inputs):
    """PyTorch's refusals: an out whose elements share memory (an expanded tensor), and
    an out that partly overlaps an input (the same elements exactly is allowed)."""
    if out.numel() > 1 and any(st == 0 and s > 1 for s, st in zip(out.shape, out.stride())):
        raise RuntimeError(f"{op}(): unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the tensor "
                           "before performing the operation.")
    if out.numel() == 0:
        return
    o_first, o_last = _byte_range(out)
    for t in _tensors_in(inputs):
        if t is out or t.numel() == 0 or t.device != out.device:
            continue
        first, last = _byte_range(t)
        if first > o_last or o_first > last:
            continue
        same = (t.data_ptr() == out.data_ptr() and tuple(t.shape) == tuple(out.shape)
                and t.stride() == out.stride() and t.dtype == out.dtype)
        if not same:
            raise RuntimeError(f"{op}(): unsupported operation: some elements of the input tensor and "
                               "the written-to tensor refer to a single memory location. Please "
                               "clone() the tensor before performing the operation.")


def check_result_fits(op: str, result, out, exact_dtype: bool):
    """Step 4 for one output: device, dtype."""
    if out.device != result.device:
        raise RuntimeError(f"{op}(): Expected out tensor to have device {result.device}, but got "
                           f"{out.device} instead")
    if exact_dtype:
        if out.dtype != result.dtype:
            raise RuntimeError(f"{op}(): Expected out tensor to have dtype "
                               f"{_C_NAMES.get(_short(result.dtype))}, but got "
                               f"{_C_NAMES.get(_short(out.dtype))} instead")
    elif not _C.can_cast(result.dtype, out.dtype):
        error = TypeError if op in CAT_LIKE else RuntimeError
        raise error(f"{op}(): result type {type_name(result.dtype)} can't be cast to the desired "
                    f"output type {type_name(out.dtype)}")


def write_result(result, out, warn=True, stacklevel=5, grad=False):
    """Step 5 for one output: resize (warning as PyTorch when out had elements), copy
    (recorded by autograd when grad: the ops of GRAD_THROUGH_OUT)."""
    if tuple(out.shape) != tuple(result.shape):
        if warn and out.numel() != 0:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape {list(out.shape)}, "
                f"which does not match the required output shape {list(result.shape)}. This behavior "
                "is deprecated, and in a future PyTorch release outputs will not be resized unless "
                "they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
                "inplace, to zero elements with t.resize_(0).", UserWarning, stacklevel=stacklevel)
        out.resize_(tuple(result.shape))
    if grad:
        out.copy_(result)
        return
    previous = _C.is_grad_enabled()
    _C._set_grad_enabled(False)
    try:
        out.copy_(result.detach())
    finally:
        _C._set_grad_enabled(previous)


def write_outputs(op: str, result, out, exact=None, inputs=(), warn=None):
    """Steps 4 and 5: result (a tensor or a tuple of them) into out (the same structure),
    every out checked before any is written. Returns out, as a named tuple where result
    is one. exact/warn default to the op's policy above."""
    results = list(result) if isinstance(result, tuple) else [result]
    if isinstance(result, tuple):
        if isinstance(out, _C.Tensor):
            raise TypeError(f"{op}(): argument 'out' must be tuple of Tensors, not Tensor")
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"{op}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
        if len(out) != len(results):
            raise TypeError(f"expected tuple of {len(results)} elements but got {len(out)}")
        outs = list(out)
    elif not isinstance(out, _C.Tensor):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    else:
        outs = [out]
    if exact is None:
        exact = op in EXACT_DTYPE or (op in EXACT_WHEN_TUPLE and isinstance(result, tuple))
    if warn is None:
        warn = op not in SILENT_RESIZE
    grad = _C.is_grad_enabled() and op in GRAD_THROUGH_OUT
    if _C.is_grad_enabled() and not grad:
        differentiable = op not in NON_DIFFERENTIABLE and any(r.is_floating_point() for r in results)
        if any(r.requires_grad for r in results) or (differentiable and any(o.requires_grad for o in outs)):
            _refuse_autograd(op)
    for r, o in zip(results, outs):
        check_result_fits(op, r, o, exact)
        _check_overlap(op, o, inputs)
        if grad and o.requires_grad and o.is_leaf:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    for r, o in zip(results, outs):
        write_result(r, o, warn, grad=grad)
    if not isinstance(result, tuple):
        return outs[0]
    if type(result) is tuple:
        return tuple(outs)
    try:  # a named tuple (ember.return_types.*): built from its fields
        return type(result)(*outs)
    except TypeError:
        return type(result)(outs)


def call_with_out(op: str, fn, *args, out, **kwargs):
    """fn(*args, **kwargs) written into out, by steps 1 to 5 of the module's rules."""
    if out is None:
        return fn(*args, **kwargs)
    inputs = (args, tuple(kwargs.values()))
    # argsort's out= is sort's (values, indices): refused for an input that requires grad.
    outs = check_out_argument(op, out, inputs, n_outputs=None, check_grad=op == "argsort")
    if not outs:  # not a tensor nor a tuple: the result's arity names the expected type
        return write_outputs(op, fn(*args, **kwargs), out)
    if op in FACTORIES:
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = outs[0].dtype
        if kwargs.get("device") is None:
            kwargs["device"] = outs[0].device
    elif op in DTYPE_FROM_OUT and kwargs.get("dtype") is None:
        kwargs["dtype"] = outs[0].dtype
    if op in ("nansum", "nanmean") and not outs[0].dtype.is_floating_point:
        raise NotImplementedError(f'"nansum_cpu" not implemented for \'{type_name(outs[0].dtype)}\'')
    if op == "argsort" and "stable" not in kwargs:
        raise TypeError("argsort(): out= is taken with the keyword argument `stable` only "
                        "(argsort(input, *, stable, dim=-1, descending=False, out))")
    result = fn(*args, **kwargs)
    if op in OUT_NEEDS_DIM and not isinstance(result, tuple):
        raise TypeError(f'{op}() missing 1 required positional arguments: "dim"')
    return write_outputs(op, result, out, inputs=inputs)


def _takes_out(fn) -> bool:
    """Whether fn handles `out=` itself (some linalg/special functions and factories do)."""
    import inspect
    try:
        return "out" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


# Ops whose out changes the computation before it runs: no fast path (csrc/out_variants.cpp).
_BEFORE_COMPUTING = FACTORIES | DTYPE_FROM_OUT | {"nansum", "nanmean", "argsort"}


def wrap(op: str, fn):
    """fn, taking out= by call_with_out (fn itself when it takes out already). Where out
    does not change the computation, the C++ fast path computes the result and hands a
    result that does not fit out as it is to _finish."""
    if isinstance(fn, _C._OutVariant) or _takes_out(fn):
        return fn
    finish = None if op in _BEFORE_COMPUTING else functools.partial(_finish, op)
    # Inside, fn also takes numpy's keyword names (axis=, keepdims=; _numpy_arg_names.py).
    return _C._OutVariant(_numpy_arg_names.wrap(fn), functools.partial(_dispatch, op), finish)


def _finish(op, result, out, inputs):
    """Steps 4 and 5 for a result the C++ fast path computed (it checked steps 1 and 2)."""
    if op in OUT_NEEDS_DIM and not isinstance(result, tuple):
        raise TypeError(f'{op}() missing 1 required positional arguments: "dim"')
    return write_outputs(op, result, out, inputs=inputs)


def _dispatch(op, fn, *args, **kwargs):
    out = kwargs.pop("out")
    return call_with_out(op, fn, *args, out=out, **kwargs)


# The functions PyTorch gives an out= form, per namespace (from torch's own signatures;
# test_out_variants.py checks this list against the installed PyTorch).
TORCH_FUNCTIONS = """
    abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr all amax amin aminmax angle
    any arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin argsort asin asinh
    atan atan2 atanh baddbmm bernoulli bitwise_and bitwise_left_shift bitwise_not bitwise_or
    bitwise_right_shift bitwise_xor bmm bucketize cat ceil chain_matmul cholesky cholesky_inverse
    cholesky_solve clamp clamp_max clamp_min clip column_stack concat concatenate conj_physical
    copysign cos cosh cross cummax cummin cumprod cumsum deg2rad diag diff digamma div divide dot
    dstack empty eq erf erfc erfinv exp exp2 expm1 eye fix float_power floor floor_divide fmax fmin
    fmod frac frexp full gather gcd ge geqrf ger greater greater_equal gt hardshrink heaviside histc
    histogram hstack hypot i0 igamma igammac index_add index_copy index_reduce index_select inner
    inverse isin isneginf isposinf kron kthvalue lcm ldexp le lerp less less_equal lgamma linspace log
    log10 log1p log2 log_softmax logaddexp logaddexp2 logcumsumexp logical_and logical_not logical_or
    logical_xor logit logspace logsumexp lt lu_solve lu_unpack masked_select matmul matrix_power max
    maximum mean median min minimum mm mode msort mul multinomial multiply mv mvlgamma nan_to_num
    nanmean nanmedian nanquantile nansum narrow_copy ne neg negative nextafter nonzero normal
    not_equal nuclear_norm frobenius_norm norm ones orgqr ormqr outer polygamma pow prod qr quantile
    rad2deg rand randint randn randperm range reciprocal remainder renorm round row_stack rsqrt
    scatter scatter_add scatter_reduce searchsorted sgn sigmoid sign signbit sin sinc sinh
    slice_scatter slogdet softmax sort sqrt square stack std sub subtract sum svd take
    take_along_dim tan tanh tensordot threshold topk triangular_solve tril triu true_divide trunc
    var vdot vstack where xlogy zeros
    alias_copy as_strided_copy detach_copy diagonal_copy expand_copy permute_copy select_copy
    slice_copy split_copy split_with_sizes_copy squeeze_copy t_copy transpose_copy unbind_copy
    unfold_copy unsqueeze_copy view_copy
""".split()

LINALG_FUNCTIONS = "cross matmul multi_dot vecdot vector_norm".split()

SPECIAL_FUNCTIONS = """
    digamma entr erf erfc erfinv exp2 expit expm1 gammaln i0 i1 log1p logit logsumexp polygamma psi
    round sinc xlogy ndtr
""".split()


def install(module, names, prefix=""):
    """Replaces each of module's functions named in names by its out= form."""
    for name in names:
        fn = getattr(module, name, None)
        if fn is None or isinstance(fn, type) or not callable(fn):
            continue
        setattr(module, name, wrap(prefix + name, fn))
