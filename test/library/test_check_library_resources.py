"""The kernel library's resource check (tools/tessel-build-library/
check-library-resources.py) on hand-written manifests: it passes a clean
library, and fails naming the code object and the count for each target it
guards (SGPR spills, VGPR spills, scratch, the waves_per_eu register
budget) and for manifests it cannot judge."""
import json
import os
import subprocess
import sys

import pytest

TOOL = os.path.join(os.path.dirname(__file__), "..", "..", "tools",
                    "tessel-build-library", "check-library-resources.py")


def kernel(**over):
    k = {"name": "k", "vgpr_count": 128, "agpr_count": 0, "sgpr_count": 40,
         "vgpr_spill_count": 0, "sgpr_spill_count": 0, "scratch_bytes": 0}
    k.update(over)
    return k


def entry(name, target="gfx942", wpe=2, kernels=None, resources=None):
    if resources is None:
        resources = json.dumps({"format": "hsaco",
                                "kernels": kernels or [kernel()]})
    return {"name": name, "target": target, "format": "hsaco",
            "knobs": {"waves_per_eu": wpe},
            "resources": resources}


def run(tmp_path, entries):
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"tessel_bundle": 1, "code_objects": entries}))
    r = subprocess.run([sys.executable, TOOL, "--manifest", str(path)],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def test_clean_library_passes_and_skips_other_targets(tmp_path):
    rc, out = run(tmp_path, [
        entry("a.gfx942"), entry("a.gfx950", target="gfx950"),
        {"name": "a.sm_90", "target": "sm_90", "resources": "{}"},
        {"name": "a.emu", "target": "gfx942", "format": "simt",
         "resources": "{\"format\": \"simt\"}"}])
    assert rc == 0, out
    assert "2 AMD code objects, 0 problems" in out


@pytest.mark.parametrize("field,text", [
    ("sgpr_spill_count", "12 SGPR spills"),
    ("vgpr_spill_count", "12 VGPR spills"),
    ("scratch_bytes", "12 bytes of scratch")])
def test_each_spill_kind_fails_naming_variant_and_count(tmp_path, field,
                                                         text):
    rc, out = run(tmp_path, [entry("ok.gfx942"),
                             entry("bad.gfx950", target="gfx950",
                                   kernels=[kernel(**{field: 12})])])
    assert rc == 1
    assert f"bad.gfx950 (k): {text}" in out
    assert "ok.gfx942" not in out


@pytest.mark.parametrize("wpe,vgprs,agprs,ok", [
    (2, 256, 0, True), (2, 200, 57, False), (2, 257, 0, False),
    # 512 / 3 = 170.7, down to the granule of 8: 168.
    (3, 168, 0, True), (3, 169, 0, False),
    (0, 512, 0, True), (1, 300, 200, True), (4, 129, 0, False)])
def test_register_budget_follows_waves_per_eu(tmp_path, wpe, vgprs, agprs,
                                              ok):
    rc, out = run(tmp_path, [entry("v.gfx942", wpe=wpe, kernels=[
        kernel(vgpr_count=vgprs, agpr_count=agprs)])])
    assert (rc == 0) == ok, out
    if not ok:
        assert f"= {vgprs + agprs} >" in out
        assert f"waves_per_eu = {wpe}" in out


def test_missing_metadata_is_a_problem(tmp_path):
    rc, out = run(tmp_path, [entry("m.gfx942", resources="{}"),
                             entry("n.gfx942", kernels=[{"name": "k"}])])
    assert rc == 1
    assert "m.gfx942: no code-object metadata" in out
    assert "n.gfx942 (k): metadata lacks sgpr_spill_count" in out


def test_bad_resources_json_is_named(tmp_path):
    rc, out = run(tmp_path, [entry("j.gfx942", resources="{not json")])
    assert rc == 1
    assert "j.gfx942: resources are not JSON" in out


def test_a_library_without_amd_objects_is_an_error(tmp_path):
    rc, out = run(tmp_path, [{"name": "p", "target": "sm_90"}])
    assert rc == 2
    assert "no gfx942 or gfx950 code object" in out
