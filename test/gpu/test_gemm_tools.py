"""The GEMM check and benchmark's host side, without a GPU: argument checks,
the launch-info reader's errors, and the clean skip."""
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "tessel-gemm-bench"))
import gemm_check  # noqa: E402
import ptx_launch  # noqa: E402


def test_sizes_must_be_positive_multiples_of_16(capsys):
    base = ["--ptx", "k.ptx", "--resources", "k.json", "--dtype", "fp8"]
    assert gemm_check.parse_args(base + ["--sizes", "64,32,16"]).sizes == [
        (64, 32, 16)]
    for bad in ("64,32", "64,33,16", "0,16,16", "a,b,c"):
        with pytest.raises(SystemExit):
            gemm_check.parse_args(base + ["--sizes", bad])
    assert "M,N,K" in capsys.readouterr().err


def write(tmp_path, obj):
    p = tmp_path / "r.json"
    p.write_text(json.dumps(obj))
    return str(p)


def test_launch_info_reads_name_block_and_parameter_sizes(tmp_path):
    p = write(tmp_path, {"format": "ptx", "target": "sm_90a", "kernels": [
        {"name": "k", "reqd_workgroup_size": [128, 1, 1],
         "args": [{"size": 8}, {"size": 4}]}]})
    info = ptx_launch.read_launch_info(p)
    assert info["name"] == "k" and info["block"] == (128, 1, 1)
    assert info["arg_sizes"] == [8, 4] and info["target"] == "sm_90a"


@pytest.mark.parametrize("obj,msg", [
    ({"format": "hsaco", "kernels": [{}]}, "one PTX kernel"),
    ({"format": "ptx", "kernels": []}, "one PTX kernel"),
    ({"format": "ptx", "kernels": [{"name": "k", "args": []}]},
     "no reqd_workgroup_size"),
])
def test_launch_info_rejects_other_resources(tmp_path, obj, msg):
    with pytest.raises(ValueError, match=msg):
        ptx_launch.read_launch_info(write(tmp_path, obj))


def test_check_skips_cleanly_without_a_device(capsys):
    try:
        import torch
        if torch.cuda.is_available():
            pytest.skip("a CUDA device is present")
    except ImportError:
        pass
    assert gemm_check.main(["--ptx", "k.ptx", "--resources", "k.json",
                            "--dtype", "bf16"]) == 0
    assert "skipped" in capsys.readouterr().out
