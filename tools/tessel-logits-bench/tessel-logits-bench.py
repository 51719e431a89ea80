#!/usr/bin/env python3
"""Benchmark of paged_mqa_logits on a CUDA device against its copy bandwidth.

    tessel-logits-bench.py --runtime LIBTESSEL_RUNTIME_SO --bundle BUNDLE
        [--bundle SM90_ONLY_BUNDLE] [--csv OUT.csv] [--tuned-out TABLE.csv]

For H in --heads (64, 32) and the (B, next_n, ctx) shapes of issue 10
(D = 128, block 64), with contexts uniform in [0.7, 1.3] * ctx and shuffled
block tables, it:
  - checks the dispatcher's pick and every variant against a torch float64
    reference (the -inf mask identical, calc_diff < 1e-3);
  - times every variant of every --bundle (at a few split_kv values) and the
    dispatcher's pick with CUDA events: the median of --iters warm calls,
    queued behind a GPU sleep so that host time is not measured, the inputs
    rotated over more than --rotate-mib of cache (beyond the L2);
  - measures the device-to-device copy bandwidth in the same run;
  - prints a table per shape (us, effective TB/s, fraction of copy, the
    pick), writes it as CSV, and writes the fastest measured variant per
    shape that the dispatcher can reach (one of the first bundle's) as
    tuned-table rows (--tuned-out).

A variant is timed through the runtime's own dispatch: a context whose
TESSEL_TUNED_DIR holds a table naming only that variant (the pick is
checked from TESSEL_LOG_TUNED_CONFIG's log). Effective bytes per call:
sum(ctx) * 132 + q + weights + sum(ctx) * next_n * 4 (issue 10).
"""
import argparse
import contextlib
import csv
import json
import math
import os
import re
import struct
import sys
import tempfile
import time

SHAPES = [(1, 1, 32768), (1, 2, 32768), (8, 1, 32768), (16, 1, 8192),
          (16, 3, 8192), (64, 1, 8192), (64, 2, 8192), (64, 8, 8192),
          (128, 1, 32768), (256, 1, 8192), (256, 3, 8192)]
D, BLOCK = 128, 64
TABLE_HEADER = ("arch,cu_num,heads,head_dim,kv_block_size,preshuffle,batch,"
                "next_n,context,kernel,chunk_k,waves_per_eu,split_kv,"
                "rows_per_program,num_waves,persistent,tokens_on_m,us,tbps")


def progress(msg):
    print(msg, file=sys.stderr, flush=True)


def bundle_variants(path):
    """The paged_mqa_logits code objects of a bundle: (name, target,
    knobs), from its manifest (runtime/lib/Bundle.cpp's layout)."""
    data = open(path, "rb").read()
    moff, msize = struct.unpack_from("<QQ", data, 32)
    man = json.loads(data[moff:moff + msize])
    out = []
    for e in man["code_objects"]:
        if e["kernel"] == "paged_mqa_logits" and e["target"] in ("sm_90a",
                                                                 "sm_90"):
            out.append((e["name"], e["target"], dict(e["knobs"])))
    return out


def context_bucket(mml):
    return 1 << max(0, (mml - 1).bit_length())


def table_row(H, B, next_n, mml, knobs, split, us=0.0, tbps=0.0, cu=132):
    return ",".join(str(x) for x in (
        "sm_90", cu, H, D, BLOCK, 0, B, next_n, context_bucket(mml),
        "paged_mqa_logits", knobs["chunk_k"], knobs.get("waves_per_eu", 0),
        split, knobs["rows_per_program"], knobs["num_waves"],
        knobs.get("persistent", 0), knobs.get("tokens_on_m", 0),
        "%.2f" % us, "%.3f" % tbps))


@contextlib.contextmanager
def captured_stderr():
    """fd 2 into a file for the block (the runtime logs picks there)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+") as f:
        os.dup2(f.fileno(), 2)
        text = []
        try:
            yield text
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            f.seek(0)
            text.append(f.read())


class Case:
    """One shape's inputs, --rotate sets deep, on the GPU."""

    def __init__(self, torch, H, B, next_n, ctx, rotate_bytes, seed):
        g = torch.Generator().manual_seed(seed)
        lo, hi = int(0.7 * ctx), int(1.3 * ctx)
        self.lens = torch.randint(lo, hi + 1, (B,), generator=g,
                                  dtype=torch.int32)
        self.mml = hi
        self.sum_ctx = int(self.lens.sum())
        per_seq = (self.mml + BLOCK - 1) // BLOCK
        need = [(int(c) + BLOCK - 1) // BLOCK for c in self.lens]
        cache_bytes = sum(need) * BLOCK * (D + 4)
        self.sets = max(2, min(64, math.ceil(rotate_bytes / cache_bytes)))
        nb = sum(need) * self.sets
        self.kv = torch.empty(nb, BLOCK, 1, D + 4, dtype=torch.uint8,
                              device="cuda")
        vals = (torch.randn(nb, BLOCK * D, device="cuda") * 2).to(
            torch.float8_e4m3fn).view(torch.uint8)
        scales = (torch.rand(nb, BLOCK, device="cuda") + 0.25).view(
            torch.uint8).view(nb, BLOCK * 4)
        self.kv.view(nb, BLOCK * (D + 4))[:] = torch.cat([vals, scales], 1)
        del vals, scales
        ids = torch.randperm(nb, generator=g, dtype=torch.int32)
        self.tables, self.qs, self.ws = [], [], []
        at = 0
        for _ in range(self.sets):
            t = torch.zeros(B, per_seq, dtype=torch.int32)
            for b, n in enumerate(need):
                t[b, :n] = ids[at:at + n]
                at += n
            self.tables.append(t.cuda())
            self.qs.append((torch.randn(B, next_n, H, D, generator=g) * 2).to(
                torch.float8_e4m3fn).view(torch.uint8).cuda())
            self.ws.append(torch.randn(B * next_n, H, generator=g).cuda())
        self.lens = self.lens.cuda()
        self.out = torch.empty(B * next_n, self.mml, device="cuda")
        self.H, self.B, self.next_n = H, B, next_n
        self.bytes = (self.sum_ctx * (D + 4) + B * next_n * H * D +
                      B * next_n * H * 4 + self.sum_ctx * next_n * 4)

    def args(self, i):
        i %= self.sets
        return (self.qs[i], self.kv, self.ws[i], self.lens, self.tables[i],
                self.mml)

    def reference(self, torch):
        """DESIGN.md 3.1 in float64 for rotation set 0 (1-D lengths)."""
        q, kv, w, lens, tables, mml = self.args(0)
        B, n, H = self.B, self.next_n, self.H
        flat = kv.view(kv.shape[0], BLOCK * (D + 4))
        out = torch.full((B * n, mml), float("-inf"), dtype=torch.float64,
                         device="cuda")
        qf = q.view(torch.float8_e4m3fn).double().view(B, n, H, D)
        for b in range(B):
            L = int(lens[b])
            t = torch.arange(L, device="cuda")
            blk = tables[b].long()[t // BLOCK]
            off = t % BLOCK
            k = flat[blk[:, None], off[:, None] * D +
                     torch.arange(D, device="cuda")[None, :]]
            k = k.view(torch.float8_e4m3fn).double()
            sbytes = flat[blk[:, None], BLOCK * D + off[:, None] * 4 +
                          torch.arange(4, device="cuda")[None, :]]
            ks = sbytes.contiguous().view(torch.float32).double().view(L)
            s = torch.relu(torch.einsum("jhd,td->jht", qf[b], k))
            s = (s * w.view(B, n, H)[b].double()[:, :, None]).sum(1) * ks
            for j in range(n):
                lr = max(L - n + j + 1, 0)
                out[b * n + j, :lr] = s[j, :lr]
        return out


def calc_check(torch, got, want):
    """'' when got matches want, else what differs."""
    got = got.double()
    mask = torch.isinf(want)
    if not torch.equal(torch.isinf(got) & (got < 0), mask):
        return "-inf mask differs at %d positions" % int(
            (torch.isinf(got) != mask).sum())
    x, y = got[~mask], want[~mask]
    denom = float((x * x + y * y).sum())
    diff = 1 - 2 * float((x * y).sum()) / denom if denom else 0.0
    return "" if diff < 1e-3 else "calc_diff %.3g" % diff


def time_calls(torch, fn, case, iters, warmup):
    """Median microseconds of one call, from CUDA events around each call,
    queued behind a sleep kernel so that the GPU never waits on the host."""
    for i in range(warmup):
        fn(case.args(i))
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    torch.cuda._sleep(int(iters * 60e-6 * 2e9))
    for i in range(iters):
        starts[i].record()
        fn(case.args(warmup + i))
        ends[i].record()
    torch.cuda.synchronize()
    ts = sorted(s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends))
    return ts[len(ts) // 2]


def copy_bandwidth(torch, mib=1024, iters=20):
    """TB/s of a device-to-device copy (read + write bytes)."""
    n = mib << 20
    a = torch.empty(n, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    a.fill_(1)
    for _ in range(3):
        b.copy_(a)
    torch.cuda.synchronize()
    ts = []
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(
            enable_timing=True)
        s.record()
        b.copy_(a)
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1e-3)
    ts.sort()
    return 2 * n / ts[len(ts) // 2] / 1e12


def split_choices(case, knobs, cu):
    """split_kv values to time: about 1, 2, 4 and 8 programs per SM, at
    most one per chunk."""
    groups = -(-case.next_n // knobs["rows_per_program"])
    chunks = -(-case.mml // knobs["chunk_k"])
    out = []
    for per in (1, 2, 4, 8):
        s = max(1, min(chunks, -(-per * cu // (case.B * groups))))
        if s not in out:
            out.append(s)
    return out


def variant_label(target, knobs, split):
    return "%s r%d c%d w%d a%d S%d%s s%d" % (
        target, knobs["rows_per_program"], knobs["chunk_k"],
        knobs["num_waves"], knobs.get("kv_rows_aligned", 0),
        knobs.get("stages", 0), " T" if knobs.get("tokens_on_m", 0) else "",
        split)


PICK_RE = re.compile(r"-> (\S+) \(([^)]*)\) rule=(\w+)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--bundle", action="append", required=True,
                    help="a bundle whose variants are timed (repeatable); "
                    "the first also serves the dispatcher's pick")
    ap.add_argument("--heads", default="64,32")
    ap.add_argument("--shapes", default="",
                    help="B:next_n:ctx,... (default: issue 10's 11)")
    ap.add_argument("--iters", type=int, default=40)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--rotate-mib", type=int, default=256)
    ap.add_argument("--csv", default="logits_bench.csv")
    ap.add_argument("--tuned-out", default="")
    ap.add_argument("--tuned-dir", default="",
                    help="TESSEL_TUNED_DIR for the dispatcher's pick "
                    "(default: the built-in table)")
    ap.add_argument("--pick-only", action="store_true",
                    help="time only the dispatcher's pick (e.g. with "
                    "--tuned-dir holding a table this tool wrote)")
    args = ap.parse_args()

    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "runtime", "python"))
    import tessel
    if not torch.cuda.is_available():
        print("tessel-logits-bench: no CUDA device; skipping")
        return 0
    tessel.load_library(args.runtime)
    shapes = SHAPES if not args.shapes else [
        tuple(int(x) for x in s.split(":")) for s in args.shapes.split(",")]
    heads = [int(h) for h in args.heads.split(",")]
    # The variants a one-row table reaches: where a bundle has a
    # kv_rows_aligned twin (block 64 takes it) or an sm_90a twin (preferred
    # on the device), only that one.
    variants = []  # (bundle, name, target, knobs)
    for b in args.bundle:
        found = bundle_variants(b)

        def has(target, knobs):
            return any(t == target and k == knobs for _, t, k in found)
        for name, target, knobs in found:
            if not knobs.get("kv_rows_aligned", 0) and has(
                    target, dict(knobs, kv_rows_aligned=1)):
                continue
            if target == "sm_90" and has("sm_90a", knobs):
                continue
            variants.append((b, name, target, knobs))
    progress("%d variants: %s" % (len(variants), ", ".join(
        variant_label(t, k, 0)[:-3] + " H%d" % k["heads"]
        for _, _, t, k in variants)))
    copy_tbps = copy_bandwidth(torch)
    progress("device-to-device copy: %.3f TB/s" % copy_tbps)
    tmp = tempfile.mkdtemp(prefix="tessel-logits-bench-")
    tessel.config_set("TESSEL_TUNED_DIR", args.tuned_dir)
    pick_ctx = tessel.Context("cuda")
    pick_ctx.load_bundle(args.bundle[0])
    cu = pick_ctx.cu_count if hasattr(pick_ctx, "cu_count") else 132
    stream = torch.cuda.current_stream().cuda_stream
    rows, tuned, failures = [], [], 0
    total = len(heads) * len(shapes)
    started = time.time()
    for hi, H in enumerate(heads):
        for si, (B, next_n, ctx) in enumerate(shapes):
            n = hi * len(shapes) + si + 1
            case = Case(torch, H, B, next_n, ctx, args.rotate_mib << 20,
                        seed=n)
            want = case.reference(torch)
            progress("[%d/%d] H=%d B=%d next_n=%d ctx=%d: sum(ctx)=%d, "
                     "%.1f MB/call, %d input sets (%.0f s)" % (
                         n, total, H, B, next_n, ctx, case.sum_ctx,
                         case.bytes / 1e6, case.sets, time.time() - started))
            results = []  # (label, us, check, knobs, split, picked)

            def run_on(c):
                return lambda a: c.paged_mqa_logits(*a, out=case.out,
                                                    stream=stream)

            def checked_pick(c):
                """Calls once with the pick logged; returns (log, check)."""
                tessel.config_set("TESSEL_LOG_TUNED_CONFIG", "1")
                with captured_stderr() as log:
                    run_on(c)(case.args(0))
                    torch.cuda.synchronize()
                tessel.config_set("TESSEL_LOG_TUNED_CONFIG", "0")
                m = PICK_RE.search(log[0])
                return m, calc_check(torch, case.out, want)

            m, chk = checked_pick(pick_ctx)
            us = time_calls(torch, run_on(pick_ctx), case, args.iters,
                            args.warmup)
            pick_name = m.group(1) if m else "?"
            pick_desc = "%s (%s, %s)" % (pick_name, m.group(2) if m else "",
                                         m.group(3) if m else "")
            results.append(("pick", us, chk, None, None, pick_desc, True))
            for bundle, name, target, knobs in variants:
                if knobs.get("heads") != H or args.pick_only:
                    continue
                for split in split_choices(case, knobs, cu):
                    d = os.path.join(tmp, "t")
                    os.makedirs(d, exist_ok=True)
                    with open(os.path.join(d, "paged_mqa_logits.csv"),
                              "w") as f:
                        f.write(TABLE_HEADER + "\n" + table_row(
                            H, B, next_n, case.mml, knobs, split, cu=cu) +
                            "\n")
                    tessel.config_set("TESSEL_TUNED_DIR", d)
                    c = tessel.Context("cuda")
                    c.load_bundle(bundle)
                    m, chk = checked_pick(c)
                    label = variant_label(target, knobs, split)
                    if not m or m.group(1) != name or "split_kv=%d" % split \
                            not in m.group(2):
                        chk = chk or "dispatch picked %s" % (
                            m.group(1) if m else "nothing")
                    us = time_calls(torch, run_on(c), case, args.iters,
                                    args.warmup)
                    results.append((label, us, chk, knobs, split, name,
                                    bundle == args.bundle[0]))
                    del c
            tessel.config_set("TESSEL_TUNED_DIR", args.tuned_dir)
            # The table can name only what the dispatcher reaches: the first
            # bundle's variants (on the device sm_90a ones win over sm_90
            # code objects of the same knobs).
            timed = [r for r in results[1:] if not r[2]]
            best = min(timed, key=lambda r: r[1]) if timed else None
            reach = [r for r in timed if r[6]]
            best_reach = min(reach, key=lambda r: r[1]) if reach else None
            print("\nH=%d B=%d next_n=%d ctx=%d (sum ctx %d, %.2f MB): copy "
                  "%.3f TB/s" % (H, B, next_n, ctx, case.sum_ctx,
                                 case.bytes / 1e6, copy_tbps))
            print("  %-32s %10s %8s %7s  %s" % ("variant", "us", "TB/s",
                                                "copy", "check"))
            for label, us, chk, knobs, split, name, _ in results:
                tbps = case.bytes / (us * 1e-6) / 1e12
                mark = " <- best" if best and label == best[0] else ""
                print("  %-32s %10.2f %8.3f %6.1f%%  %s%s" % (
                    label, us, tbps, 100 * tbps / copy_tbps,
                    chk or "ok", mark))
                if label == "pick":
                    print("    picked: %s" % name)
                rows.append({"heads": H, "B": B, "next_n": next_n, "ctx": ctx,
                             "sum_ctx": case.sum_ctx, "bytes": case.bytes,
                             "variant": label, "code_object": name,
                             "us": "%.2f" % us, "tbps": "%.4f" % tbps,
                             "frac_copy": "%.4f" % (tbps / copy_tbps),
                             "copy_tbps": "%.4f" % copy_tbps,
                             "check": chk or "ok"})
                failures += bool(chk)
            if best:
                pick_us = results[0][1]
                print("  pick / best: %.3f" % (pick_us / best[1]))
            if best_reach:
                print("  pick / best reachable: %.3f" %
                      (results[0][1] / best_reach[1]))
                tuned.append(table_row(
                    H, B, next_n, case.mml, best_reach[3], best_reach[4],
                    best_reach[1],
                    case.bytes / (best_reach[1] * 1e-6) / 1e12, cu=cu))
            del case, want
            torch.cuda.empty_cache()
    with open(args.csv, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    if args.tuned_out:
        with open(args.tuned_out, "w") as f:
            f.write(TABLE_HEADER + "\n" + "\n".join(tuned) + "\n")
    print("\ntessel-logits-bench: %d timings, %d failed checks, csv %s" % (
        len(rows), failures, args.csv))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
