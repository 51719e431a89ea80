"""torch.ops.tessel.*: the compiled binding, and the ctypes one it replaces.

The compiled binding is csrc/torch_ops.cpp, a TORCH_LIBRARY extension built
on first use with torch.utils.cpp_extension (a C++ compiler and ninja are
needed then; the build is cached in torch's extensions folder). A call goes
from torch's dispatcher to the C API directly: no Python frame and no DLPack
export per call, so it costs about what the launch costs.

The ctypes binding is torch.library.custom_op over Context's generic DLPack
path: it needs no compiler, and costs tens of microseconds per call. It is
the fallback where the extension cannot be built.

Nothing here is imported by `import tessel`; torch is imported only by
register().
"""

import ctypes
import os
import warnings

from . import Context, load_library

_HERE = os.path.dirname(os.path.abspath(__file__))
_SOURCE = os.path.join(_HERE, "csrc", "torch_ops.cpp")
_DEVICE_TYPE = {"emu": 0, "cuda": 1, "hip": 1}  # tessel_torch_bind's codes

_ctx = None
_binding = None


def context():
    """The process-wide Context of torch.ops.tessel (None before
    register())."""
    return _ctx


def binding():
    """"compiled", "ctypes", or None before register()."""
    return _binding


def _include_dir():
    """The folder holding tessel/tessel.h: the source tree's runtime/include,
    else the include/ beside the lib/ of the runtime library loaded."""
    candidates = [os.path.join(_HERE, "..", "..", "include")]
    try:
        name = load_library()._name or ""
        if os.path.sep in name:
            candidates.append(os.path.join(os.path.dirname(name), "..",
                                           "include"))
    except Exception:  # no library (yet): the source tree is the only place
        pass
    for c in candidates:
        if os.path.exists(os.path.join(c, "tessel", "tessel.h")):
            return os.path.abspath(c)
    raise RuntimeError("tessel: cannot find tessel/tessel.h to build the "
                       "torch extension (looked in %s)" % ", ".join(
                           os.path.abspath(c) for c in candidates))


def build_extension(verbose=False):
    """Builds the extension (or finds it in torch's cache, keyed by its
    source) and loads it into torch; returns its path. The compiler is
    torch's choice: $CXX, else c++."""
    from torch.utils import cpp_extension
    return cpp_extension.load(
        name="tessel_torch_ops", sources=[_SOURCE],
        extra_include_paths=[_include_dir()],
        extra_cflags=["-O2", "-fvisibility=hidden"],
        is_python_module=False, verbose=verbose)


def _bind(path, ctx):
    """Points the loaded extension's ops at ctx."""
    ext = ctypes.CDLL(path)
    ext.tessel_torch_bind.argtypes = [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
        ctypes.c_char_p, ctypes.c_size_t]
    err = ctypes.create_string_buffer(512)
    if ext.tessel_torch_bind(load_library()._handle, ctx._h,
                             _DEVICE_TYPE[ctx.device_kind], ctx.ordinal, err,
                             len(err)):
        raise RuntimeError(err.value.decode())


def _register_ctypes(ctx):
    """torch.library.custom_op over Context's DLPack path: the writer, with
    the compiled binding's schema."""
    import torch
    from typing import Optional

    @torch.library.custom_op("tessel::indexer_k_cache_write",
                             mutates_args=("kv_cache",))
    def _op(k: torch.Tensor, slot_mapping: torch.Tensor,
            kv_cache: torch.Tensor, *, preshuffle: bool = False,
            scale_fmt: Optional[str] = None) -> None:
        stream = None
        if kv_cache.is_cuda:
            stream = torch.cuda.current_stream(kv_cache.device).cuda_stream
        ctx.indexer_k_cache_write(k, slot_mapping, kv_cache,
                                  preshuffle=preshuffle, scale_fmt=scale_fmt,
                                  stream=stream)


def register(device=None, binding="auto", ordinal=0):
    """Registers torch.ops.tessel.* on a process-wide Context(device,
    ordinal); the ops run on torch's current stream of that device.

    binding: "compiled" (the TORCH_LIBRARY extension, built on first use),
    "ctypes" (custom ops over the DLPack path, no compiler needed) or "auto"
    (compiled, else ctypes with a warning that says why). Returns False when
    torch is not installed. A second call keeps the first registration, and
    must not ask for another device or binding."""
    global _ctx, _binding
    if binding not in ("auto", "compiled", "ctypes"):
        raise ValueError("tessel.register_torch_ops: binding must be 'auto', "
                         "'compiled' or 'ctypes', not %r" % (binding,))
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    if _ctx is not None:
        if binding not in ("auto", _binding):
            raise RuntimeError("tessel.register_torch_ops: torch.ops.tessel "
                               "is already registered with the %s binding"
                               % _binding)
        if (device, ordinal) not in ((None, 0), _ctx.requested):
            raise RuntimeError("tessel.register_torch_ops: torch.ops.tessel "
                               "is already registered on %r ordinal %d" %
                               _ctx.requested)
        return True
    ctx = Context(device, ordinal)
    ctx.ordinal = ordinal
    ctx.requested = (device, ordinal)
    chosen = binding
    if binding != "ctypes":
        try:
            path = build_extension()
            chosen = "compiled"
        except Exception as e:  # no compiler, no ninja, a build error
            if binding == "compiled":
                raise
            why = str(e).strip().splitlines()
            warnings.warn("tessel: the compiled torch.ops binding is not "
                          "available (%s); using the ctypes one, which costs "
                          "tens of microseconds per call" %
                          (why[0] if why else type(e).__name__))
            chosen = "ctypes"
    if chosen == "compiled":
        _bind(path, ctx)  # the ops exist now: no fallback past this point
    else:
        _register_ctypes(ctx)
    _ctx, _binding = ctx, chosen
    return True
