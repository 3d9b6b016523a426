# lit configuration for pbc: one suite, a folder per component.
#   lit/<component>  compiler tests (pbc-opt / pbc + FileCheck)
#   e2e              real `pbc compile` + link + run, compared with libprotobuf
#   runtime          the C runtime's unit tests
import os
import shutil
import subprocess
import sys
import tempfile

import lit.formats

config.name = "pbc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".proto", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pbc_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "pbc_lit.py", "__pycache__"]
# lit starts the longest tests first by the times it keeps in the exec
# root's .lit_test_times.txt. A clean build has none yet, and lit then reads
# test/.lit_test_times.txt (checked in: seconds per test, as measured on a
# 2-core machine): without it, tests ran in name order and the suite's
# longest ones, started last, left a core idle at the end of each pass.
# Its figures only order tests; refresh it from build/test's file when
# tests change much.

config.environment["PATH"] = os.pathsep.join(
    [config.pbc_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# Features that need something installed or built (pbc_lit.py).
sys.path.insert(0, os.path.dirname(__file__))
import pbc_lit

def optional_feature(config, name, problem):
    pbc_lit.optional_feature(config, lit_config, name, problem)

bin_dir = config.pbc_tools_dir
# lit substitutes in list order: longer names that share a prefix first.
config.substitutions.extend([
    # The runtime as a library: what a program that loads schemas at run
    # time (pbc/schema.h) links besides, or instead of, a pbc archive.
    ("%pbc_runtime_lib", os.path.join(config.pbc_obj_root, "runtime", "libpbc_runtime.a")),
    # pbc/jit.h: the compiler as a shared library (its RPATH finds LLVM's).
    ("%pbc_jit_lib", os.path.join(config.pbc_obj_root, "lib", "libpbc_jit.so")),
    ("%pbc_include", os.path.join(config.pbc_src_root, "include")),
    ("%pbc_obj_root", config.pbc_obj_root),
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
    ("%base64_test_asan", os.path.join(config.pbc_obj_root, "test", "runtime", "base64_test_asan")),
    ("%base64_test", os.path.join(config.pbc_obj_root, "test", "runtime", "base64_test")),
    ("%utf8_test_asan", os.path.join(config.pbc_obj_root, "test", "runtime", "utf8_test_asan")),
    ("%utf8_test", os.path.join(config.pbc_obj_root, "test", "runtime", "utf8_test")),
    ("%format_real_test_portable", os.path.join(config.pbc_obj_root, "test", "runtime", "format_real_test_portable")),
    ("%format_real_test", os.path.join(config.pbc_obj_root, "test", "runtime", "format_real_test")),
    ("%present_test_asan", os.path.join(config.pbc_obj_root, "test", "runtime", "present_test_asan")),
    ("%present_test_portable", os.path.join(config.pbc_obj_root, "test", "runtime", "present_test_portable")),
    ("%present_test", os.path.join(config.pbc_obj_root, "test", "runtime", "present_test")),
    ("%runtime_test_asan", os.path.join(config.pbc_obj_root, "test", "runtime", "runtime_test_asan")),
    ("%runtime_test", os.path.join(config.pbc_obj_root, "test", "runtime", "runtime_test")),
])

# The protobuf conformance suite's runner, built by scripts/conformance.sh
# (scripts/test.sh always builds it).
conformance_dir = os.path.join(config.pbc_src_root, "build", "conformance")
optional_feature(config, "conformance-runner", None if os.path.exists(
    os.path.join(conformance_dir, "conformance_test_runner"))
    else "no conformance_test_runner (run scripts/conformance.sh)")
config.substitutions.extend([
    ("%conformance_runner", os.path.join(conformance_dir, "conformance_test_runner")),
    ("%conformance_protos", os.path.join(conformance_dir, "protos")),
])

# Cross targets (e2e/cross-*.test): feature qemu-ARCH when Debian's cross
# gcc links a static program for ARCH and qemu-user runs it (as
# `qemu-ARCH PROGRAM`: no binfmt_misc needed).
def probe_cross(arch):
    gcc, qemu = arch + "-linux-gnu-gcc", "qemu-" + arch
    missing = [t for t in (gcc, qemu) if not shutil.which(t)]
    if missing:
        return "not installed: " + ", ".join(missing) + " (run scripts/install-deps.sh)"
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "probe.c"), os.path.join(tmp, "probe")
        with open(src, "w") as f:
            f.write('#include <stdio.h>\nint main(void) { puts("pbc-probe"); return 0; }\n')
        try:
            subprocess.run([gcc, "-static", src, "-o", exe], check=True, capture_output=True, timeout=60)
            run = subprocess.run([qemu, exe], capture_output=True, timeout=60, text=True)
        except (subprocess.SubprocessError, OSError) as e:
            return "%s/%s cannot build or run a program: %s" % (gcc, qemu, e)
        if run.stdout.strip() != "pbc-probe":
            return "%s cannot run a %s program: %s" % (qemu, arch, run.stderr.strip())
    return None

for arch in ("aarch64", "riscv64"):
    optional_feature(config, "qemu-" + arch, probe_cross(arch))

# The sanitizer pass (scripts/test.sh):
#   lit --param pbc_sanitize=1 build/test/e2e build/test/runtime
# runs those tests again with pbc's generated code under AddressSanitizer
# (pbc compile --sanitize=address) and the test programs, difftest and the
# runtime's unit tests under ASan + UBSan, in their own exec root.
# compile_all.test only compiles and would just take time; the cross tests
# link with the target's gcc and run under qemu, without an ASan runtime.
# The random difftests, and the streaming writers' test, run every
# SAMPLE-th of their cases there (difftest.cpp, streaming_test.cpp:
# PBC_DIFFTEST_SAMPLE, the same cases as the first pass, a twelfth of them). Under ASan + UBSan each case costs several times as
# much, most of it in the sanitizer's allocator under libprotobuf's
# reference computations, while what this pass adds is what each sampled
# case does to memory in pbc's code: the first pass checks every case's
# result. (With every fourth case the pass took half of CI's time, with
# every eighth a quarter.) Their count checks read
#   {{^}}[[#div(2000,SAMPLE)]]{{ passed, 0 failed$}}
# so that both passes check the exact count they ran (floor(N/SAMPLE)).
difftest_sample = 12 if lit_config.params.get("pbc_sanitize") else 1
config.environment["PBC_DIFFTEST_SAMPLE"] = str(difftest_sample)
config.environment["FILECHECK_OPTS"] = "-D#SAMPLE=%d" % difftest_sample
if lit_config.params.get("pbc_sanitize"):
    config.available_features.add("pbc-sanitize")
    config.test_exec_root = os.path.join(config.pbc_obj_root, "test-asan")
    config.excludes.extend(["compile_all.test", "cross-aarch64.test", "cross-riscv64.test"])
    sanitize_flags = " -g -fsanitize=address,undefined -fno-sanitize-recover=all"
    obj_test = os.path.join(config.pbc_obj_root, "test")
    swap = {
        "%cc": config.cc + sanitize_flags,
        "%cxx": config.cxx + sanitize_flags,
        "%difftest": os.path.join(obj_test, "e2e", "libpbc_difftest_asan.a"),
    }
    for name in ("runtime_test", "writer_test", "utf8_test", "base64_test",
                 "format_real_test", "present_test"):
        swap["%" + name] = os.path.join(obj_test, "runtime", name + "_asan")
    config.substitutions = [(k, swap.get(k, v)) for k, v in config.substitutions]
    at = [k for k, _ in config.substitutions].index("%pbc")
    config.substitutions.insert(
        at, ("%pbc compile", os.path.join(bin_dir, "pbc") + " compile --sanitize=address"))

# A modern protoc (PyPI's grpcio-tools, in build/venv: scripts/python-deps.sh)
# and python protobuf, the reference for editions.
venv_python = os.path.join(config.pbc_src_root, "build", "venv", "bin", "python")
has_modern_protoc = os.path.exists(venv_python) and subprocess.run(
    [venv_python, "-m", "grpc_tools.protoc", "--version"],
    capture_output=True).returncode == 0
optional_feature(config, "modern-protoc", None if has_modern_protoc else
                 "no build/venv with grpcio-tools (run scripts/python-deps.sh)")
config.substitutions.append(("%modern_protoc", venv_python + " -m grpc_tools.protoc"))
config.substitutions.append(("%venv_python", venv_python))
config.substitutions.append(("%venv_bin", os.path.dirname(venv_python)))
# PATH with the venv's protoc first (lit's shell expands no $PATH).
config.substitutions.append(("%venv_path", os.path.dirname(venv_python) + os.pathsep +
                             config.environment["PATH"]))

# The benchmark binaries (bench/), built when Google Benchmark is installed:
# the bench-smoke test runs each codec once.
config.substitutions.append(("%bench_bin", bin_dir))
has_bench = os.path.exists(os.path.join(bin_dir, "pbc_bench_datasets"))
optional_feature(config, "bench", None if has_bench else
                 "no bench binaries (libbenchmark-dev; run scripts/build.sh)")
# upb is a peer (libupb-dev): its codecs are there when bench/ found it.
counter = os.path.join(bin_dir, "pbc_bench_instructions")
has_upb = os.path.exists(counter) and "upb_parse" in subprocess.run(
    [counter, "--codecs"], capture_output=True, text=True).stdout.split()
optional_feature(config, "bench-upb", None if has_upb else
                 "bench/ was built without upb (libupb-dev)")
