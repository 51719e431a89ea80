#!/usr/bin/env python3
"""Checks the code-object targets of every AMD code object of a kernel
library (issue 9): no SGPR or VGPR spills, no scratch (private segment), and
VGPRs + AGPRs within the budget that the variant's waves_per_eu leaves.

The numbers are the ones the library records: each entry's "resources",
read back by tessel-translate from the code object's AMDGPU metadata
(.sgpr_spill_count, .vgpr_spill_count, .private_segment_fixed_size,
.vgpr_count, .agpr_count). An SGPR spill goes to VGPR lanes, so it costs no
scratch and only the spill count shows it.

Usage: check-library-resources.py --bundle-tool tessel-bundle LIB.tbundle
       check-library-resources.py --manifest MANIFEST.json
Exits 1 naming every code object that misses a target, and how.
"""
import argparse
import json
import subprocess
import sys

# Register file of one lane of a wave64 on CDNA3/CDNA4 (gfx942, gfx950):
# 512 32-bit registers (256 arch VGPRs and 256 AGPRs, one unified file;
# TargetInfo::registersPerLane), allocated in granules of 8.
REGISTER_FILE = {"gfx942": (512, 8), "gfx950": (512, 8)}


def fail(msg):
    print(f"check-library-resources: error: {msg}", file=sys.stderr)
    sys.exit(2)


def register_budget(chip, waves_per_eu):
    """Registers per lane that `waves_per_eu` waves on one SIMD leave each
    wave: the register file divided among them, rounded down to the
    allocation granule; 0 (or no knob) asks for nothing beyond one wave."""
    total, granule = REGISTER_FILE[chip]
    if waves_per_eu <= 1:
        return total
    return total // waves_per_eu // granule * granule


def resources_of(entry):
    r = entry.get("resources")
    if isinstance(r, str):
        try:
            r = json.loads(r) if r else {}
        except json.JSONDecodeError as e:
            raise ValueError(f"resources are not JSON ({e})")
    if not isinstance(r, dict):
        raise ValueError("resources are not a JSON object")
    return r


def check_entry(entry):
    """The problems of one code object, as text (empty when it meets every
    target). Entries other than AMD code objects are skipped (None)."""
    chip = entry.get("target")
    if chip not in REGISTER_FILE or entry.get("format", "hsaco") != "hsaco":
        return None
    name = entry.get("name", "?")
    try:
        res = resources_of(entry)
    except ValueError as e:
        return [f"{name}: {e}"]
    kernels = res.get("kernels")
    if res.get("format") != "hsaco" or not kernels:
        return [f"{name}: no code-object metadata in its resources"]
    wpe = int(entry.get("knobs", {}).get("waves_per_eu", 0))
    budget = register_budget(chip, wpe)
    problems = []
    for k in kernels:
        where = f"{name} ({k.get('name', '?')})"
        missing = [f for f in ("sgpr_spill_count", "vgpr_spill_count",
                               "scratch_bytes", "vgpr_count")
                   if f not in k]
        if missing:
            problems.append(f"{where}: metadata lacks {', '.join(missing)}")
            continue
        for field, what in (("sgpr_spill_count", "SGPR spills"),
                            ("vgpr_spill_count", "VGPR spills"),
                            ("scratch_bytes", "bytes of scratch")):
            if k[field] != 0:
                problems.append(f"{where}: {k[field]} {what}")
        regs = k["vgpr_count"] + k.get("agpr_count", 0)
        if regs > budget:
            problems.append(
                f"{where}: {k['vgpr_count']} VGPRs + "
                f"{k.get('agpr_count', 0)} AGPRs = {regs} > {budget}, the "
                f"budget of waves_per_eu = {wpe}")
    return problems


def load_manifest(args):
    if args.manifest:
        with open(args.manifest) as f:
            return json.load(f)
    r = subprocess.run([args.bundle_tool, "--json", args.bundle],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{args.bundle_tool} --json {args.bundle} failed:\n{r.stderr}")
    return json.loads(r.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bundle", nargs="?")
    ap.add_argument("--bundle-tool")
    ap.add_argument("--manifest", help="a bundle manifest (JSON) instead")
    args = ap.parse_args()
    if not args.manifest and not (args.bundle and args.bundle_tool):
        fail("give a bundle and --bundle-tool, or --manifest")
    try:
        manifest = load_manifest(args)
    except (OSError, json.JSONDecodeError) as e:
        fail(f"cannot read the manifest: {e}")
    entries = manifest.get("code_objects")
    if not isinstance(entries, list):
        fail("the manifest has no 'code_objects' list")
    checked, problems = 0, []
    for e in entries:
        p = check_entry(e)
        if p is None:
            continue
        checked += 1
        problems += p
    if checked == 0:
        fail("the library holds no gfx942 or gfx950 code object")
    for p in problems:
        print(f"check-library-resources: {p}", file=sys.stderr)
    print(f"check-library-resources: {checked} AMD code objects, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
