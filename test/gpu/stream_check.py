"""The persistent streaming kernel (kernels_dsl/stream_logits_fp8.mlir) on a
CUDA device, against a float64 torch reference.

    python3 test/gpu/stream_check.py --ptx K.ptx --resources K.json \
        --epilogue logits|full [--sizes M,N ...] [--programs P ...]

K.ptx and K.json come from `tessel-translate kernels_dsl/stream_logits_fp8.mlir
--target=sm_90a --emit=ptx --knob groups=G --knob full_c=0|1 ...
--resource-json=K.json`; the program's rows of A (64 G) follow from its
block (128 G threads), or are given with --rows (b_on_m = 1 variants, whose
one warpgroup covers up to 256 rows of A). A [M, 128] and B [N, 128] are e4m3fn drawn at random
for every size, w [M] f32; the output is poisoned with NaN before the
launch, so an unwritten element fails, and it has a guard row past its end
that must keep its poison.

Products of e4m3 values are exact, so C = A·Bᵀ carries only wgmma's
accumulation error, |C~ - C| <= (K + 2) 2^-p (|A|·|B|ᵀ) with p = 14 bits (see
gemm_check.py). relu is 1-Lipschitz, and the f32 product by w and the sum of
64 terms add at most 66·2^-24 of the sum of magnitudes, so for the logits

    |out[g, n] - ref[g, n]| <= ((K + 2) 2^-p + 66·2^-24)
                               · sum_{h < 64} |w[64 g + h]| (|A|·|B|ᵀ)[64 g + h, n]

and for full C the gemm bound. Each size runs with several persistent grid
sizes P (1 program, fewer programs than tiles, more than tiles), since
every program walks its own tiles through the ring. Exits 1 on any element
outside the bound, and 0 with a message without a CUDA device or torch.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools", "tessel-gemm-bench"))

K = 128


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ptx", required=True)
    p.add_argument("--resources", required=True)
    p.add_argument("--epilogue", choices=["logits", "full"], required=True)
    p.add_argument("--sizes", nargs="+", default=[
        "64,64", "64,80", "128,8192", "128,1040", "256,4096", "512,65536",
        "192,272"])
    p.add_argument("--programs", type=int, nargs="+", default=[1, 7, 0],
                   help="persistent programs per row slice (0: the "
                   "device's occupancy times its SMs)")
    p.add_argument("--rows", type=int, default=0,
                   help="rows of A per program (0: 64 per warpgroup of the "
                   "block)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--accum-bits", type=int, default=14)
    a = p.parse_args(argv)
    sizes = []
    for s in a.sizes:
        try:
            m, n = (int(x) for x in s.split(","))
        except ValueError:
            p.error("size '%s' is not M,N" % s)
        if m <= 0 or n <= 0 or m % 64 or n % 16:
            p.error("size '%s': M must be a positive multiple of 64 and N "
                    "of 16" % s)
        sizes.append((m, n))
    a.sizes = sizes
    if a.rows < 0 or a.rows % 64:
        p.error("--rows %d: rows of A per program are a multiple of 64" %
                a.rows)
    return a


def rows_per_program(info, rows=0):
    if rows:
        return rows
    threads = info["block"][0] * info["block"][1] * info["block"][2]
    if threads % 128:
        raise ValueError("block of %d threads is not whole warpgroups" %
                         threads)
    return 64 * (threads // 128)


def reference(torch, a, b, w, epilogue, bits):
    a64, b64 = a.double(), b.double()
    c = a64 @ b64.T
    mag = a64.abs() @ b64.abs().T
    if epilogue == "full":
        return c, (K + 2) * 2.0 ** -bits * mag
    m = a.shape[0]
    w64 = w.double()[:, None]
    ref = (c.clamp_min(0) * w64).view(m // 64, 64, -1).sum(1)
    wmag = (mag * w64.abs()).view(m // 64, 64, -1).sum(1)
    return ref, ((K + 2) * 2.0 ** -bits + 66 * 2.0 ** -24) * wmag


def check_one(torch, kernel, args, m, n, programs, gen):
    rows = rows_per_program(kernel.info, args.rows)
    if m % rows:
        print("skip M=%d: not a multiple of the program's %d rows" % (m, rows))
        return True
    a = (torch.randn(m, K, generator=gen, dtype=torch.float64) * 64).clamp(
        -448, 448).to(torch.float8_e4m3fn)
    b = (torch.randn(n, K, generator=gen, dtype=torch.float64) * 64).clamp(
        -448, 448).to(torch.float8_e4m3fn)
    w = (torch.rand(m, generator=gen, dtype=torch.float64) - 0.25).float()
    ref, bound = reference(torch, a, b, w, args.epilogue, args.accum_bits)
    out_rows = ref.shape[0]
    dev = "cuda"
    # One guard row after the output: it must stay NaN.
    out = torch.full((out_rows + 1, n), float("nan"), dtype=torch.float32,
                     device=dev)
    ok = True
    for p in programs:
        out.fill_(float("nan"))
        grid = (p, m // rows)
        kernel.launch(grid, [a.view(torch.uint8).to(dev),
                             b.view(torch.uint8).to(dev), w.to(dev), out, m,
                             n])
        torch.cuda.synchronize()
        got = out[:out_rows].double().cpu()
        guard_ok = bool(out[out_rows].isnan().all())
        err = (got - ref).abs()
        bad = ~(err <= bound)  # NaN (unwritten) counts as bad
        nbad = int(bad.sum())
        rel = float((got - ref).norm() / ref.norm())
        worst = float((err / bound.clamp_min(1e-300)).nan_to_num(
            float("inf")).max())
        print("%-6s M=%-4d N=%-6d P=%-5d rel_fro=%.3e max_err/bound=%.3f "
              "outside=%d guard=%s" % (args.epilogue, m, n, p, rel, worst,
                                       nbad, "ok" if guard_ok else "WRITTEN"))
        if nbad:
            i, j = (int(x) for x in bad.nonzero()[0])
            print("  first outside: out[%d, %d] = %r, reference %r, bound %r"
                  % (i, j, float(got[i, j]), float(ref[i, j]),
                     float(bound[i, j])))
        ok = ok and nbad == 0 and guard_ok
    return ok


def main(argv):
    args = parse_args(argv)
    import ptx_launch
    torch = ptx_launch.torch_with_cuda("stream_check")
    if torch is None:
        return 0
    info = ptx_launch.read_launch_info(args.resources)
    kernel = ptx_launch.PtxKernel(args.ptx, info)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    full = kernel.max_active_blocks_per_sm() * sms
    print("stream_check: %s (%s epilogue) on %s, block %s, %d rows per "
          "program, %d resident programs" % (
              info["name"], args.epilogue, torch.cuda.get_device_name(),
              info["block"], rows_per_program(info, args.rows), full))
    gen = torch.Generator().manual_seed(args.seed)
    programs = [p if p > 0 else full for p in args.programs]
    ok = all([check_one(torch, kernel, args, m, n, programs, gen)
              for m, n in args.sizes])
    print("stream_check: %s" % ("all sizes within the bound" if ok else
                                "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
