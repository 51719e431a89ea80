"""Python binding of the Tessel runtime (libtessel_runtime.so), over its C API.

Takes any DLPack tensor (numpy, torch, ...) and, when torch is present,
registers ``torch.ops.tessel.indexer_k_cache_write``:

    import tessel
    ctx = tessel.Context("emu")            # or "cuda", "hip", None = TESSEL_DEVICE
    ctx.load_bundle("kernels.tbundle")     # or TESSEL_BUNDLE / built-in bundle
    ctx.indexer_k_cache_write(k, slot_mapping, kv_cache)

Errors raise tessel.TesselError carrying the runtime's status and message.
"""

import ctypes
import ctypes.util
import os

__all__ = [
    "TesselError", "Context", "load_library", "config_set",
    "register_torch_ops",
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
    lib.tessel_indexer_k_cache_write.argtypes = [
        ctypes.c_void_p, ctypes.POINTER(_Tensor), ctypes.POINTER(_Tensor),
        ctypes.POINTER(_Tensor), ctypes.c_void_p]
    _lib = lib
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

    def indexer_k_cache_write(self, k, slot_mapping, kv_cache, stream=None):
        """DESIGN.md 3.4; see tessel_indexer_k_cache_write in tessel.h.
        stream: a CUstream/hipStream_t as an int (None: default stream)."""
        dev = _DEVICE_OF_KIND[self.device_kind]
        tk, a = _describe("k", k, dev)
        ts, b = _describe("slot_mapping", slot_mapping, dev)
        tc, c = _describe("kv_cache", kv_cache, dev, writable=True)
        _check(_lib.tessel_indexer_k_cache_write(
            self._h, ctypes.byref(tk), ctypes.byref(ts), ctypes.byref(tc),
            ctypes.c_void_p(stream) if stream else None))
        del a, b, c


def register_torch_ops(device=None, binding="auto"):
    """Registers torch.ops.tessel.* on a process-wide context, running on
    torch's current stream: through a compiled TORCH_LIBRARY extension, or
    custom ops over the DLPack path (tessel/_torch_ops.py says which and
    when). Returns False when torch is not installed."""
    from . import _torch_ops
    return _torch_ops.register(device, binding)
