"""The scaled GEMM kernel C = (A·Bᵀ)·sa[m]·sb[n] compiled for sm_90a or sm_90,
on a CUDA device, against a float64 torch reference.

    python3 test/gpu/gemm_check.py --ptx K.ptx --resources K.json \
        --dtype fp8|bf16 [--tile 64 64] [--sizes M,N,K ...]

K.ptx and K.json come from `tessel-translate kernels_dsl/scaled_gemm_*.mlir
--target=sm_90a --emit=ptx --resource-json=K.json`. A is [M, K] and B [N, K],
row-major e4m3fn or bf16, drawn at random for every size; C is poisoned with
NaN before the launch, so an unwritten element fails.

Products of e4m3 or bf16 values are exact in f32, so the only error is the
accumulation and the two scalings. For a sum of K terms the bound is
|C - ref| <= (K + 2) u (|A|·|B|ᵀ) |sa| |sb| elementwise (the classical
gamma_n bound), with u = 2^-p for an accumulator of p significant bits: 24
for f32 (the default). Hopper's fp8 tensor cores (wgmma e4m3) keep fewer
bits while they accumulate (about 14, by DeepSeek-V3's report on H800), so
sm_90a fp8 kernels are checked with --accum-bits 14. For fp8, the error of
torch._scaled_mm on the same inputs is printed beside ours. Exits 1 on any
element outside the bound, and 0 with a message when there is no CUDA device
or no torch.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools", "tessel-gemm-bench"))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ptx", required=True)
    p.add_argument("--resources", required=True)
    p.add_argument("--dtype", choices=["fp8", "bf16"], required=True)
    p.add_argument("--tile", type=int, nargs=2, default=[64, 64],
                   metavar=("TM", "TN"), help="C tile of one program")
    p.add_argument("--sizes", nargs="+", default=[
        "64,64,32", "128,192,256", "80,144,96", "256,512,512",
        "1024,1024,1024", "512,4096,128"])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--accum-bits", type=int, default=24,
                   help="significant bits the accumulator keeps (24: f32)")
    a = p.parse_args(argv)
    sizes = []
    for s in a.sizes:
        try:
            m, n, k = (int(x) for x in s.split(","))
        except ValueError:
            p.error("size '%s' is not M,N,K" % s)
        if min(m, n, k) <= 0 or m % 16 or n % 16 or k % 16:
            p.error("size '%s': M, N and K must be positive multiples of 16 "
                    "(the kernel's promise)" % s)
        sizes.append((m, n, k))
    a.sizes = sizes
    if not 8 <= a.accum_bits <= 24:
        p.error("--accum-bits must be in [8, 24]")
    return a


def make_operand(torch, rows, k, dtype, gen):
    x = torch.randn(rows, k, generator=gen, dtype=torch.float64)
    if dtype == "fp8":
        return (x * 64).clamp(-448, 448).to(torch.float8_e4m3fn)
    return x.to(torch.bfloat16)


def check_one(torch, kernel, args, m, n, k, gen):
    a = make_operand(torch, m, k, args.dtype, gen)
    b = make_operand(torch, n, k, args.dtype, gen)
    sa = torch.rand(m, generator=gen, dtype=torch.float64).float() + 0.5
    sb = torch.rand(n, generator=gen, dtype=torch.float64).float() * 1e-3
    a64, b64 = a.double(), b.double()
    ref = (a64 @ b64.T) * sa.double()[:, None] * sb.double()[None, :]
    bound = ((k + 2) * 2.0 ** -args.accum_bits * (a64.abs() @ b64.abs().T) *
             sa.double().abs()[:, None] * sb.double().abs()[None, :])
    dev = "cuda"
    da = a.view(torch.uint8).to(dev) if args.dtype == "fp8" else a.to(dev)
    db = b.view(torch.uint8).to(dev) if args.dtype == "fp8" else b.to(dev)
    c = torch.full((m, n), float("nan"), dtype=torch.float32, device=dev)
    tm, tn = args.tile
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
    kernel.launch(grid, [da, db, sa.to(dev), sb.to(dev), c, m, n, k])
    torch.cuda.synchronize()
    out = c.double().cpu()
    err = (out - ref).abs()
    bad = ~(err <= bound)  # NaN (unwritten) counts as bad
    rel = float((out - ref).norm() / ref.norm())
    nbad = int(bad.sum())
    worst = float((err / bound.clamp_min(1e-300)).nan_to_num(float("inf"))
                  .max())
    peer = ""
    if args.dtype == "fp8":
        one = torch.ones((), device=dev)
        pc = torch._scaled_mm(a.to(dev), b.to(dev).t(), scale_a=one,
                              scale_b=one, out_dtype=torch.float32)
        pc = pc.double().cpu() * sa.double()[:, None] * sb.double()[None, :]
        peer = " torch._scaled_mm rel_fro=%.3e" % float(
            (pc - ref).norm() / ref.norm())
    print("%-6s M=%-5d N=%-5d K=%-5d rel_fro=%.3e max_err/bound=%.3f "
          "outside=%d%s" % (args.dtype, m, n, k, rel, worst, nbad, peer))
    if nbad:
        i, j = (int(x) for x in bad.nonzero()[0])
        print("  first outside: C[%d, %d] = %r, reference %r, bound %r" % (
            i, j, float(out[i, j]), float(ref[i, j]), float(bound[i, j])))
    return nbad == 0


def main(argv):
    args = parse_args(argv)
    import ptx_launch
    torch = ptx_launch.torch_with_cuda("gemm_check")
    if torch is None:
        return 0
    info = ptx_launch.read_launch_info(args.resources)
    kernel = ptx_launch.PtxKernel(args.ptx, info)
    print("gemm_check: %s on %s, block %s, target %s" % (
        info["name"], torch.cuda.get_device_name(), info["block"],
        info["target"]))
    gen = torch.Generator().manual_seed(args.seed)
    ok = all([check_one(torch, kernel, args, m, n, k, gen)
              for m, n, k in args.sizes])
    print("gemm_check: %s" % (
        "all sizes within the %d-bit accumulation bound" % args.accum_bits
        if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
