import os
import lit.formats

config.name = "Tessel"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tessel_obj_root, "test", "lit")

config.environment["PATH"] = os.pathsep.join(
    [config.tessel_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
config.substitutions.append(("%kernels", os.path.join(config.tessel_src_root, "kernels_dsl")))

# ptxas (CUDA) for the tests that check what it reports about Tessel's PTX
# and that it accepts it; they say `REQUIRES: ptxas` or use `%if ptxas`.
import shutil
_ptxas = shutil.which("ptxas") or next(
    (p for p in ["/usr/local/cuda/bin/ptxas"] if os.path.exists(p)), None)
if _ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))
