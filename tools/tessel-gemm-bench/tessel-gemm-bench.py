#!/usr/bin/env python3
"""Benchmarks Tessel's scaled fp8 GEMM kernel on a CUDA device.

    tessel-gemm-bench.py --ptx K.ptx --resources K.json [--tile 64 64]
        [--stream logits|full:S.ptx:S.json[:ROWS] ...]

1. The device copy bandwidth: a 2 GiB device-to-device copy, counted as bytes
   read plus bytes written.
2. The streaming shape of the paged MQA logits without paging: C[M, N] =
   A[M, 128]·B[N, 128]ᵀ with A resident and B streamed from HBM, for
   M = 64, 128, 512 and N from 8k to 4M rows. Printed: the time, the
   effective bandwidth on B (N·128 bytes / time) and the bandwidth on all
   the bytes the kernel must move (B read, C written in f32, A read once),
   each against the copy bandwidth.
3. An 8192^3 fp8 GEMM in TFLOP/s beside torch._scaled_mm in the same run
   (for information).
4. With --stream, the persistent streaming kernels
   (kernels_dsl/stream_logits_fp8.mlir) on the same shapes: the logits
   epilogue (out[M/64, N] = the sum over each 64 heads of relu(C)·w) and the
   full-C epilogue (C[M, N] in f32). Each kernel runs with a grid of its
   occupancy times the SMs (split over the M / ROWS row slices; ROWS, the
   rows of A per program, defaults to 64 per warpgroup of the block).
   Printed as in 2, with "all" counting B, A, w and the output actually
   written.

Times are medians of CUDA-event timings after a warm-up; the streaming
launches are replayed from a CUDA graph (one graph per shape, over B
buffers that add up to 4x L2), so that every timed launch reads its B from
HBM and the host's launch loop is not timed. Prints a
message and exits 0 without a CUDA device.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def median_ms(torch, fn, iters=20, warmup=3, batch=1, graph=False):
    """Median over `iters` timings of `batch` back-to-back calls fn(i), per
    call. Batches keep the device busy while the host enqueues the next
    launch; with `graph`, the batch is captured once into a CUDA graph and
    replayed, so that not even the host's launch loop is timed."""
    for i in range(warmup):
        fn(i)
    run = lambda it: [fn(it * batch + j) for j in range(batch)]
    if graph:
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for j in range(batch):
                fn(j)
        run = lambda it: g.replay()
    times = []
    for it in range(iters):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        run(it)
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / batch)
    return statistics.median(times)


def copy_bandwidth(torch):
    n = 1 << 31
    src = torch.empty(n, dtype=torch.uint8, device="cuda").random_()
    dst = torch.empty_like(src)
    ms = median_ms(torch, lambda i: dst.copy_(src))
    return 2 * n / (ms * 1e-3)


def rand_fp8(torch, rows, k):
    return (torch.randn(rows, k, device="cuda") * 64).clamp(-448, 448).to(
        torch.float8_e4m3fn)


def stream_case(torch, kernel, tile, m, n, copy_bw, l2_bytes=64 << 20):
    k = 128
    a = rand_fp8(torch, m, k).view(torch.uint8)
    # Enough B (and C) buffers that one pass over them is 4x L2: every
    # timed launch then streams its B from HBM.
    copies = max(1, (4 * l2_bytes) // (n * k) + 1)
    bs = [rand_fp8(torch, n, k).view(torch.uint8) for _ in range(copies)]
    sa = torch.ones(m, device="cuda")
    sb = torch.ones(n, device="cuda")
    cs = [torch.empty(m, n, device="cuda") for _ in range(copies)]
    grid = ((m + tile[0] - 1) // tile[0], (n + tile[1] - 1) // tile[1])
    runs = [kernel.prepare(grid, [a, bs[i], sa, sb, cs[i], m, n, k])
            for i in range(copies)]
    ms = median_ms(torch, lambda i: runs[i % copies](),
                   batch=max(copies, 4), graph=True)
    t = ms * 1e-3
    b_bytes = n * k
    all_bytes = n * k + m * n * 4 + m * k
    return (ms, b_bytes / t, all_bytes / t)


def rotation_count(n_bytes, l2_bytes):
    """Input sets whose one pass is 4x L2: every timed launch then reads
    from HBM."""
    return max(1, (4 * l2_bytes) // n_bytes + 1)


class StreamKernel:
    """A persistent streaming kernel and what its launch needs."""

    def __init__(self, ptx_launch, torch, spec):
        parts = spec.split(":")
        if len(parts) not in (3, 4):
            raise SystemExit("--stream %s: expected EPILOGUE:PTX:JSON[:ROWS]" %
                             spec)
        self.epilogue, ptx, res = parts[:3]
        rows = parts[3] if len(parts) == 4 else "0"
        if not rows.isdigit() or int(rows) % 64:
            raise SystemExit("--stream %s: ROWS (rows of A per program) is "
                             "a multiple of 64" % spec)
        if self.epilogue not in ("logits", "full"):
            raise SystemExit("--stream %s: the epilogue is logits or full" %
                             spec)
        self.info = ptx_launch.read_launch_info(res)
        self.kernel = ptx_launch.PtxKernel(ptx, self.info)
        self.name = os.path.basename(ptx).rsplit(".", 1)[0]
        threads = self.info["block"][0]
        self.rows = int(rows) or 64 * (threads // 128)
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        self.occupancy = self.kernel.max_active_blocks_per_sm()
        self.resident = self.occupancy * sms

    def out_rows(self, m):
        return m if self.epilogue == "full" else m // 64


def stream_kernel_case(torch, sk, m, n, l2_bytes=64 << 20):
    k = 128
    slices = m // sk.rows
    programs = max(1, sk.resident // slices)
    a = rand_fp8(torch, m, k).view(torch.uint8)
    w = torch.rand(m, device="cuda")
    out_bytes = sk.out_rows(m) * n * 4
    copies = rotation_count(n * k + out_bytes, l2_bytes)
    bs = [rand_fp8(torch, n, k).view(torch.uint8) for _ in range(copies)]
    outs = [torch.empty(sk.out_rows(m), n, device="cuda")
            for _ in range(copies)]
    runs = [sk.kernel.prepare((programs, slices), [a, bs[i], w, outs[i], m, n])
            for i in range(copies)]
    ms = median_ms(torch, lambda i: runs[i % copies](),
                   batch=max(copies, 4), graph=True)
    t = ms * 1e-3
    b_bytes = n * k
    all_bytes = b_bytes + out_bytes + m * k + m * 4
    return ms, b_bytes / t, all_bytes / t, programs


def stream_table(torch, kernels, ms_list, ns, copy_bw):
    print("persistent streaming kernels (grid = occupancy x SMs):")
    for sk in kernels:
        print("  %s: %s epilogue, block %s, %d rows of A per program, "
              "occupancy %d per SM" % (sk.name, sk.epilogue, sk.info["block"],
                                       sk.rows, sk.occupancy))
    print("%-8s %5s %9s %-28s %6s %10s %10s %7s %10s %7s" % (
        "epilogue", "M", "N", "kernel", "grid", "time_us", "B_TB/s",
        "B/copy", "all_TB/s", "all/copy"))
    for epilogue in ("logits", "full"):
        for m in ms_list:
            for n in ns:
                for sk in kernels:
                    if sk.epilogue != epilogue or m % sk.rows:
                        continue
                    ms, bbw, abw, progs = stream_kernel_case(torch, sk, m, n)
                    print("%-8s %5d %9d %-28s %6d %10.1f %10.3f %6.1f%% "
                          "%10.3f %6.1f%%" % (
                              epilogue, m, n, sk.name, progs, ms * 1e3,
                              bbw / 1e12, 100 * bbw / copy_bw, abw / 1e12,
                              100 * abw / copy_bw))


def gemm_8192(torch, kernel, tile):
    m = n = k = 8192
    a = rand_fp8(torch, m, k)
    b = rand_fp8(torch, n, k)
    sa = torch.ones(m, device="cuda")
    sb = torch.ones(n, device="cuda")
    c = torch.empty(m, n, device="cuda")
    grid = ((m + tile[0] - 1) // tile[0], (n + tile[1] - 1) // tile[1])
    run = kernel.prepare(grid, [a.view(torch.uint8), b.view(torch.uint8), sa,
                                sb, c, m, n, k])
    ms = median_ms(torch, lambda i: run(), iters=10)
    one = torch.ones((), device="cuda")
    peer = median_ms(torch, lambda i: torch._scaled_mm(
        a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.float32),
        iters=10)
    flop = 2.0 * m * n * k
    return flop / (ms * 1e-3) / 1e12, flop / (peer * 1e-3) / 1e12


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ptx", help="the GEMM kernel (tables 2 and 3)")
    p.add_argument("--resources")
    p.add_argument("--tile", type=int, nargs=2, default=[64, 64])
    p.add_argument("--ms", type=int, nargs="+", default=[64, 128, 512])
    # With 64-column tiles, 65535 programs (grid.y's limit) cover 4M - 64
    # rows; pass --ns ... 4194304 for tiles of 128 columns.
    p.add_argument("--ns", type=int, nargs="+",
                   default=[8192, 65536, 524288, 4194240])
    p.add_argument("--skip-8192", action="store_true")
    p.add_argument("--skip-gemm-stream", action="store_true",
                   help="skip the GEMM kernel's streaming table")
    p.add_argument("--stream", action="append", default=[],
                   metavar="EPILOGUE:PTX:JSON[:ROWS]",
                   help="a persistent streaming kernel (repeatable)")
    args = p.parse_args(argv)
    if bool(args.ptx) != bool(args.resources):
        p.error("--ptx and --resources go together")
    if not args.ptx and not args.stream:
        p.error("nothing to run: give --ptx/--resources or --stream")
    import ptx_launch
    torch = ptx_launch.torch_with_cuda("tessel-gemm-bench")
    if torch is None:
        return 0
    copy_bw = copy_bandwidth(torch)
    print("device: %s" % torch.cuda.get_device_name())
    print("copy bandwidth (read + write): %.3f TB/s" % (copy_bw / 1e12))
    if args.stream:
        stream_table(torch, [StreamKernel(ptx_launch, torch, s)
                             for s in args.stream], args.ms, args.ns, copy_bw)
    if not args.ptx:
        return 0
    info = ptx_launch.read_launch_info(args.resources)
    kernel = ptx_launch.PtxKernel(args.ptx, info)
    print("GEMM kernel %s (%s), block %s, tile %dx%d" % (
        info["name"], info["target"], info["block"], args.tile[0],
        args.tile[1]))
    if not args.skip_gemm_stream:
        print("%5s %9s %10s %10s %7s %10s %7s" % (
            "M", "N", "time_us", "B_TB/s", "B/copy", "all_TB/s", "all/copy"))
    for m in ([] if args.skip_gemm_stream else args.ms):
        for n in args.ns:
            ms, bbw, abw = stream_case(torch, kernel, args.tile, m, n,
                                       copy_bw)
            print("%5d %9d %10.1f %10.3f %6.1f%% %10.3f %6.1f%%" % (
                m, n, ms * 1e3, bbw / 1e12, 100 * bbw / copy_bw,
                abw / 1e12, 100 * abw / copy_bw))
    if not args.skip_8192:
        ours, peer = gemm_8192(torch, kernel, args.tile)
        print("8192^3 fp8 GEMM: tessel %.1f TFLOP/s, torch._scaled_mm %.1f "
              "TFLOP/s, ratio %.3f" % (ours, peer, ours / peer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
