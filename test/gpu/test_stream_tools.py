"""The streaming kernel's check and benchmark options, without a GPU:
argument checks, the rows a program takes from its block, and the clean
skips."""
import importlib.util
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH_DIR = os.path.join(HERE, "..", "..", "tools", "tessel-gemm-bench")
sys.path.insert(0, HERE)
sys.path.insert(0, BENCH_DIR)
import stream_check  # noqa: E402


def load_bench():
    spec = importlib.util.spec_from_file_location(
        "tessel_gemm_bench", os.path.join(BENCH_DIR, "tessel-gemm-bench.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def no_cuda():
    try:
        import torch
    except ImportError:
        return True
    return not torch.cuda.is_available()


BASE = ["--ptx", "k.ptx", "--resources", "k.json", "--epilogue", "logits"]


def test_sizes_need_m_of_64_and_n_of_16(capsys):
    assert stream_check.parse_args(BASE + ["--sizes", "128,80"]).sizes == [
        (128, 80)]
    for bad in ("96,64", "64,72", "0,64", "64", "a,b"):
        with pytest.raises(SystemExit):
            stream_check.parse_args(BASE + ["--sizes", bad])
    err = capsys.readouterr().err
    assert "multiple of 64" in err and "is not M,N" in err


def test_epilogue_is_logits_or_full():
    with pytest.raises(SystemExit):
        stream_check.parse_args(BASE[:-1] + ["sum"])


def test_rows_per_program_follow_the_block():
    assert stream_check.rows_per_program({"block": (128, 1, 1)}) == 64
    assert stream_check.rows_per_program({"block": (256, 1, 1)}) == 128
    with pytest.raises(ValueError, match="whole warpgroups"):
        stream_check.rows_per_program({"block": (96, 1, 1)})


def test_rows_per_program_can_be_given():
    # b_on_m = 1: one warpgroup (128 threads) takes 128 rows of A.
    assert stream_check.rows_per_program({"block": (128, 1, 1)}, 128) == 128
    assert stream_check.parse_args(BASE + ["--rows", "128"]).rows == 128
    assert stream_check.parse_args(BASE).rows == 0


def test_rows_must_be_a_multiple_of_64(capsys):
    with pytest.raises(SystemExit):
        stream_check.parse_args(BASE + ["--rows", "96"])
    assert "multiple of 64" in capsys.readouterr().err


def test_bench_stream_spec_takes_rows():
    bench = load_bench()
    for bad, why in (("logits:k.ptx:k.json:96", "multiple of 64"),
                     ("logits:k.ptx:k.json:x", "multiple of 64"),
                     ("logits:k.ptx", "EPILOGUE:PTX:JSON"),
                     ("logits:k.ptx:k.json:64:1", "EPILOGUE:PTX:JSON"),
                     ("sum:k.ptx:k.json", "logits or full")):
        with pytest.raises(SystemExit, match=why):
            bench.StreamKernel(None, None, bad)


def test_bench_needs_a_kernel(capsys):
    bench = load_bench()
    with pytest.raises(SystemExit):
        bench.main([])
    assert "nothing to run" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main(["--ptx", "k.ptx"])
    assert "go together" in capsys.readouterr().err


def test_rotation_covers_four_times_l2():
    bench = load_bench()
    l2 = 64 << 20
    n = bench.rotation_count(1 << 20, l2)
    assert n * (1 << 20) > 4 * l2
    assert bench.rotation_count(1 << 30, l2) == 1


@pytest.mark.skipif(not no_cuda(), reason="a CUDA device is present")
def test_check_and_bench_skip_cleanly_without_a_device(capsys):
    assert stream_check.main(BASE) == 0
    assert load_bench().main(["--stream", "logits:k.ptx:k.json"]) == 0
    assert "skipped" in capsys.readouterr().out


@pytest.mark.skipif(not no_cuda(), reason="a CUDA device is present")
def test_run_script_skips_cleanly_without_a_device(tmp_path):
    r = subprocess.run(["bash", os.path.join(HERE, "run_stream_h200.sh"),
                        str(tmp_path), str(tmp_path / "out")],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "skipped" in r.stdout
