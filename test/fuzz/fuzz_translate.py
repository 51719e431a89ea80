#!/usr/bin/env python3
"""Mutation fuzzer for tessel-translate.

Mutates the kernels in kernels_dsl/ and the lit inputs (test/lit/**/*.mlir,
split at `// -----`): deletes, duplicates, swaps and splices lines, changes
numbers, shapes, element types, op names and predicates, and binds knobs.
Each mutant goes through tessel-translate for every target, to the code
object (gfx942 and gfx950 --emit=hsaco, sm_90 --emit=ptx) and to SIMT IR
(--emit=simt, one target per mutant in turn).

A run passes when every invocation exits 0, or exits 1 with a located
diagnostic (`FILE:LINE:COL: error: ...`). It fails on a signal, an
"LLVM ERROR", a stack dump, LLVM's fatal-error report, any other exit code,
an unlocated error, or a run longer than the per-run timeout.

Every run first replays the corpus of past failures (test/fuzz/corpus/*.mlir)
on every configuration; those listed in test/fuzz/known-failures.txt run
only on the configuration in their header, with a short timeout, and are
reported but do not fail the run. Then it runs mutants from a deterministic
seed until a mutant count or a time budget is reached, and prints a summary.

Environment (each also a command-line option):
  TESSEL_FUZZ_SEED     seed of the mutants (default 1)
  TESSEL_FUZZ_SECONDS  time budget for mutants, in seconds (default 45)
  TESSEL_FUZZ_MUTANTS  most mutants to run (default 120; 0 = no limit)
  TESSEL_FUZZ_TIMEOUT  per-invocation timeout, in seconds (default 20)

Mutant I of seed S is the same on every machine: rerun it alone with
`--seed S --only I`. `--save-crashers` writes each new failure, reduced line
by line, into the corpus.
"""

import argparse
import concurrent.futures
import hashlib
import os
import random
import re
import subprocess
import sys
import tempfile
import time

TARGETS = [("gfx942", "hsaco"), ("gfx950", "hsaco"), ("sm_90a", "ptx"),
           ("sm_90", "ptx")]
SIMT_TARGETS = ["gfx942", "gfx950", "sm_90a", "sm_90"]

# Interesting integers: edges of widths, powers of two and their neighbours.
NUMBERS = [0, 1, -1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65,
           100, 127, 128, 129, 255, 256, 257, 1000, 1024, 4096, 65535, 65536,
           2**31 - 1, 2**31, -2**31, 2**32, 2**63 - 1, -2**63, 2**64]
DIMS = [0, 1, 2, 3, 4, 5, 7, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512,
        1024, 2048, 4096, 65536]
TYPES = ["i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64",
         "index", "f8E4M3FN", "f8E4M3FNUZ", "f8E5M2"]
# Words that may stand for each other in the same position.
WORD_GROUPS = [
    ["addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "andi",
     "ori", "xori", "shli", "shrsi", "shrui", "maxsi", "minsi", "maxui",
     "minui"],
    ["addf", "subf", "mulf", "divf", "maximumf", "minimumf", "maxnumf",
     "minnumf", "remf"],
    ["extsi", "extui", "trunci", "extf", "truncf", "sitofp", "uitofp",
     "fptosi", "fptoui", "bitcast", "index_cast"],
    ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"],
    ["oeq", "one", "olt", "ole", "ogt", "oge", "ueq", "une", "ult", "uno"],
    ["add", "max", "min", "mul", "and", "or", "xor"],
    ["inclusive", "exclusive"],
    ["absf", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "sin",
     "cos", "ceil", "floor"],
    ["program_id", "num_programs"],
    ["expand_dims", "broadcast", "reshape", "trans", "splat"],
]
WORD_INDEX = {w: g for g in WORD_GROUPS for w in g}

NUMBER_RE = re.compile(r"(?<![\w.%#@^$])-?\d+(?:\.\d+(?:[eE][+-]?\d+)?)?(?![\w.])")
SHAPE_RE = re.compile(r"(?<=[<x])(\d+)(?=x)")
TYPE_RE = re.compile(r"(?:(?<=\dx)|(?<![\w.%#@^]))(" +
                     "|".join(sorted(TYPES, key=len, reverse=True)) +
                     r")(?![\w])")
WORD_RE = re.compile(r"(?<=[.\s])(" + "|".join(
    sorted(WORD_INDEX, key=len, reverse=True)) + r")(?![\w])")
KNOB_RE = re.compile(r'#tile\.knob<"(\w+)"')

LOCATED_RE = re.compile(r"^\S.*:\d+:\d+: error: ", re.M)
FATAL_MARKERS = ["LLVM ERROR", "Stack dump", "PLEASE submit a bug report",
                 "Assertion", "LLVM failed:", "UNREACHABLE", "terminate called"]


def load_seeds(root):
    """The seed inputs: (name, text) in a fixed order."""
    paths = []
    for sub in ("kernels_dsl", os.path.join("test", "lit")):
        base = os.path.join(root, sub)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith(".mlir"):
                    paths.append(os.path.join(dirpath, f))
    seeds = []
    for p in sorted(paths):
        with open(p, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        rel = os.path.relpath(p, root)
        # Inputs meant to fail reach less of the compiler: fewer mutants.
        invalid = re.search(r"RUN:\s*not\b|-verify-diagnostics", text)
        chunks = re.split(r"^// -----\s*$", text, flags=re.M)
        for i, chunk in enumerate(chunks):
            # Comments (RUN and CHECK lines) only cost time.
            lines = [l for l in chunk.splitlines()
                     if not l.lstrip().startswith("//")]
            if any(l.strip() for l in lines):
                weight = 1 if invalid or "expected-error" in chunk else 4
                seeds.append((f"{rel}#{i}", "\n".join(lines) + "\n",
                              weight))
    return seeds


def replace_match(rng, text, regex, pick):
    """Replaces one random match of regex with pick(match), if any."""
    matches = list(regex.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    new = pick(m)
    return None if new is None else text[:m.start()] + new + text[m.end():]


def mutate_number(rng, text):
    def pick(m):
        old = m.group(0)
        if "." in old:
            return rng.choice(["0.0", "-0.0", "1.0e+38", "-1.0", "3.5e+38",
                               "1.0e-45", "240.0", "448.0", "0x7FC00000"])
        v = int(old)
        choice = rng.random()
        if choice < 0.6:
            return str(rng.choice(NUMBERS))
        if choice < 0.8:
            return str(v + rng.choice([-1, 1]))
        return str(v * 2 if rng.random() < 0.5 else v // 2)
    return replace_match(rng, text, NUMBER_RE, pick)


def mutate_shape(rng, text):
    def pick(m):
        choice = rng.random()
        if choice < 0.75:
            return str(rng.choice(DIMS))
        if choice < 0.9:  # add a dimension
            return f"{rng.choice(DIMS[:12])}x{m.group(0)}"
        return f"{int(m.group(0)) * 2}"
    return replace_match(rng, text, SHAPE_RE, pick)


def mutate_type(rng, text):
    return replace_match(rng, text, TYPE_RE,
                         lambda m: rng.choice(TYPES))


def replace_all(rng, text, regex, pick):
    """Replaces every match equal to a random match with one new value, so
    that the mutant stays consistent (e.g. a tile size everywhere)."""
    matches = list(regex.finditer(text))
    if not matches:
        return None
    old = rng.choice(matches).group(0)
    new = pick(old)
    return regex.sub(lambda m: new if m.group(0) == old else m.group(0), text)


def mutate_shape_all(rng, text):
    # Shapes and the integer constants equal to the dimension.
    old = rng.choice(SHAPE_RE.findall(text) or [None])
    if old is None:
        return None
    new = str(rng.choice(DIMS[1:]))
    sub = lambda m: new if m.group(0) == old else m.group(0)
    return NUMBER_RE.sub(sub, SHAPE_RE.sub(sub, text))


def mutate_type_all(rng, text):
    return replace_all(rng, text, TYPE_RE, lambda old: rng.choice(TYPES))


def mutate_word(rng, text):
    return replace_match(rng, text, WORD_RE,
                         lambda m: rng.choice(WORD_INDEX[m.group(0)]))


def mutate_lines(rng, text, kind, donors):
    lines = text.splitlines()
    if not lines:
        return None
    i = rng.randrange(len(lines))
    if kind == "delete":
        del lines[i]
    elif kind == "duplicate":
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
    elif kind == "swap":
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "splice":
        donor = rng.choice(donors)[1].splitlines()
        if not donor:
            return None
        lines.insert(i, rng.choice(donor))
    return "\n".join(lines) + "\n"


MUTATORS = [
    ("delete", 2), ("duplicate", 1), ("swap", 1), ("splice", 1),
    ("number", 4), ("shape", 2), ("type", 1), ("word", 3),
    ("shape_all", 4), ("type_all", 3),
]


def make_mutant(seed, index, seeds):
    """Mutant `index` of `seed`: (seed name, text, knob args, simt target)."""
    rng = random.Random(f"tessel-fuzz:{seed}:{index}")
    name, text, _ = rng.choices(seeds, weights=[w for *_, w in seeds])[0]
    applied = []
    kinds = [k for k, w in MUTATORS for _ in range(w)]
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        for _attempt in range(8):
            kind = rng.choice(kinds)
            if kind in ("delete", "duplicate", "swap", "splice"):
                new = mutate_lines(rng, text, kind, seeds)
            else:
                new = {"number": mutate_number, "shape": mutate_shape,
                       "type": mutate_type, "word": mutate_word,
                       "shape_all": mutate_shape_all,
                       "type_all": mutate_type_all}[kind](rng, text)
            if new is not None and new != text:
                text = new
                applied.append(kind)
                break
    knobs = []
    names = sorted(set(KNOB_RE.findall(text)))
    if names and rng.random() < 0.3:
        knob = rng.choice(names)
        knobs = ["--knob", f"{knob}={rng.choice(NUMBERS[:24])}"]
    simt = SIMT_TARGETS[index % len(SIMT_TARGETS)]
    return name, applied, text, knobs, simt


def configs(simt_target):
    out = [(t, e) for t, e in TARGETS]
    out.append((simt_target, "simt"))
    return out


def classify(proc_result):
    """'ok', 'diagnostic', or a failure kind with its evidence."""
    rc, stderr, timed_out = proc_result
    if timed_out:
        return "timeout", "no result within the timeout"
    for marker in FATAL_MARKERS:
        if marker in stderr:
            line = next((l for l in stderr.splitlines() if marker in l),
                        marker)
            frame = crash_frame(stderr)
            return "fatal", line.strip() + (f" in {frame}" if frame else "")
    if rc < 0:
        frame = crash_frame(stderr)
        return "signal", f"killed by signal {-rc}" + (f" in {frame}"
                                                      if frame else "")
    if rc == 0:
        return "ok", ""
    if rc == 1 and LOCATED_RE.search(stderr):
        return "diagnostic", ""
    first = next((l for l in stderr.splitlines() if l.strip()), "")
    if rc == 1:
        return "unlocated", first.strip()
    return "exit", f"exit code {rc}: {first.strip()}"


def run_tool(tool, path, target, emit, knobs, timeout, workdir):
    out = os.path.join(workdir, f"out-{target}-{emit}-{os.getpid()}-"
                       f"{hashlib.sha1(path.encode()).hexdigest()[:8]}")
    cmd = [tool, path, f"--target={target}", f"--emit={emit}", "-o", out]
    cmd += knobs
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=timeout)
        result = (p.returncode, p.stderr.decode("utf-8", "replace"), False)
    except subprocess.TimeoutExpired:
        result = (None, "", True)
    try:
        os.unlink(out)
    except OSError:
        pass
    return result


def crash_frame(stderr):
    """The innermost named frame of a stack dump, past the signal handlers."""
    for l in stderr.splitlines():
        m = re.match(r"\s*#\d+ 0x[0-9a-f]+ (\S.*?) \(", l)
        if m and not re.search(r"PrintStackTrace|SignalHandler|"
                               r"RunSignalHandlers|^\(", m.group(1)):
            return m.group(1)
    return None


def signature(kind, evidence, stderr):
    """Groups failures: the kind plus the crashing frame or the evidence,
    without numbers and file names."""
    text = crash_frame(stderr) or evidence
    text = re.sub(r"\d+", "N", text)
    text = re.sub(r"\S+\.mlir", "F", text)
    return f"{kind}: {text[:160]}"


class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.pool = concurrent.futures.ThreadPoolExecutor(args.jobs)
        self.counts = {"ok": 0, "diagnostic": 0}
        self.failures = []  # (label, config, kind, evidence, path)
        self.seen = set()
        self.diagnostics = {}  # first error message, numbers elided -> count

    def check(self, path, knobs, cfgs, timeout):
        """Runs path on each (target, emit) of cfgs: a list of (config,
        kind, evidence, stderr)."""
        futures = [self.pool.submit(run_tool, self.args.tool, path, t, e,
                                    knobs, timeout, self.args.work_dir)
                   for t, e in cfgs]
        results = []
        for (t, e), fut in zip(cfgs, futures):
            res = fut.result()
            kind, evidence = classify(res)
            results.append(((t, e), kind, evidence, res[1]))
        return results

    def reduce(self, text, knobs, cfg, sig, deadline):
        """Deletes lines while the failure keeps its signature."""
        lines = text.splitlines()
        path = os.path.join(self.args.work_dir, "reduce.mlir")

        def still_fails(candidate):
            with open(path, "w") as fh:
                fh.write("\n".join(candidate) + "\n")
            res = run_tool(self.args.tool, path, cfg[0], cfg[1], knobs,
                           self.args.timeout, self.args.work_dir)
            kind, evidence = classify(res)
            return kind not in ("ok", "diagnostic") and \
                signature(kind, evidence, res[1]) == sig

        chunk = max(1, len(lines) // 2)
        while chunk >= 1 and time.monotonic() < deadline:
            i = 0
            while i < len(lines) and time.monotonic() < deadline:
                candidate = lines[:i] + lines[i + chunk:]
                if candidate and still_fails(candidate):
                    lines = candidate
                else:
                    i += chunk
            chunk //= 2
        return "\n".join(lines) + "\n"

    def save(self, text, knobs, cfg, kind, evidence, sig, origin):
        digest = hashlib.sha1(text.encode()).hexdigest()[:10]
        name = f"{kind}-{cfg[0]}-{cfg[1]}-{digest}.mlir"
        header = [f"// Fuzzer failure: {kind} on --target={cfg[0]} "
                  f"--emit={cfg[1]}{' ' + ' '.join(knobs) if knobs else ''}",
                  f"// from {origin}",
                  f"// {evidence[:200]}"]
        if knobs:
            header.append(f"// fuzz-args: {' '.join(knobs)}")
        path = os.path.join(self.args.corpus, name)
        with open(path, "w") as fh:
            fh.write("\n".join(header) + "\n" + text)
        return path

    def record(self, label, text, knobs, results, origin, save):
        bad = [r for r in results if r[1] not in ("ok", "diagnostic")]
        for cfg, kind, evidence, stderr in results:
            if kind in self.counts:
                self.counts[kind] += 1
            if kind == "diagnostic" and self.args.stats:
                m = LOCATED_RE.search(stderr)
                line = stderr[m.end():].split("\n", 1)[0]
                key = re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'_'", line))[:70]
                self.diagnostics[key] = self.diagnostics.get(key, 0) + 1
        for cfg, kind, evidence, stderr in bad:
            sig = signature(kind, evidence, stderr)
            where = ""
            if save and sig not in self.seen:
                reduced = text
                if kind != "timeout" and self.args.reduce_seconds > 0:
                    reduced = self.reduce(
                        text, knobs, cfg, sig,
                        time.monotonic() + self.args.reduce_seconds)
                where = self.save(reduced, knobs, cfg, kind, evidence, sig,
                                  origin)
            elif not save:
                where = self.keep_failure(label, text)
            self.seen.add(sig)
            self.failures.append((label, cfg, kind, evidence, where))
            print(f"FAIL {label} --target={cfg[0]} --emit={cfg[1]} "
                  f"{' '.join(knobs)}: {kind}: {evidence}"
                  + (f" [{where}]" if where else ""), flush=True)

    def keep_failure(self, label, text):
        name = re.sub(r"[^\w.-]", "_", label) + ".mlir"
        path = os.path.join(self.args.work_dir, "failures", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
        return path


def read_known(path):
    known = {}
    if os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                body = line.split("#", 1)
                name = body[0].strip()
                if name:
                    known[name] = body[1].strip() if len(body) > 1 else ""
    return known


def corpus_knobs(text):
    m = re.search(r"^// fuzz-args: (.*)$", text, re.M)
    return m.group(1).split() if m else []


def replay_corpus(fz, args):
    known = read_known(args.known)
    files = sorted(f for f in os.listdir(args.corpus) if f.endswith(".mlir")) \
        if os.path.isdir(args.corpus) else []
    stale = sorted(set(known) - set(files))
    failed, known_failing, fixed_known = 0, 0, []
    for f in files:
        path = os.path.join(args.corpus, f)
        with open(path) as fh:
            text = fh.read()
        knobs = corpus_knobs(text)
        # SIMT IR for every target: the corpus is small. A known failure
        # runs only where it failed, briefly (it may be a timeout).
        cfgs = TARGETS + [(t, "simt") for t in SIMT_TARGETS]
        timeout = args.timeout
        if f in known:
            timeout = args.known_timeout
            m = re.search(r"--target=(\S+) --emit=(\S+)", text)
            cfgs = [(m.group(1), m.group(2))] if m else cfgs
        results = fz.check(path, knobs, cfgs, timeout)
        bad = [r for r in results if r[1] not in ("ok", "diagnostic")]
        if f in known:
            if bad:
                known_failing += 1
                print(f"KNOWN {f}: {bad[0][1]} on --target={bad[0][0][0]} "
                      f"--emit={bad[0][0][1]} ({known[f]})", flush=True)
            else:
                fixed_known.append(f)
                print(f"FIXED {f}: passes now; remove it from "
                      f"{os.path.basename(args.known)}", flush=True)
            continue
        if bad:
            failed += 1
            for cfg, kind, evidence, _ in bad:
                print(f"FAIL corpus/{f} --target={cfg[0]} --emit={cfg[1]} "
                      f"{' '.join(knobs)}: {kind}: {evidence}", flush=True)
    for s in stale:
        print(f"NOTE {os.path.basename(args.known)} lists {s}, which is not "
              f"in the corpus", flush=True)
    return len(files), failed, known_failing, fixed_known


def main():
    env = os.environ.get
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", required=True, help="tessel-translate")
    ap.add_argument("--source-root", required=True,
                    help="the repository (kernels_dsl/, test/lit/)")
    ap.add_argument("--work-dir", default=None)
    ap.add_argument("--corpus", default=None)
    ap.add_argument("--known", default=None)
    ap.add_argument("--seed", type=int, default=int(env("TESSEL_FUZZ_SEED", "1")))
    ap.add_argument("--seconds", type=float,
                    default=float(env("TESSEL_FUZZ_SECONDS", "45")))
    ap.add_argument("--mutants", type=int,
                    default=int(env("TESSEL_FUZZ_MUTANTS", "300")))
    ap.add_argument("--timeout", type=float,
                    default=float(env("TESSEL_FUZZ_TIMEOUT", "20")))
    ap.add_argument("--known-timeout", type=float, default=3,
                    help="timeout for corpus entries known to fail")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", type=int, default=None,
                    help="run only this mutant index")
    ap.add_argument("--print-mutant", type=int, default=None,
                    help="print this mutant's text and exit")
    ap.add_argument("--save-crashers", action="store_true",
                    help="write each new failure, reduced, to the corpus")
    ap.add_argument("--reduce-seconds", type=float, default=60)
    ap.add_argument("--skip-corpus", action="store_true")
    ap.add_argument("--stats", action="store_true",
                    help="print the most frequent diagnostics")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    args.corpus = args.corpus or os.path.join(here, "corpus")
    args.known = args.known or os.path.join(here, "known-failures.txt")
    if args.work_dir is None:
        args.work_dir = tempfile.mkdtemp(prefix="tessel-fuzz-")
    os.makedirs(args.work_dir, exist_ok=True)

    seeds = load_seeds(args.source_root)
    if not seeds:
        print("fuzz: no seed inputs under " + args.source_root)
        return 2
    if args.print_mutant is not None:
        sys.stdout.write(make_mutant(args.seed, args.print_mutant, seeds)[2])
        return 0

    print(f"fuzz: seed {args.seed} (TESSEL_FUZZ_SEED), {len(seeds)} seed "
          f"inputs, up to {args.mutants or 'unlimited'} mutants in "
          f"{args.seconds:g} s, {args.timeout:g} s per run, "
          f"{args.jobs} jobs", flush=True)
    fz = Fuzzer(args)
    start = time.monotonic()
    corpus_count, corpus_failed, known_failing, fixed = 0, 0, 0, []
    if not args.skip_corpus and args.only is None:
        corpus_count, corpus_failed, known_failing, fixed = \
            replay_corpus(fz, args)
    corpus_seconds = time.monotonic() - start

    start = time.monotonic()
    mutants = 0
    indices = [args.only] if args.only is not None else None
    index = 0
    while True:
        if indices is not None:
            if not indices:
                break
            index = indices.pop()
        elif (args.mutants and mutants >= args.mutants) or \
                time.monotonic() - start >= args.seconds:
            break
        origin, applied, text, knobs, simt = make_mutant(args.seed, index,
                                                         seeds)
        path = os.path.join(args.work_dir, f"mutant-{index}.mlir")
        with open(path, "w") as fh:
            fh.write(text)
        label = f"mutant {index} of seed {args.seed} ({origin}: " \
                f"{', '.join(applied) or 'unchanged'})"
        results = fz.check(path, knobs, configs(simt), args.timeout)
        fz.record(label, text, knobs, results,
                  f"{origin}, mutant {index} of seed {args.seed} "
                  f"({', '.join(applied)})", args.save_crashers)
        os.unlink(path)
        mutants += 1
        index += 1
    fz.pool.shutdown()

    if args.stats:
        for key, n in sorted(fz.diagnostics.items(), key=lambda kv: -kv[1])[:40]:
            print(f"  {n:5d}  {key}")
    runs = fz.counts["ok"] + fz.counts["diagnostic"] + len(fz.failures)
    mutant_failures = len(fz.failures)
    print(f"fuzz: corpus: {corpus_count} replayed in {corpus_seconds:.1f} s, "
          f"{corpus_failed} failing, {known_failing} known failures, "
          f"{len(fixed)} known now passing")
    print(f"fuzz: seed {args.seed}: {mutants} mutants, {runs} runs in "
          f"{time.monotonic() - start:.1f} s: {fz.counts['ok']} compiled, "
          f"{fz.counts['diagnostic']} located errors, {mutant_failures} "
          f"failures ({len(fz.seen)} distinct)")
    failed = corpus_failed + (1 if mutant_failures else 0)
    passed = corpus_count - corpus_failed - known_failing + \
        (0 if mutant_failures else 1)
    print(f"fuzz: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
