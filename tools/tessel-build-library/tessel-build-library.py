#!/usr/bin/env python3
"""Builds Tessel's kernel library: every kernel x variant x target listed in
kernels_dsl/variants.json, compiled with tessel-translate and packed into one
bundle with tessel-bundle.

Targets: gfx942 and gfx950 give hsaco, sm_90 gives PTX, and emu-gfx942 /
emu-gfx950 give the SIMT IR that the emulator runs (the same IR the AMD code
objects are made from).

Usage: tessel-build-library.py --kernels DIR --translate BIN --bundle BIN
                               -o OUT.tbundle [--jobs N]
"""
import argparse
import concurrent.futures
import hashlib
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile

FORMATS = {"gfx942": ("hsaco", "gfx942"), "gfx950": ("hsaco", "gfx950"),
           "sm_90a": ("ptx", "sm_90a"), "sm_90": ("ptx", "sm_90"),
           "emu-gfx942": ("simt", "gfx942"),
           "emu-gfx950": ("simt", "gfx950")}


def fail(msg):
    print(f"tessel-build-library: error: {msg}", file=sys.stderr)
    sys.exit(1)


def load_variants(path):
    try:
        with open(path) as f:
            spec = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        fail(f"{path}: {e}")
    kernels = spec.get("kernels")
    if not isinstance(kernels, list) or not kernels:
        fail(f"{path}: 'kernels' must be a non-empty list")
    for i, k in enumerate(kernels):
        for key in ("source", "kernel", "signature", "targets", "knobs"):
            if key not in k:
                fail(f"{path}: kernels[{i}] has no '{key}'")
        for t in k["targets"]:
            if t not in FORMATS:
                fail(f"{path}: kernels[{i}]: unknown target '{t}' "
                     f"(known: {', '.join(FORMATS)})")
    return kernels


def run(cmd, cwd=None):
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} failed:\n{r.stderr}")
    return r.stdout


def compile_one(translate, root, src, target, knobs, outdir, name):
    fmt, chip = FORMATS[target]
    knob_args = [f"--knob={k}={v}" for k, v in knobs.items()]
    out = os.path.join(outdir, f"{name}.{fmt}")
    res = os.path.join(outdir, f"{name}.json")
    # The SIMT IR gives the workgroup size; the code object its resources.
    # It keeps each op's source location, and the source is named relative to
    # `root` (e.g. kernels_dsl/x.mlir:96:12), so that emulator faults point at
    # the DSL line and the bundle does not depend on where it was built.
    simt = run([translate, src, f"--target={chip}", "--emit=simt", "-o", "-"]
               + knob_args, cwd=root)
    m = re.search(r"known_block_size = array<i32: (\d+), (\d+), (\d+)>", simt)
    if not m:
        fail(f"{src} ({target}): the SIMT IR has no known_block_size")
    block = [int(x) for x in m.groups()]
    if fmt == "simt":
        with open(out, "w") as f:
            f.write(simt)
        resources = {"format": "simt"}
    else:
        run([translate, src, f"--target={chip}", f"--emit={fmt}", "-o", out,
             f"--resource-json={res}", "--ptxas=none"] + knob_args, cwd=root)
        with open(res) as f:
            resources = json.load(f)
    return {"file": os.path.basename(out), "block": block,
            "resources": resources}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--translate", required=True)
    ap.add_argument("--bundle", required=True)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--compiler-version", default="tessel")
    args = ap.parse_args()

    kernels = load_variants(os.path.join(args.kernels, "variants.json"))
    with tempfile.TemporaryDirectory(prefix="tessel-lib-") as outdir:
        build(args, kernels, outdir)


def build(args, kernels, outdir):
    kernels_dir = os.path.abspath(args.kernels)
    root = os.path.dirname(kernels_dir)
    translate = os.path.abspath(args.translate)
    jobs = []
    for k in kernels:
        src = os.path.join(os.path.basename(kernels_dir), k["source"])
        with open(os.path.join(root, src), "rb") as f:
            source_hash = hashlib.sha256(f.read()).hexdigest()
        names = sorted(k["knobs"])
        for values in itertools.product(*(k["knobs"][n] for n in names)):
            knobs = dict(zip(names, values))
            for target in k["targets"]:
                tag = "_".join(f"{n}{v}" for n, v in knobs.items())
                name = f"{k['kernel']}.{target}.{tag}"
                jobs.append((k, src, target, knobs, name, source_hash))

    entries = []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = [pool.submit(compile_one, translate, root, src, target,
                               knobs, outdir, name)
                   for (_, src, target, knobs, name, _) in jobs]
        for (k, _, target, knobs, name, source_hash), fut in zip(jobs,
                                                                 futures):
            r = fut.result()
            entries.append({"name": name, "kernel": k["kernel"],
                            "target": target, "file": r["file"],
                            "knobs": knobs, "signature": k["signature"],
                            "block": r["block"], "resources": r["resources"],
                            "source_hash": source_hash})
    desc = {"tessel_bundle": 1, "compiler_version": args.compiler_version,
            "code_objects": entries}
    desc_path = os.path.join(outdir, "library.json")
    with open(desc_path, "w") as f:
        json.dump(desc, f, indent=1)
    run([args.bundle, "-o", args.output, desc_path])
    print(f"tessel-build-library: {len(entries)} code objects -> "
          f"{args.output}")


if __name__ == "__main__":
    main()
