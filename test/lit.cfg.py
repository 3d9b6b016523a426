# lit configuration for pbc: one suite, a folder per component.
#   lit/<component>  compiler tests (pbc-opt / pbc + FileCheck)
#   e2e              real `pbc compile` + link + run, compared with libprotobuf
#   runtime          the C runtime's unit tests
import os
import lit.formats

config.name = "pbc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".proto", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pbc_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]

config.environment["PATH"] = os.pathsep.join(
    [config.pbc_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

bin_dir = config.pbc_tools_dir
# lit substitutes in list order: longer names that share a prefix first.
config.substitutions.extend([
    ("%pbc_include", os.path.join(config.pbc_src_root, "include")),
    ("%pbc-opt", os.path.join(bin_dir, "pbc-opt")),
    ("%pbc", os.path.join(bin_dir, "pbc")),
    ("%cc", config.cc),
    ("%cxx", config.cxx),
    ("%src_root", config.pbc_src_root),
    ("%data", os.path.join(config.pbc_src_root, "bench", "data")),
    ("%difftest", os.path.join(config.pbc_obj_root, "test", "e2e", "libpbc_difftest.a")),
    ("%protobuf_libs", config.protobuf_libs),
    ("%protobuf_include", config.protobuf_include),
    ("%writer_test_asan", os.path.join(config.pbc_obj_root, "test", "runtime", "writer_test_asan")),
    ("%writer_test", os.path.join(config.pbc_obj_root, "test", "runtime", "writer_test")),
    ("%runtime_test_asan", os.path.join(config.pbc_obj_root, "test", "runtime", "runtime_test_asan")),
    ("%runtime_test", os.path.join(config.pbc_obj_root, "test", "runtime", "runtime_test")),
])

# The protobuf conformance suite's runner, built by scripts/conformance.sh
# (scripts/test.sh always builds it).
conformance_dir = os.path.join(config.pbc_src_root, "build", "conformance")
if os.path.exists(os.path.join(conformance_dir, "conformance_test_runner")):
    config.available_features.add("conformance-runner")
config.substitutions.extend([
    ("%conformance_runner", os.path.join(conformance_dir, "conformance_test_runner")),
    ("%conformance_protos", os.path.join(conformance_dir, "protos")),
])
