"""The GPU run scripts without a GPU: each parses as bash, and each refuses a
missing or wrong argument at once (exit status 2, a message naming the
argument and the path) before it builds or writes anything; timed_step.sh's
step keeps going past a failure and prints the failed step's tail."""
import glob
import os
import stat
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

# Each script's positional arguments that name inputs: (NAME, kind, required).
SCRIPTS = {
    "run_h200.sh": [("BUNDLE", "file", True)],
    "run_gemm_h200.sh": [("DIR", "dir", True)],
    "run_stream_h200.sh": [("DIR", "dir", True)],
    "run_topk_h200.sh": [("BUNDLE", "file", True),
                         ("RUNTIME_LIBRARY", "file", True)],
    "run_torch_ops_h200.sh": [("BUNDLE", "file", True)],
    "run_logits_h200.sh": [("BUNDLE", "file", True),
                           ("SM90_BUNDLE", "file", False)],
    "run_host_costs_h200.sh": [("BUNDLE", "file", True),
                               ("BASE_BUNDLE", "file", False),
                               ("BASE_TREE", "dir", False)],
}


def run(args, tmp_path, script=None):
    env = dict(os.environ, OUT=str(tmp_path / "out"))
    cmd = ["bash", os.path.join(HERE, script)] + args if script else args
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)


def valid(kind, tmp_path):
    """An existing input of the given kind."""
    if kind == "dir":
        path = tmp_path / "a_dir"
        path.mkdir(exist_ok=True)
    else:
        path = tmp_path / "a_file"
        path.write_bytes(b"x")
    return str(path)


def assert_refused(proc, tmp_path, *needles):
    assert proc.returncode == 2, proc.stdout + proc.stderr
    for needle in needles:
        assert needle in proc.stderr
    assert "usage: " in proc.stderr
    # Refused before any step: no log folder, no output.
    assert not (tmp_path / "out").exists()
    assert proc.stdout == ""


@pytest.mark.parametrize(
    "path", sorted(glob.glob(os.path.join(HERE, "*.sh"))),
    ids=os.path.basename)
def test_every_script_parses(path):
    proc = subprocess.run(["bash", "-n", path], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_run_script_is_listed():
    found = {os.path.basename(p)
             for p in glob.glob(os.path.join(HERE, "run_*.sh"))}
    assert found == set(SCRIPTS)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_no_arguments(script, tmp_path):
    proc = run([], tmp_path, script)
    needed = sum(required for _, _, required in SCRIPTS[script])
    assert_refused(proc, tmp_path,
                   "expected at least %d argument(s), got 0" % needed,
                   "usage: " + script)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
@pytest.mark.parametrize("position", [0, 1, 2])
def test_missing_path(script, position, tmp_path):
    spec = SCRIPTS[script]
    if position >= len(spec):
        pytest.skip("no such argument")
    # Valid inputs before it and after it where required, so that this one
    # is the argument refused.
    args = [valid(kind, tmp_path) if required or i < position else None
            for i, (_, kind, required) in enumerate(spec)]
    missing = str(tmp_path / "no_such_input")
    args[position] = missing
    name = spec[position][0]
    proc = run([a for a in args if a is not None], tmp_path, script)
    assert_refused(proc, tmp_path, "%s '%s' does not exist" % (name, missing))


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_wrong_kind(script, tmp_path):
    spec = SCRIPTS[script]
    name, kind, _ = spec[0]
    other = valid("file" if kind == "dir" else "dir", tmp_path)
    rest = [valid(k, tmp_path) for _, k, required in spec[1:] if required]
    proc = run([other] + rest, tmp_path, script)
    assert_refused(proc, tmp_path, "%s '%s' is not a %s" % (name, other, kind))


def test_empty_required_path(tmp_path):
    proc = run([""], tmp_path, "run_h200.sh")
    assert_refused(proc, tmp_path, "BUNDLE is empty")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_bundle(tmp_path):
    bundle = tmp_path / "locked.tbundle"
    bundle.write_bytes(b"x")
    bundle.chmod(0)
    try:
        proc = run([str(bundle)], tmp_path, "run_torch_ops_h200.sh")
    finally:
        bundle.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert_refused(proc, tmp_path, "BUNDLE '%s' is not readable" % bundle)


def step_script(tmp_path, settings):
    """Two steps, the first failing, through timed_step.sh."""
    return ("OUTDIR=%s; status=0\n%s\n. %s/timed_step.sh\n"
            "step bad bad.log 10 bash -c 'printf \"tessel: %%s\\\\n\" noise; "
            "seq 1 50; exit 3'\n"
            "echo first=$?\n"
            "step good good.log 10 echo fine\n"
            "echo status=$status\n" % (tmp_path, settings, HERE))


def test_step_goes_on_and_remembers_a_failure(tmp_path):
    proc = run(["bash", "-c", step_script(tmp_path, "")], tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("=== bad: rc=3, ")
    assert lines[1] == "first=3"
    assert lines[2].startswith("=== good: rc=0, ")
    assert lines[3] == "status=1"
    log = (tmp_path / "bad.log").read_text()
    assert "tessel: noise" in log and "\n50\n" in log


def test_step_tail_on_failure(tmp_path):
    proc = run(["bash", "-c", step_script(tmp_path, "STEP_TAIL=3")], tmp_path)
    lines = proc.stdout.splitlines()
    # The failed step's last three lines of output; the passing step's none.
    assert lines[:3] == ["48", "49", "50"]
    assert lines[3].startswith("=== bad: rc=3, ")
    assert lines[5].startswith("=== good: rc=0, ")


def test_step_tail_always_skips_runtime_log_lines(tmp_path):
    settings = "STEP_TAIL=60 STEP_TAIL_WHEN=always"
    proc = run(["bash", "-c", step_script(tmp_path, settings)], tmp_path)
    out = proc.stdout
    assert "tessel: noise" not in out
    bad = out[:out.index("=== bad: rc=3")]
    # The command line first, then 1..50.
    assert bad.splitlines()[0].startswith("=== bad: bash -c printf")
    assert bad.splitlines()[1:] == [str(i) for i in range(1, 51)]
    assert "=== good: echo fine\nfine\n=== good: rc=0, " in out
