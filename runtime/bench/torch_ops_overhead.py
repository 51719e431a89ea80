"""Host time of one torch.ops.tessel.* call, by binding.

    python3 runtime/bench/torch_ops_overhead.py LIBTESSEL_RUNTIME_SO BUNDLE
        [--device cuda] [--calls N] [--tokens T] [--json FILE]

The Python-side counterpart of tessel-launch-overhead (launch_overhead.cpp),
which gives the C API's and the bare driver's figures. Each call is timed
alone on the host clock, in batches of 256 with the stream drained between
batches (so a full launch queue never blocks a launch), on a stream of its
own as the C benchmark uses, after 500 warm-up calls; it prints the median,
p90 and mean microseconds per call. Rows:

  compiled packet    torch.ops.tessel.indexer_k_cache_write, compiled binding
  compiled overload  its .default overload (skips overload resolution)
  compiled packet, inference_mode   under torch.inference_mode(), as engines
                     call it: no autograd or ADInplaceOrView key at all
  compiled, torch's default stream   the packet on the default stream
  ctypes packet      the custom op over the DLPack path (a child process:
                     one process holds one registration of tessel::)
  Context method     tessel.Context.indexer_k_cache_write, the generic path
  compiled packet, 0 tokens   the binding and the C API's checks, no launch
  aten no-op overload         torch.ops.aten._has_compatible_shallow_copy_type
                     .default: torch's own floor for a torch.ops call
  floor, typed / boxed        torch.ops.tessel_bench.floor_*: the writer's
                     schema with an empty kernel at the same dispatch keys
                     (typed, or boxed over the stack), built here with
                     torch.utils.cpp_extension: what torch costs for this
                     schema, so that the binding's own share is the 0-token
                     row less this one, less the C API's checks
  aten.add_ packet   torch.ops.aten.add_.Tensor on one element: torch's own
                     floor for an op call that launches a kernel
  Tensor.add_        the same through torch's generated Python binding
  paged_mqa_logits / topk_per_row   the other ops through the compiled
                     binding, allocating their result and into a given one
                     (.out): logits B 1, next_n 1, H 64 over 64 tokens of
                     block 64; top-2048 of one row of 4096 (cuda only; the
                     shapes of tessel-launch-overhead's rows for them)

Also the issue's method: the mean over 2000 back-to-back one-token calls.
"""
import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import tessel  # noqa: E402
from tessel import _torch_ops  # noqa: E402

BATCH = 256

# The writer's schema with kernels that do nothing (the "floor" rows).
FLOOR_SOURCE = r"""
#include <torch/library.h>
namespace {
void nothing(const at::Tensor &, const at::Tensor &, const at::Tensor &, bool,
             std::optional<c10::string_view>) {}
void nothingBoxed(const c10::OperatorHandle &op, torch::jit::Stack *stack) {
  torch::jit::drop(*stack, op.schema().arguments().size());
}
} // namespace
TORCH_LIBRARY(tessel_bench, m) {
  const std::string args = "(Tensor k, Tensor slot_mapping, Tensor(a!) "
      "kv_cache, *, bool preshuffle=False, str? scale_fmt=None) -> ()";
  m.def(("floor_typed" + args).c_str());
  m.def(("floor_boxed" + args).c_str());
  for (auto key : {c10::DispatchKey::CPU, c10::DispatchKey::CUDA,
                   c10::DispatchKey::AutogradCPU,
                   c10::DispatchKey::AutogradCUDA}) {
    m.impl("floor_typed", torch::dispatch(key, TORCH_FN(nothing)));
    m.impl("floor_boxed", torch::dispatch(key,
        torch::CppFunction::makeFromBoxedFunction<&nothingBoxed>()));
  }
}
"""


def floor_ops():
    """torch.ops.tessel_bench.floor_{typed,boxed}, or None where the
    extension cannot be built."""
    from torch.utils import cpp_extension
    try:
        cpp_extension.load_inline(name="tessel_bench_floor",
                                  cpp_sources=[FLOOR_SOURCE],
                                  extra_cflags=["-O2"],
                                  is_python_module=False)
    except Exception as e:  # no compiler: the rows are left out
        print("floor rows left out: %s" % str(e).splitlines()[0],
              file=sys.stderr)
        return None
    return torch.ops.tessel_bench.floor_typed, torch.ops.tessel_bench.floor_boxed


def sync(dev):
    if dev == "cuda":
        torch.cuda.synchronize()


def per_call(fn, calls, dev):
    """Median, p90 and mean us of fn() timed call by call."""
    for _ in range(500):
        fn()
    sync(dev)
    clock = time.perf_counter_ns
    us = []
    while len(us) < calls:
        for _ in range(BATCH):
            t0 = clock()
            fn()
            us.append((clock() - t0) / 1e3)
        sync(dev)
    us.sort()
    return {"median": us[len(us) // 2], "p90": us[len(us) * 9 // 10],
            "mean": statistics.fmean(us)}


def loop_mean(fn, dev, n=2000):
    """The mean us of n back-to-back calls (the issue's 55 us figure)."""
    sync(dev)
    t0 = time.perf_counter_ns()
    for _ in range(n):
        fn()
    t1 = time.perf_counter_ns()
    sync(dev)
    return (t1 - t0) / 1e3 / n


def inputs(dev, tokens):
    k = torch.randn(tokens, 128, device=dev).to(torch.bfloat16)
    slots = torch.arange(tokens, dtype=torch.int64, device=dev) % (1024 * 64)
    cache = torch.zeros(1024, 64, 1, 132, dtype=torch.uint8, device=dev)
    return k, slots, cache


def other_ops(dev):
    """(name, call) rows of paged_mqa_logits and topk_per_row."""
    H, ctx_len = 64, 64
    q = torch.zeros(1, 1, H, 128, dtype=torch.uint8,
                    device=dev).view(torch.float8_e4m3fn)
    kv = torch.zeros(1, 64, 1, 132, dtype=torch.uint8, device=dev)
    w = torch.ones(1, H, device=dev)
    lens = torch.full((1,), ctx_len, dtype=torch.int32, device=dev)
    tables = torch.zeros(1, 1, dtype=torch.int32, device=dev)
    out = torch.empty(1, ctx_len, device=dev)
    logits = torch.randn(1, 4096, device=dev)
    row_lens = torch.full((1,), 4096, dtype=torch.int32, device=dev)
    idx = torch.empty(1, 2048, dtype=torch.int32, device=dev)
    ops = torch.ops.tessel
    return [
        ("paged_mqa_logits packet (allocates out)",
         lambda: ops.paged_mqa_logits(q, kv, w, lens, tables, ctx_len)),
        ("paged_mqa_logits.out",
         lambda: ops.paged_mqa_logits.out(q, kv, w, lens, tables, ctx_len,
                                          out=out)),
        ("topk_per_row packet (allocates indices)",
         lambda: ops.topk_per_row(logits, row_lens, 1)),
        ("topk_per_row.out",
         lambda: ops.topk_per_row.out(logits, row_lens, 1, out=idx)),
    ]


def measure(args, binding):
    tessel.load_library(args.library)
    assert tessel.register_torch_ops(args.device, binding=binding)
    assert _torch_ops.binding() == binding, _torch_ops.binding()
    ctx = _torch_ops.context()
    ctx.load_bundle(args.bundle)
    dev = "cpu" if args.device.startswith("emu") else "cuda"
    k, slots, cache = inputs(dev, args.tokens)
    packet = torch.ops.tessel.indexer_k_cache_write
    rows = {}
    side = torch.cuda.Stream() if dev == "cuda" else None

    def on_side(name, fn, loop=False):
        with torch.cuda.stream(side) if side else contextlib.nullcontext():
            rows[name] = per_call(fn, args.calls, dev)
            if loop:
                rows[name]["loop2000"] = loop_mean(fn, dev)

    on_side("%s packet" % binding, lambda: packet(k, slots, cache), loop=True)
    if binding == "ctypes":
        return rows
    on_side("compiled overload", lambda: packet.default(k, slots, cache))
    with torch.inference_mode():
        on_side("compiled packet, inference_mode",
                lambda: packet(k, slots, cache))
    if dev == "cuda":
        rows["compiled, torch's default stream"] = per_call(
            lambda: packet(k, slots, cache), args.calls, dev)
        stream = side.cuda_stream
    else:
        stream = None
    on_side("Context method",
            lambda: ctx.indexer_k_cache_write(k, slots, cache, stream=stream))
    k0, s0 = k[:0], slots[:0]
    on_side("compiled packet, 0 tokens (no launch)",
            lambda: packet(k0, s0, cache))
    shallow = torch.ops.aten._has_compatible_shallow_copy_type.default
    on_side("aten no-op overload (no launch)", lambda: shallow(k, cache))
    floors = floor_ops()
    if floors:
        typed, boxed = floors
        on_side("floor, typed no-op kernel", lambda: typed(k, slots, cache))
        on_side("floor, boxed no-op kernel", lambda: boxed(k, slots, cache))
    x = torch.zeros(1, device=dev)
    y = torch.ones(1, device=dev)
    add_ = torch.ops.aten.add_.Tensor
    on_side("aten.add_ packet", lambda: add_(x, y))
    on_side("Tensor.add_", lambda: x.add_(y))
    if dev == "cuda":
        for name, fn in other_ops(dev):
            try:
                fn()
            except RuntimeError as e:  # a bundle without the op's kernels
                print("%s left out: %s" % (name, str(e).splitlines()[0]),
                      file=sys.stderr)
                continue
            on_side(name, fn)
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("library")
    p.add_argument("bundle")
    p.add_argument("--device", default="cuda")
    p.add_argument("--calls", type=int, default=20000)
    p.add_argument("--tokens", type=int, default=1)
    p.add_argument("--json")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(measure(args, args.child)))
        return 0
    rows = measure(args, "compiled")
    child = subprocess.run(
        [sys.executable, __file__, args.library, args.bundle, "--device",
         args.device, "--calls", str(args.calls), "--tokens",
         str(args.tokens), "--child", "ctypes"],
        check=True, capture_output=True, text=True)
    rows.update(json.loads(child.stdout.strip().splitlines()[-1]))
    print("torch %s, device %s, %d token(s) per call, %d calls per row" % (
        torch.__version__, args.device, args.tokens, args.calls))
    print("%-40s %8s %8s %8s %10s" % ("us per call", "median", "p90", "mean",
                                      "loop2000"))
    for name, r in rows.items():
        loop = "%10.2f" % r["loop2000"] if "loop2000" in r else ""
        print("%-40s %8.2f %8.2f %8.2f %s" % (name, r["median"], r["p90"],
                                             r["mean"], loop))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
