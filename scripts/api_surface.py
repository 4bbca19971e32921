"""Which of PyTorch's public names ember has, per namespace, and which it lacks.

    python scripts/api_surface.py              # the table and the missing names
    python scripts/api_surface.py --markdown   # the table for docs/surface.md

A name counts when PyTorch's namespace has it as a callable or a class (modules,
constants and dtypes are not counted; the submodules are listed apart). Names that are
not part of a program's surface are left out of the count, each by a rule below that
says why: re-exports of the standard library, TorchScript's IR, quantized and sparse
tensors, complex numbers, the private kernels PyTorch exposes for its own backends,
names PyTorch itself deprecated or removed, and what other issues deliver (autocast,
distributed). test/python/test_api_surface.py runs this and holds the coverage to the
floors in FLOORS.
"""
import argparse
import inspect
import re
import sys
import types

# The namespaces compared, as paths under `torch` / `ember` ("" is the top level).
NAMESPACES = ["", "Tensor", "nn", "nn.functional", "nn.init", "nn.utils", "optim",
              "optim.lr_scheduler", "autograd", "utils.data", "special", "cuda", "func"]

# Left out of every namespace: (regular expression over the name, why).
EXCLUDED_EVERYWHERE = [
    (r"^(q_|quantize|quantized_|dequantize$|fake_quantize|choose_qparams|int_repr$|qscheme$"
     r"|empty_quantized$|fused_moving_avg_obs_fake_quant$|Q(U)?Int\w*Storage$)",
     "quantized tensors are not supported"),
    (r"(^sparse_|_sparse_?$|^to_sparse|^(c?col|crow|row)_indices|^(s|d|h|hs|ss)(p)?(add)?mm$"
     r"|^saddmm$|^dsmm$|^is_coalesced$|^coalesce$|^(dense|sparse)_dim$|^indices$|^values$"
     r"|^indices_copy$|^values_copy$|^sparse_mask$|^SparseAdam$)",
     "sparse layouts are not supported"),
    (r"(^complex$|^polar$|^view_as_(real|complex)|^real$|^imag$|^conj_physical|^chalf$"
     r"|^cfloat$|^cdouble$|^Complex\w*Storage$|^ComplexType$|^i?stft$)",
     "complex dtypes are not supported (stft/istft return or take complex spectra)"),
    (r"^(to_padded_tensor|nested_\w+)$", "nested tensors are not supported"),
    (r"^xpu$", "no XPU device (Intel GPUs) in ember"),
    (r"^(cudnn_|miopen_|mkldnn_|fbgemm_|batch_norm_(stats|elemt|gather|update|backward)"
     r"|native_|to_mkldnn$|is_vulkan_available$|norm_except_dim$)",
     "private kernels of PyTorch's own backends"),
    (r"(autocast|^GradScaler$|^amp$)", "mixed precision: issue 18"),
    (r"^(intrinsic|qat|quantizable|quantized)$", "quantized tensors are not supported"),
    (r"^(DataParallel|SyncBatchNorm|DistributedSampler|is_distributed|parallel|distributed"
     r"|nccl)$",
     "distributed training: issue 16"),
]

# Left out of one namespace: {namespace: [(regular expression, why)]}.
EXCLUDED = {
    "": [
        (r"^(AliasDb|AnyType|Argument|ArgumentSpec|AwaitType|Block|BoolType|CallStack|Capsule"
         r"|ClassType|Code|CompilationUnit|CompleteArgumentSpec|ConcreteModuleType\w*"
         r"|DeviceObjType|DictType|EnumType|ErrorReport|ExecutionPlan|FileCheck|FloatType"
         r"|FunctionSchema|Future|FutureType|Gradient|Graph|GraphExecutorState|IODescriptor"
         r"|InferredType|IntType|InterfaceType|JITException|ListType|LiteScriptModule"
         r"|NoneType|NumberType|OptionalType|PyObjectType|RRefType|Script\w+|StreamObjType"
         r"|StringType|TensorType|TracingState|TupleType|Type|UnionType|Use|Value"
         r"|SymBoolType|SymIntType|StaticModule|fork|wait|parse_ir|parse_schema"
         r"|parse_type_comment|merge_type_from_type_comment|unify_type_list|import_ir_module\w*"
         r"|AggregationType|LockingLogger|LoggerBase|NoopLogger|OperatorInfo|Tag"
         r"|BenchmarkConfig|BenchmarkExecutionStats|ThroughputBenchmark|FatalError"
         r"|DeepCopyMemoTable|DeserializationStorageContext|SerializationStorageContext"
         r"|ScriptModuleSerializer|PyTorchFileReader|PyTorchFileWriter|ModuleDict|ParameterDict"
         r"|BufferDict)$",
         "TorchScript's IR and runtime classes (ember.jit traces instead)"),
        (r"^(DispatchKey|DispatchKeySet|ExcludeDispatchKeyGuard|DisableTorchFunction\w*"
         r"|classproperty|get_file_path|prepare_multiprocessing_environment|profiler_\w+"
         r"|thread_safe_generator|hash_tensor)$",
         "PyTorch's own dispatcher and build internals"),
        (r"^Sym\w+$",
         "symbolic size types (ember's traces find symbolic sizes by fitting, docs/jit.md)"),
        (r"^(eig|lstsq|solve|symeig|matrix_rank|qr|cholesky|lobpcg|pca_lowrank|svd_lowrank)$",
         "removed or deprecated in PyTorch in favour of torch.linalg"),
        (r"^(segment_reduce|slice_inverse)$",
         "undocumented in PyTorch (a prototype and a graph-compiler helper)"),
    ],
    "Tensor": [
        (r"^(map2_|reinforce|module_load|ipu|mtia|slice_inverse|hash_tensor)$",
         "storage internals and PyTorch's own hooks"),
        (r"^(eig|lstsq|solve|symeig|qr|cholesky|lu)$",
         "removed or deprecated in PyTorch in favour of torch.linalg"),
    ],
    "nn": [
        (r"^(Container|NLLLoss2d|factory_kwargs)$", "deprecated in PyTorch"),
        (r"^(LinearCrossEntropyLoss|LinearCrossEntropyOptions)$",
         "prototype in PyTorch, not released API"),
    ],
    "nn.functional": [
        (r"^(Callable|DType|Optional|Tensor|ScalingType|SwizzleType|boolean_dispatch"
         r"|assert_int_or_pair|handle_torch_function|has_torch_function\w*)$",
         "imports and helpers of torch.nn.functional's own source"),
        (r"^(grouped_mm|scaled_mm|scaled_addmm_?|scaled_grouped_mm|native_channel_shuffle"
         r"|linear_cross_entropy)$",
         "low-precision GPU prototypes"),
    ],
    "nn.init": [
        (r"^(Callable|Literal|ParamSpec|Tensor|TypeVar)$", "typing imports"),
        (r"^(constant|dirac|eye|kaiming_normal|kaiming_uniform|normal|orthogonal|sparse"
         r"|uniform|xavier_normal|xavier_uniform)$",
         "deprecated aliases (PyTorch warns: use the name ending in _)"),
    ],
    "nn.utils": [
        (r"^clip_grad_norm$", "deprecated alias of clip_grad_norm_"),
        (r"^convert_conv[23]d_weight_memory_format$", "channels_last layouts (not supported)"),
    ],
    "optim": [
        (r"^(Muon|Adafactor|swap_in_optimizer_params_and_state)$",
         "prototypes in PyTorch's optim namespace"),
    ],
    "optim.lr_scheduler": [
        (r"^(Any|Literal|Self|SupportsFloat|Tensor|TypedDict|cast|override|partial|ref)$",
         "imports of the module's own source"),
    ],
    "autograd": [
        (r"^(DeviceType|Mapping|Sequence|cast|overload|handle_torch_function"
         r"|has_torch_function|is_tensor_like)$",
         "imports of the module's own source"),
        (r"^(Profiler\w+|kineto_available|enforce_grad_layout_policy|is_view_replay_enabled"
         r"|NestedIOFunction)$",
         "profiler and engine internals"),
        (r"^(Variable|variable)$", "deprecated (Variable is Tensor since PyTorch 0.4)"),
        (r"^SavedTensor$", "saved-tensor hooks: issue 18"),
    ],
    "utils.data": [
        (r"^(DFIterDataPipe|DataChunk|IterDataPipe|MapDataPipe|argument_validation"
         r"|functional_datapipe|guaranteed_datapipes_determinism|non_deterministic"
         r"|runtime_validation\w*)$",
         "DataPipes, deprecated in PyTorch"),
    ],
    "special": [
        (r"^Tensor$", "an import of the module's own source"),
    ],
    "cuda": [
        (r"^(Any|Callable|Enum|NewType|Optional|auto|cast|classproperty|lru_cache)$",
         "imports of the module's own source"),
        (r"^\w+(Tensor|Storage)$", "legacy typed tensor classes"),
        (r"^(GreenContext|MemPool|use_mem_pool|CUDAPluggableAllocator|change_current_allocator"
         r"|get_allocator_backend|cudart|cudaStatus|check_error|export_dot|export_graph_data"
         r"|is_tf32_supported|get_gencode_flags|device_memory_used|list_gpu_processes|power_draw"
         r"|temperature|utilization|clock_rate|memory_usage|get_stream_from_external"
         r"|current_blas_handle|current_solver_handle|caching_allocator_\w+|host_memory\w*"
         r"|reset_accumulated_host_memory_stats|reset_peak_host_memory_stats"
         r"|get_sync_debug_mode|set_sync_debug_mode|ipc_collect|DeferredCudaCallError|cache)$",
         "driver, NVML and allocator plumbing that needs PyTorch's CUDA runtime"),
    ],
    "func": [
        (r"^rearrange$", "einops' rearrange under vmap (needs the einops package)"),
    ],
}

# The coverage (percent of the counted names) each namespace must keep; raised as
# names land. The goal is 95 everywhere.
FLOORS = {"": 99, "Tensor": 99, "nn": 100, "nn.functional": 100, "nn.init": 100,
          "nn.utils": 100, "optim": 100, "optim.lr_scheduler": 100, "autograd": 100,
          "utils.data": 100, "special": 100, "cuda": 100, "func": 100}


def _resolve(root, path):
    obj = root
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _why_excluded(namespace, name):
    for pattern, why in EXCLUDED_EVERYWHERE + EXCLUDED.get(namespace, []):
        if re.search(pattern, name):
            return why
    return None


def compare(torch, ember):
    """{namespace: {"counted": [...], "missing": [...], "excluded": {why: [...]},
    "submodules_missing": [...]}} for every namespace in NAMESPACES."""
    result = {}
    for namespace in NAMESPACES:
        theirs, ours = _resolve(torch, namespace), _resolve(ember, namespace)
        counted, missing, excluded, submodules_missing = [], [], {}, []
        for name in sorted(dir(theirs)):
            if name.startswith("_"):
                continue
            value = getattr(theirs, name, None)
            if isinstance(value, types.ModuleType):
                if (value.__name__.startswith("torch.") and namespace != ""
                        and getattr(ours, name, None) is None
                        and not _why_excluded(namespace, name)):
                    submodules_missing.append(name)
                continue
            if not (callable(value) or inspect.isclass(value)):
                continue
            why = _why_excluded(namespace, name)
            if why:
                excluded.setdefault(why, []).append(name)
                continue
            counted.append(name)
            if ours is None or not hasattr(ours, name):
                missing.append(name)
        result[namespace] = {"counted": counted, "missing": missing, "excluded": excluded,
                             "submodules_missing": submodules_missing}
    return result


def coverage(entry):
    counted = len(entry["counted"])
    return 100.0 * (counted - len(entry["missing"])) / max(counted, 1)


def markdown(result, torch_version):
    lines = [f"Compared with PyTorch {torch_version} by `scripts/api_surface.py`.", "",
             "| namespace | PyTorch's names counted | ember has | coverage | left out |",
             "|---|---:|---:|---:|---:|"]
    for namespace, entry in result.items():
        counted = len(entry["counted"])
        have = counted - len(entry["missing"])
        left_out = sum(len(v) for v in entry["excluded"].values())
        lines.append(f"| `torch{'.' + namespace if namespace else ''}` | {counted} | {have} | "
                     f"{coverage(entry):.0f}% | {left_out} |")
    lines += ["", "### Still missing", ""]
    for namespace, entry in result.items():
        if entry["missing"]:
            names = ", ".join(f"`{n}`" for n in entry["missing"])
            lines.append(f"- `torch{'.' + namespace if namespace else ''}`: {names}")
    lines += ["", "### Left out of the count, and why", ""]
    reasons = {}
    for namespace, entry in result.items():
        for why, names in entry["excluded"].items():
            reasons.setdefault(why, []).extend(
                f"{namespace + '.' if namespace else ''}{n}" for n in names)
    for why, names in reasons.items():
        lines.append(f"- {why}: {len(names)} names")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    import torch
    import ember
    result = compare(torch, ember)
    if args.markdown:
        sys.stdout.write(markdown(result, torch.__version__.split("+")[0]))
        return
    for namespace, entry in result.items():
        print(f"torch{'.' + namespace if namespace else ''}: {coverage(entry):.0f}% of "
              f"{len(entry['counted'])}; missing: {' '.join(entry['missing'])}")
        if entry["submodules_missing"]:
            print(f"    submodules missing: {' '.join(entry['submodules_missing'])}")


if __name__ == "__main__":
    main()
