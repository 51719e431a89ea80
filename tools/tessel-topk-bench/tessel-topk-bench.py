#!/usr/bin/env python3
"""Benchmarks topk_per_row (k = 2048) on a CUDA device beside torch.topk.

    tessel-topk-bench.py --bundle B.tbundle [--runtime libtessel_runtime.so]
        [--rows 1,8,64,256] [--cols 8192,32768,131072] [--num-waves 8,16]
        [--persistent 0,1] [--csv OUT.csv] [--table OUT_TABLE.csv]

For every rows x cols cell (full-length rows, f32 standard-normal logits)
it times, in the same process and on the same inputs:
  - torch.ops.tessel.topk_per_row, the variant the dispatcher picks (its
    name and knobs are read from the runtime's TESSEL_LOG_TUNED_CONFIG line);
  - each (num_waves, persistent) variant alone (a context whose tuned
    table names only that variant): the one-workgroup variants, and the
    persistent ones (parts by the runtime's rule) on cells of at most 64
    rows, the most they serve;
  - the dispatcher's pick with sorted=True, whose output (descending, ties
    to the smaller column) is what torch.topk returns by default;
  - torch.topk(x, 2048, dim=-1).
Each is captured in a CUDA graph of `batch` calls over rotated input copies
(up to 32, enough that one pass covers 4x L2 where memory allows) and the
graph is replayed between CUDA events; the time is the median per call.
Printed: us for both, the ratios torch / tessel (unsorted and sorted), the
pick, the fastest variant alone and the pick's time over it, and whether
the cell meets the targets (>= 4x torch.topk everywhere, <= 15 us for rows
<= 8). --csv writes the same rows; --table writes topk_per_row.csv rows
(the fastest variant per cell, with its persistent knob and parts 0) for
runtime/tuned/.

Prints a message and exits 0 without torch or a CUDA device.
"""
import argparse
import os
import statistics
import sys
import tempfile

K = 2048
L2_BYTES = 50 << 20  # H200: 50 MiB
MAX_COPIES = 32


def median_us(torch, fn, copies, iters=30):
    """Median per-call time of a CUDA graph of `batch` calls fn(i)."""
    batch = max(copies, 16)
    for i in range(min(copies, 3)):
        fn(i)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for j in range(batch):
            fn(j % copies)
    g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        g.replay()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1e3 / batch)
    return statistics.median(times)


TABLE_HEADER = "arch,cu_num,k,rows,cols,kernel,num_waves,persistent,parts,us"
# Rows beyond this the persistent variant does not serve (topk_workspace.h).
PERSISTENT_MAX_ROWS = 64


def table_row(arch, cu_num, rows, cols, num_waves, persistent, us):
    return "%s,%d,%d,%d,%d,topk_per_row,%d,%d,0,%.2f" % (
        arch, cu_num, K, rows, cols, num_waves, persistent, us)


def forced_table(dirname, arch, cu_num, num_waves, persistent):
    """A topk_per_row table whose only row (for every shape, by the
    nearest-bucket rule) names the variant (num_waves, persistent)."""
    path = os.path.join(dirname, "topk_per_row.csv")
    with open(path, "w") as f:
        f.write(TABLE_HEADER + "\n")
        f.write(table_row(arch, cu_num, 1, 1, num_waves, persistent, 0) +
                "\n")
    return dirname


def variant_name(v):
    return "nw%d%s" % (v[0], "p" if v[1] else "")


def serves(v, rows):
    return not v[1] or rows <= PERSISTENT_MAX_ROWS


class Stderr:
    """Captures what the process writes to fd 2 (the runtime's log)."""

    def __enter__(self):
        self.file = tempfile.TemporaryFile(mode="w+b")
        sys.stderr.flush()
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read().decode(errors="replace")
        self.file.close()


def pick_of(log):
    """'topk_per_row... -> NAME (knobs)' of the runtime's pick log."""
    for line in log.splitlines():
        if "topk_per_row" in line and " -> " in line:
            tail = line.split(" -> ", 1)[1]
            return tail.split(" rule=")[0].strip()
    return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--runtime", help="libtessel_runtime.so to load")
    ap.add_argument("--rows", default="1,8,64,256")
    ap.add_argument("--cols", default="8192,32768,131072")
    ap.add_argument("--num-waves", default="8,16",
                    help="the num_waves variants to time alone")
    ap.add_argument("--persistent", default="0,1",
                    help="the persistent knob values to time alone")
    ap.add_argument("--csv", help="write the results here")
    ap.add_argument("--table", help="write tuned-table rows here")
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("tessel-topk-bench: torch is not installed; skipping")
        return 0
    if not torch.cuda.is_available():
        print("tessel-topk-bench: no CUDA device; skipping")
        return 0
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "runtime", "python"))
    import tessel
    from tessel import _torch_ops
    if args.runtime:
        tessel.load_library(args.runtime)
    rows = [int(v) for v in args.rows.split(",")]
    cols = [int(v) for v in args.cols.split(",")]
    waves = [int(v) for v in args.num_waves.split(",") if v]
    variants = [(w, int(p)) for p in args.persistent.split(",") if p
                for w in waves]

    tessel.config_set("TESSEL_LOG_TUNED_CONFIG", "1")
    assert tessel.register_torch_ops("cuda")
    main_ctx = _torch_ops.context()
    main_ctx.load_bundle(args.bundle)
    arch, cu = main_ctx.arch, main_ctx.cu_count
    tmp = tempfile.mkdtemp(prefix="tessel-topk-bench-")
    forced = {}
    for v in variants:
        d = os.path.join(tmp, variant_name(v))
        os.makedirs(d)
        tessel.config_set("TESSEL_TUNED_DIR",
                          forced_table(d, arch, cu, v[0], v[1]))
        c = tessel.Context("cuda")
        c.load_bundle(args.bundle)
        forced[v] = c
    print("device: %s, %s, %d SMs; torch %s" % (
        torch.cuda.get_device_name(), arch, cu, torch.__version__))
    print("inputs rotated over up to %d copies (4x L2 where memory allows); "
          "graph replay, median us per call" % MAX_COPIES)

    header = ["rows", "cols", "tessel_us", "torch_us", "ratio",
              "sorted_us", "sorted_ratio", "pick", "best", "best_us",
              "pick_over_best"] + [
        "%s_us" % variant_name(v) for v in variants] + [
        "meets_4x", "meets_15us"]
    out_rows = []
    print(" ".join("%10s" % h for h in header[:7]) + "  pick / variants")
    for R in rows:
        for L in cols:
            nbytes = R * L * 4
            copies = max(1, min(MAX_COPIES, 4 * L2_BYTES // nbytes + 1))
            xs = [torch.randn(R, L, device="cuda") for _ in range(copies)]
            lens = torch.full((R,), L, dtype=torch.int32, device="cuda")
            outs = [torch.empty(R, K, dtype=torch.int32, device="cuda")
                    for _ in range(copies)]
            stream = torch.cuda.current_stream().cuda_stream
            with Stderr() as log:
                torch.ops.tessel.topk_per_row(xs[0], lens, 1, K,
                                              out=outs[0])
                torch.cuda.synchronize()
            pick = pick_of(log.text)
            with Stderr():
                t_tessel = median_us(
                    torch, lambda i: torch.ops.tessel.topk_per_row(
                        xs[i], lens, 1, K, out=outs[i]), copies)
                t_sorted = median_us(
                    torch, lambda i: torch.ops.tessel.topk_per_row(
                        xs[i], lens, 1, K, sorted=True, out=outs[i]), copies)
                per = {}
                for v, c in forced.items():
                    if not serves(v, R):
                        continue
                    per[v] = median_us(
                        torch, lambda i, c=c: c.topk_per_row(
                            xs[i], lens, 1, K, out=outs[i],
                            stream=torch.cuda.current_stream().cuda_stream),
                        copies)
            t_torch = median_us(torch, lambda i: torch.topk(xs[i], K, dim=-1),
                                copies)
            ratio = t_torch / t_tessel
            r = {"rows": R, "cols": L, "tessel_us": t_tessel,
                 "torch_us": t_torch, "ratio": ratio, "pick": pick,
                 "sorted_us": t_sorted, "sorted_ratio": t_torch / t_sorted,
                 "meets_4x": int(ratio >= 4.0),
                 "meets_15us": int(t_tessel <= 15.0) if R <= 8 else ""}
            for v in variants:
                r["%s_us" % variant_name(v)] = per.get(v, "")
            best = min(per, key=per.get) if per else None
            r["best"] = variant_name(best) if best else ""
            r["best_us"] = per[best] if best else ""
            r["pick_over_best"] = t_tessel / per[best] if best else ""
            r["best_variant"] = best
            out_rows.append(r)
            print("%10d %10d %10.2f %10.2f %10.3f %10.2f %10.3f  %s  %s%s" % (
                R, L, t_tessel, t_torch, ratio, t_sorted, t_torch / t_sorted,
                pick, " ".join(
                    "%s=%.2f" % (variant_name(v), per[v]) for v in per),
                "  best %s, pick/best %.3f" % (r["best"], r["pick_over_best"])
                if best else ""))
            del xs, outs
            del stream
    if args.csv:
        with open(args.csv, "w") as f:
            f.write(",".join(header) + "\n")
            for r in out_rows:
                f.write(",".join(
                    ("%.3f" % r[h]) if isinstance(r[h], float) else str(r[h])
                    for h in header) + "\n")
    if args.table and variants:
        with open(args.table, "w") as f:
            f.write(TABLE_HEADER + "\n")
            for r in out_rows:
                best = r["best_variant"]
                if best:
                    f.write(table_row(arch, cu, r["rows"], r["cols"], best[0],
                                      best[1], r["best_us"]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
