"""indexer_k_cache_write through the Python binding (runtime/python) on a CUDA
device, against a torch float64 reference.

    python3 test/gpu/torch_check.py LIBTESSEL_RUNTIME_SO BUNDLE [DEVICE]

DEVICE defaults to cuda; emu:gfx950 runs it on the CPU (torch's e4m3fn is
the gfx950/sm_90 format). The reference (DESIGN.md 3.4): amax in float64,
scale = max(amax, 1e-4) / 448 rounded once to float32 (the f32 division), q = (k / scale) rounded once to float32 then cast to
e4m3fn by torch (round to nearest even). fp8 bytes and scales must be equal
bit for bit, and bytes of skipped slots must keep their poison. Exits 1 on
any mismatch.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "runtime", "python"))
import tessel  # noqa: E402


def reference(k, slots, poison, nb, bs):
    want = poison.clone().view(nb, bs * 132)
    k64 = k.double().cpu()
    floor = float(torch.tensor(1e-4, dtype=torch.float32))
    amax = k64.abs().amax(dim=1).clamp_min(floor)
    scale = (amax / 448.0).float()
    for t, s in enumerate(slots.tolist()):
        if s < 0 or s >= nb * bs:
            continue
        blk, off = divmod(s, bs)
        sc = scale[t]
        x = (k64[t] / sc.double()).float()
        q = x.to(torch.float8_e4m3fn).view(torch.uint8)
        want[blk, off * 128:(off + 1) * 128] = q
        want[blk, bs * 128 + off * 4:bs * 128 + off * 4 + 4] = (
            sc.reshape(1).view(torch.uint8))
    return want.view(nb, bs, 1, 132)


def main():
    tessel.load_library(sys.argv[1])
    device = sys.argv[3] if len(sys.argv) > 3 else "cuda"
    dev = "cpu" if device.startswith("emu") else "cuda"
    ctx = tessel.Context(device)
    ctx.load_bundle(sys.argv[2])
    print("python: device %s %s, %d SMs, torch %s" % (
        ctx.device_kind, ctx.arch, ctx.cu_count, torch.__version__))
    g = torch.Generator().manual_seed(11)
    failures = 0
    for dtype in (torch.bfloat16, torch.float32):
        for T, bs, width in ((1, 64, 128), (300, 16, 136), (4099, 64, 256)):
            nb = (2 * T + bs) // bs + 1
            k = (torch.randn(T, width, generator=g) *
                 torch.exp2(torch.randint(-8, 8, (T, 1), generator=g)
                            .double()).float()).to(dtype)
            k_dev = k.to(dev)[:, :128]
            slots = torch.randperm(nb * bs, generator=g)[:T]
            slots[::5] = -1
            if dev == "cuda":
                slots[1::11] = nb * bs + 3  # past the end: skipped on GPUs
            poison = torch.randint(0, 256, (nb, bs, 1, 132), generator=g,
                                   dtype=torch.uint8)
            cache = poison.to(dev)
            ctx.indexer_k_cache_write(k_dev, slots.to(dev), cache)
            if dev == "cuda":
                torch.cuda.synchronize()
            got = cache.cpu()
            want = reference(k[:, :128], slots, poison, nb, bs)
            bad = int((got != want).sum())
            print("python: %-9s T=%-5d bs=%-3d stride=%-4d  mismatched bytes "
                  "%d  %s" % (str(dtype).split(".")[1], T, bs, width, bad,
                              "PASS" if bad == 0 else "FAIL"))
            failures += bad != 0
    print("python: %s" % ("PASS" if failures == 0 else "FAIL"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
