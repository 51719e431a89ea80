"""Python binding of the Tessel runtime (libtessel_runtime.so), over its C API.

Takes any DLPack tensor (numpy, torch, ...) and, when torch is present,
registers ``torch.ops.tessel.indexer_k_cache_write``:

    import tessel
    ctx = tessel.Context("emu")            # or "cuda", "hip", None = TESSEL_DEVICE
    ctx.load_bundle("kernels.tbundle")     # or TESSEL_BUNDLE / built-in bundle
    ctx.indexer_k_cache_write(k, slot_mapping, kv_cache, preshuffle=True)
    out = ctx.paged_mqa_logits(q, kv_cache, weights, context_lens,
                               block_tables, max_model_len)
    out = tessel.paged_mqa_logits(...)     # on the default device

The ops and their arguments come from the runtime's op registry
(tessel_op_registry_json): every op is a Context method and a module
function, taking its input tensors and then its options (positionally or by
name), its allocatable outputs by keyword (``out=``; allocated and returned
when not given) and ``stream=``. Errors raise tessel.TesselError carrying
the runtime's status and message.
"""

import ctypes
import ctypes.util
import functools
import json
import os

__all__ = [
    "TesselError", "Context", "load_library", "config_set",
    "register_torch_ops", "default_context", "ops",
]

# tessel_dtype values (tessel.h).
F32, BF16, F16, U8, I32, I64, FP8_E4M3FN, FP8_E4M3FNUZ = 1, 2, 3, 4, 5, 6, 7, 8
_MAX_RANK = 8
_C_INT_MAX = 2 ** 31 - 1


class TesselError(RuntimeError):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * _MAX_RANK),
                ("strides", ctypes.c_int64 * _MAX_RANK)]


# DLPack (dlpack.h, legacy unversioned capsule "dltensor").
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


# DLPack >= 1.0 (capsule "dltensor_versioned"): it can mark a tensor
# read-only, which numpy needs to export a read-only array at all.
class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64),
                ("dl_tensor", _DLTensor)]


_DL_FLAG_READ_ONLY = 1


_DL_CPU, _DL_CUDA, _DL_ROCM = 1, 2, 10
_DL_DTYPES = {  # (code, bits) -> tessel dtype
    (2, 32): F32, (4, 16): BF16, (2, 16): F16, (1, 8): U8, (0, 32): I32,
    (0, 64): I64,
}
_DEVICE_OF_KIND = {"emu": _DL_CPU, "cuda": _DL_CUDA, "hip": _DL_ROCM}

_lib = None


def load_library(path=None):
    """Loads libtessel_runtime.so: `path`, else the copy installed next to
    this package (../../lib or ./lib), else the loader's search path."""
    global _lib
    if _lib is not None and path is None:
        return _lib
    candidates = [path] if path else []
    here = os.path.dirname(os.path.abspath(__file__))
    for d in (os.path.join(here, "lib"), os.path.join(here, "..", "..", "lib"),
              os.path.join(here, "..", "..", "..", "lib")):
        candidates.append(os.path.join(d, "libtessel_runtime.so"))
    found = ctypes.util.find_library("tessel_runtime")
    if found:
        candidates.append(found)
    errors = []
    for c in candidates:
        if not c or (os.path.sep in c and not os.path.exists(c)):
            continue
        try:
            lib = ctypes.CDLL(c)
            break
        except OSError as e:
            errors.append("%s: %s" % (c, e))
    else:
        raise TesselError(3, "cannot load libtessel_runtime.so" +
                          ("; " + "; ".join(errors) if errors else ""))
    lib.tessel_last_error.restype = ctypes.c_char_p
    lib.tessel_context_create.argtypes = [
        ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
    lib.tessel_context_destroy.argtypes = [ctypes.c_void_p]
    lib.tessel_context_load_bundle.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.tessel_context_device_kind.argtypes = [ctypes.c_void_p]
    lib.tessel_context_device_kind.restype = ctypes.c_char_p
    lib.tessel_context_arch.argtypes = [ctypes.c_void_p]
    lib.tessel_context_arch.restype = ctypes.c_char_p
    lib.tessel_context_cu_count.argtypes = [ctypes.c_void_p]
    lib.tessel_config_set.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.tessel_op_registry_json.restype = ctypes.c_char_p
    lib.tessel_op_launch.argtypes = [
        ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(_Tensor), ctypes.c_size_t,
        ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t, ctypes.c_void_p]
    lib.tessel_op_output_shape.argtypes = [
        ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(_Tensor), ctypes.c_size_t,
        ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t, ctypes.c_size_t,
        ctypes.POINTER(_Tensor)]
    _lib = lib
    if _OPS is None:
        _bind_ops()
    return lib


def _check(status):
    if status != 0:
        raise TesselError(status, _lib.tessel_last_error().decode())


def config_set(name, value):
    """Sets a runtime knob (e.g. TESSEL_TUNED_DIR) for this process."""
    load_library()
    _check(_lib.tessel_config_set(name.encode(), str(value).encode()))


_get_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_capsule_pointer.restype = ctypes.c_void_p
_get_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.restype = ctypes.c_int
_capsule_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _dlpack(name, obj, writable):
    """Returns (DLTensor, capsule). Asks for a versioned capsule first, so
    that read-only inputs (which legacy DLPack cannot export) work; an output
    must be writable."""
    try:
        capsule = obj.__dlpack__(max_version=(1, 0))
    except TypeError:  # a producer that predates DLPack 1.0
        capsule = obj.__dlpack__()
    except BufferError as e:
        raise TesselError(1, "%s: cannot export it through DLPack: %s" %
                          (name, e)) from None
    if _capsule_is_valid(capsule, b"dltensor_versioned"):
        ptr = _get_capsule_pointer(capsule, b"dltensor_versioned")
        managed = _DLManagedTensorVersioned.from_address(ptr)
        if writable and managed.flags & _DL_FLAG_READ_ONLY:
            raise TesselError(1, "%s: the array is read-only, but the op "
                              "writes it" % name)
        return managed.dl_tensor, capsule
    ptr = _get_capsule_pointer(capsule, b"dltensor")
    return _DLTensor.from_address(ptr), capsule


def _describe(name, obj, device_type, writable=False):
    """Returns (tessel_tensor, keepalive) for a torch tensor or any object
    with __dlpack__. writable: the op writes the tensor."""
    t = _Tensor()
    mod = type(obj).__module__
    if mod.startswith("torch"):
        import torch
        dt = {torch.float32: F32, torch.bfloat16: BF16, torch.float16: F16,
              torch.uint8: U8, torch.int32: I32, torch.int64: I64}
        for name, code in (("float8_e4m3fn", FP8_E4M3FN),
                           ("float8_e4m3fnuz", FP8_E4M3FNUZ)):
            if hasattr(torch, name):
                dt[getattr(torch, name)] = code
        if obj.dtype not in dt:
            raise TesselError(1, "%s: unsupported dtype %s" % (name, obj.dtype))
        if obj.dim() > _MAX_RANK:
            raise TesselError(1, "%s: rank %d > %d" % (name, obj.dim(), _MAX_RANK))
        t.data = obj.data_ptr() or None
        t.dtype = dt[obj.dtype]
        t.rank = obj.dim()
        for i in range(obj.dim()):
            t.shape[i] = obj.shape[i]
            t.strides[i] = obj.stride(i)
        want = {_DL_CPU: "cpu", _DL_CUDA: "cuda", _DL_ROCM: "cuda"}[device_type]
        if obj.device.type != want:
            raise TesselError(1, "%s: tensor is on %s, the context's device "
                              "needs %s" % (name, obj.device, want))
        return t, obj
    if not hasattr(obj, "__dlpack__"):
        raise TesselError(1, "%s: not a DLPack tensor" % name)
    dl, capsule = _dlpack(name, obj, writable)
    if dl.device.device_type != device_type:
        raise TesselError(1, "%s: DLPack device type %d does not match the "
                          "context's (%d)" % (name, dl.device.device_type,
                                              device_type))
    key = (dl.dtype.code, dl.dtype.bits)
    if dl.dtype.lanes != 1 or key not in _DL_DTYPES:
        raise TesselError(1, "%s: unsupported DLPack dtype code %d bits %d" %
                          (name, dl.dtype.code, dl.dtype.bits))
    if dl.ndim > _MAX_RANK:
        raise TesselError(1, "%s: rank %d > %d" % (name, dl.ndim, _MAX_RANK))
    t.dtype = _DL_DTYPES[key]
    t.rank = dl.ndim
    t.data = (dl.data or 0) + dl.byte_offset or None
    stride = 1
    for i in reversed(range(dl.ndim)):
        t.shape[i] = dl.shape[i]
        t.strides[i] = dl.strides[i] if dl.strides else stride
        stride *= dl.shape[i]
    return t, (obj, capsule)


class Context:
    """A Tessel context on one device ("emu", "emu:gfx942", "emu:gfx950",
    "cuda", "hip", "auto" or None for TESSEL_DEVICE)."""

    def __init__(self, device=None, ordinal=0):
        if device is not None and not isinstance(device, str):
            raise TypeError("tessel.Context: device must be a str such as "
                            "'emu' or 'cuda', or None, not %s" %
                            type(device).__name__)
        if isinstance(ordinal, bool) or not hasattr(ordinal, "__index__"):
            raise TypeError("tessel.Context: ordinal must be an int, not %s" %
                            type(ordinal).__name__)
        ordinal = ordinal.__index__()
        if ordinal < 0:
            raise ValueError("tessel.Context: ordinal %d is negative" %
                             ordinal)
        if ordinal > _C_INT_MAX:
            raise OverflowError("tessel.Context: ordinal %d does not fit the "
                                "C API's int (at most %d)" %
                                (ordinal, _C_INT_MAX))
        self._h = None
        load_library()
        h = ctypes.c_void_p()
        _check(_lib.tessel_context_create(
            device.encode() if device else None, ordinal, ctypes.byref(h)))
        self._h = h
        self.device_kind = _lib.tessel_context_device_kind(h).decode()
        self.arch = _lib.tessel_context_arch(h).decode()
        self.cu_count = _lib.tessel_context_cu_count(h)

    def close(self):
        if getattr(self, "_h", None):
            _lib.tessel_context_destroy(self._h)
            self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def load_bundle(self, path):
        _check(_lib.tessel_context_load_bundle(self._h, os.fsencode(path)))



# The op registry, read once from the runtime.
_OPS = None


def ops():
    """The runtime's op descriptions (tessel_op_registry_json), by name."""
    global _OPS
    if _OPS is None:
        load_library()
        doc = json.loads(_lib.tessel_op_registry_json().decode())
        _OPS = {op["name"]: op for op in doc["ops"]}
    return _OPS


_NUMPY_DTYPES = {F32: "float32", I32: "int32", I64: "int64", U8: "uint8",
                 F16: "float16"}


def _option_value(op, opt, value):
    """An option as the C API's int64: None and names through the registry's
    value names, bools and integers as they are."""
    names = opt["names"]
    if value is None or isinstance(value, str):
        if value in names:
            return names.index(value)
        raise TesselError(1, "%s: %s must be one of %s, got %r" % (
            op["name"], opt["name"],
            ", ".join(repr(n) for n in names) or "an integer", value))
    if not hasattr(value, "__index__"):
        raise TesselError(1, "%s: %s must be an integer, got %r" % (
            op["name"], opt["name"], value))
    return int(value)


def _allocate(like, shape_tensor):
    """An output shaped as the runtime says, beside the input `like`."""
    shape = tuple(shape_tensor.shape[i] for i in range(shape_tensor.rank))
    if type(like).__module__.startswith("torch"):
        import torch
        dt = {F32: torch.float32, I32: torch.int32}[shape_tensor.dtype]
        return torch.empty(shape, dtype=dt, device=like.device)
    import numpy
    return numpy.empty(shape, dtype=_NUMPY_DTYPES[shape_tensor.dtype])


def _call(ctx, op, args, kwargs):
    """Runs one op: the generic path behind every op method."""
    tensors = op["tensors"]
    inputs = [t for t in tensors if not t["allocatable"]]
    outputs = [t for t in tensors if t["allocatable"]]
    options = op["options"]
    stream = kwargs.pop("stream", None)
    values = {}
    positional = [t["name"] for t in inputs] + [o["name"] for o in options]
    if len(args) > len(positional):
        raise TypeError("%s() takes %d positional arguments but %d were "
                        "given" % (op["name"], len(positional), len(args)))
    for name, value in zip(positional, args):
        values[name] = value
    for name, value in kwargs.items():
        if name == "out" and len(outputs) == 1:
            name = outputs[0]["name"]
        known = name in positional or any(o["name"] == name for o in outputs)
        if not known or name in values:
            raise TypeError("%s() got %s keyword argument '%s'" % (
                op["name"], "an unexpected" if not known else "a repeated",
                name))
        values[name] = value
    for t in inputs:
        if t["name"] not in values:
            raise TypeError("%s() missing tensor argument '%s'" %
                            (op["name"], t["name"]))
    opts = (ctypes.c_int64 * max(1, len(options)))()
    for i, o in enumerate(options):
        v = values.get(o["name"], o["default"] if not o["names"]
                       else o["names"][o["default"]])
        if v is None and not o["names"]:
            v = o["default"]
        opts[i] = _option_value(op, o, v)
    dev = _DEVICE_OF_KIND[ctx.device_kind]
    arr = (_Tensor * len(tensors))()
    keep = []
    for i, t in enumerate(tensors):
        obj = values.get(t["name"])
        if obj is None and t["allocatable"]:
            continue
        arr[i], k = _describe(t["name"], obj, dev, writable=t["written"])
        keep.append(k)
    fresh = []
    for i, t in enumerate(tensors):
        if values.get(t["name"]) is not None or not t["allocatable"]:
            continue
        shaped = _Tensor()
        _check(_lib.tessel_op_output_shape(
            ctx._h, op["index"], arr, len(tensors), opts, len(options), i,
            ctypes.byref(shaped)))
        out = _allocate(values[inputs[0]["name"]], shaped)
        arr[i], k = _describe(t["name"], out, dev, writable=True)
        keep.append(k)
        values[t["name"]] = out
        fresh.append(out)
    _check(_lib.tessel_op_launch(
        ctx._h, op["index"], arr, len(tensors), opts, len(options),
        ctypes.c_void_p(stream) if stream else None))
    del keep
    results = [values[t["name"]] for t in outputs]
    if not results:
        return None
    return results[0] if len(results) == 1 else tuple(results)


def _signature_doc(op):
    ins = [t["name"] for t in op["tensors"] if not t["allocatable"]]
    opts = ["%s=%s" % (o["name"], o["default"] if not o["names"] else
                       repr(o["names"][o["default"]])) for o in op["options"]]
    outs = ["%s=None" % t["name"] for t in op["tensors"] if t["allocatable"]]
    return "%s(%s, stream=None)" % (op["name"], ", ".join(ins + opts + outs))


def _bind_ops():
    """Makes every registered op a Context method and a module function."""
    for name, op in ops().items():
        def method(self, *args, _op=op, **kwargs):
            return _call(self, _op, args, kwargs)
        method.__name__ = name
        method.__doc__ = ("%s\n\nSee tessel_%s in tessel.h (DESIGN.md). "
                          "Options may be given by name; an allocatable "
                          "output ('out') is allocated and returned when not "
                          "given." % (_signature_doc(op), name))
        if not hasattr(Context, name):
            setattr(Context, name, method)

        def function(*args, _name=name, **kwargs):
            return getattr(default_context(), _name)(*args, **kwargs)
        function.__name__ = name
        function.__doc__ = method.__doc__ + " Runs on default_context()."
        globals()[name] = function
        if name not in __all__:
            __all__.append(name)


_default_ctx = None


def default_context():
    """The process-wide context on the default device (TESSEL_DEVICE)."""
    global _default_ctx
    if _default_ctx is None:
        _default_ctx = Context(None)
    return _default_ctx


def register_torch_ops(device=None, binding="auto"):
    """Registers torch.ops.tessel.* on a process-wide context, running on
    torch's current stream: through a compiled TORCH_LIBRARY extension, or
    custom ops over the DLPack path (tessel/_torch_ops.py says which and
    when). Returns False when torch is not installed."""
    from . import _torch_ops
    return _torch_ops.register(device, binding)


try:
    _bind_ops()
except TesselError:
    # No runtime library yet: load_library(path) binds them.
    pass
