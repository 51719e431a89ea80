"""Loads a Tessel PTX kernel with the CUDA driver (ctypes on libcuda.so.1) and
launches it on torch's current stream, with the launch ABI of
lowering/SIMT_IR.md: each `!tile.ptr` parameter becomes five (allocated
pointer, aligned pointer, i64 offset, i64 size, i64 stride), scalars follow.

Only the driver and torch are needed; the Tessel compiler is not.
"""
import ctypes
import json


def torch_with_cuda(tool):
    """torch, when it is installed and sees a CUDA device; else None, after
    printing why `tool` skips."""
    try:
        import torch
    except ImportError:
        print("%s: skipped: torch is not installed" % tool)
        return None
    if not torch.cuda.is_available():
        print("%s: skipped: no CUDA device" % tool)
        return None
    return torch


class CudaError(RuntimeError):
    pass


class Driver:
    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")

    def check(self, rc, what):
        if rc != 0:
            msg = ctypes.c_char_p()
            self.lib.cuGetErrorString(rc, ctypes.byref(msg))
            raise CudaError("%s failed: %d (%s)" % (
                what, rc, msg.value.decode() if msg.value else "?"))


def read_launch_info(resource_json):
    """The kernel name, block size and parameter sizes from a
    `tessel-translate --resource-json` file."""
    with open(resource_json) as f:
        md = json.load(f)
    if md.get("format") != "ptx" or len(md.get("kernels", [])) != 1:
        raise ValueError("%s: expected the resources of one PTX kernel" %
                         resource_json)
    k = md["kernels"][0]
    block = k.get("reqd_workgroup_size")
    if not block or len(block) != 3:
        raise ValueError("%s: the kernel has no reqd_workgroup_size" %
                         resource_json)
    return {"name": k["name"], "block": tuple(block),
            "arg_sizes": [a["size"] for a in k["args"]],
            "target": md.get("target"), "resources": k}


class PtxKernel:
    """One kernel of a PTX module, launched with torch tensors and ints."""

    def __init__(self, ptx_path, info):
        import torch
        torch.cuda.init()
        torch.empty(1, device="cuda")  # makes the primary context current
        self.drv = Driver()
        lib = self.drv.lib
        with open(ptx_path, "rb") as f:
            ptx = f.read() + b"\0"
        self.module = ctypes.c_void_p()
        log = ctypes.create_string_buffer(16384)
        opts = (ctypes.c_int * 2)(5, 6)  # ERROR_LOG_BUFFER, its size
        vals = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p),
                                     ctypes.c_void_p(len(log)))
        rc = lib.cuModuleLoadDataEx(ctypes.byref(self.module), ptx, 2, opts,
                                    vals)
        if rc != 0:
            raise CudaError("cuModuleLoadDataEx of %s failed: %d: %s" % (
                ptx_path, rc, log.value.decode(errors="replace")))
        self.fn = ctypes.c_void_p()
        self.drv.check(lib.cuModuleGetFunction(
            ctypes.byref(self.fn), self.module, info["name"].encode()),
            "cuModuleGetFunction")
        self.info = info

    def prepare(self, grid, args):
        """A launch of the kernel with these arguments, its parameter block
        built once: calling the result only calls cuLaunchKernel (for
        timing launches that are shorter than building the block)."""
        import torch
        params = []
        for a in args:
            if isinstance(a, torch.Tensor):
                params += [ctypes.c_void_p(a.data_ptr()),
                           ctypes.c_void_p(a.data_ptr()),
                           ctypes.c_int64(0), ctypes.c_int64(a.numel()),
                           ctypes.c_int64(1)]
            else:
                params.append(ctypes.c_int32(a))
        sizes = [ctypes.sizeof(p) for p in params]
        if sizes != self.info["arg_sizes"]:
            raise ValueError("launch arguments %s do not match the kernel's "
                             "parameters %s" % (sizes, self.info["arg_sizes"]))
        arr = (ctypes.c_void_p * len(params))(
            *[ctypes.cast(ctypes.byref(p), ctypes.c_void_p) for p in params])
        bx, by, bz = self.info["block"]
        gx, gy, gz = (tuple(grid) + (1, 1))[:3]
        launch = self.drv.lib.cuLaunchKernel
        fn, check = self.fn, self.drv.check

        def run():
            stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
            check(launch(fn, gx, gy, gz, bx, by, bz, 0, stream, arr, None),
                  "cuLaunchKernel")
        run.keep = (params, arr)  # the block must outlive the launches
        return run

    def max_active_blocks_per_sm(self):
        """cuOccupancyMaxActiveBlocksPerMultiprocessor for the kernel's
        block (its registers and static shared memory decide)."""
        n = ctypes.c_int()
        self.drv.check(self.drv.lib.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            ctypes.byref(n), self.fn,
            ctypes.c_int(self.info["block"][0] * self.info["block"][1] *
                         self.info["block"][2]), ctypes.c_size_t(0)),
            "cuOccupancyMaxActiveBlocksPerMultiprocessor")
        return n.value

    def launch(self, grid, args):
        """args: torch tensors (as !tile.ptr) and ints (as i32), in order."""
        self.prepare(grid, args)()
