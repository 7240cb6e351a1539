"""The Python examples (examples/python/*.py) run as scripts and say they succeeded.

Each runs in a subprocess from the repository root, as a user would run it. Without a
GPU the launch examples fall back to the CPU reference executor (and say so); with
CUDA_VISIBLE_DEVICES="" they take that path on a GPU machine too, so it is always
tested. The GPU path is tested where a GPU is found (`gpu` mark)."""

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples" / "python"
HAS_TORCH = importlib.util.find_spec("torch") is not None


def run_example(name: str, hide_gpu: bool = False, args: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if hide_gpu:
        env["CUDA_VISIBLE_DEVICES"] = ""
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, f"{name} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_every_example_has_a_docstring_and_a_test():
    scripts = sorted(p.name for p in EXAMPLES.glob("*.py"))
    assert scripts == ["attention.py", "build_copy.py", "build_kernel.py", "copy_tensors.py", "gemm_bf16.py", "gemm_bf16_hopper.py", "gemm_dot.py",
                       "gemm_plain.py", "host_tensor.py", "jit_copy.py", "jit_gemm.py", "jit_softmax.py", "launch_cupy.py",
                       "launch_torch.py", "row_kernels.py"], (
        "a new example needs a test here"
    )
    for name in scripts:
        doc = ast.get_docstring(ast.parse((EXAMPLES / name).read_text()))
        assert doc and f"python examples/python/{name}" in doc, f"{name}: docstring says how to run it"


def test_attention_emits_its_program_with_the_sizes_as_arguments():
    """`attention.py --emit`: the flash-attention program (compiler/attention.py) as MLIR,
    the sizes in `tilec.args`, which `tilec` reads back and runs through the default
    pipeline to CUDA (the executor runs of the program: tests/unit/test_attention.py)."""
    out = run_example("attention.py", hide_gpu=True, args=("--emit", "64", "causal", "1", "2", "1", "150", "150")).stdout
    assert "func.func @attention_fwd(%q: !layout.ptr<bf16, align 16>" in out
    assert "tilec.args" in out and "Sq = 150 : index" in out
    from tilec.compiler.pipeline import emit, parse_module, run_pipeline

    module = parse_module(out, "attention.mlir")
    run_pipeline(module, "default")
    assert "wgmma.mma_async" in emit(module, "cuda")


def test_build_copy_prints_the_program_and_its_cuda():
    out = run_example("build_copy.py").stdout
    assert "func.func @every_other_row(%src: !layout.ptr<f32, align 16>" in out
    assert "#layout.cute<(256,256):(512,1)>" in out  # the strided source view
    cuda = out.split("// The CUDA C++ the default pipeline makes of it:", 1)[1]
    assert 'extern "C" __global__' in cuda and "every_other_row_kernel(" in cuda
    assert "reinterpret_cast<const f32x4*>(src" in cuda  # vectorized 16-byte loads
    assert "layout." not in cuda


def test_gemm_dot_runs_on_the_reference_executor_for_sm_80():
    """The plain-loop GEMM, lowered to mma.sync for sm_80: NVRTC compiles it, the CPU
    reference executor runs it, C within the f32-accumulation bound (the wgmma and FMA
    lowerings: tests/unit/test_accelerate_matmul.py)."""
    out = run_example("gemm_dot.py", hide_gpu=True, args=("--target", "sm_80")).stdout
    assert "of sm_80 cubin with NVRTC" in out
    assert "bf16, target sm_80, on the CPU reference executor: within the f32-accumulation bound" in out


def test_row_kernels_run_on_the_reference_executor():
    out = run_example("row_kernels.py", hide_gpu=True).stdout
    for name in ("softmax", "layer_norm", "rms_norm", "cumsum"):
        assert f"{name} 3x1000: [" in out


def test_host_tensor_prints_the_guides_tensors_and_succeeds():
    out = run_example("host_tensor.py", hide_gpu=True).stdout
    assert out.startswith("ptr[32b] o (4,8):(1,8):\n")  # CuTe's print_tensor of local_tile(A, (4,8), (0,0))
    assert "ptr[32b] o (2,1):(128,16) vec (1,4):(16,1):" in out  # Mojo's lane-5 fragment
    assert out.rstrip().endswith("Success")


def test_build_kernel_prints_the_kernel_and_runs_it():
    out = run_example("build_kernel.py", hide_gpu=True).stdout
    assert "layout.read %" in out and "layout.write %" in out
    assert "initialize_tensor_kernel(" in out
    assert "on the CPU reference executor: Success" in out


@pytest.mark.gpu
def test_build_kernel_on_the_gpu():
    assert "on the GPU: Success" in run_example("build_kernel.py").stdout


def test_jit_copy_compiles_once_for_two_sizes():
    out = run_example("jit_copy.py", hide_gpu=True).stdout
    assert "n = 1000 on the CPU reference executor (NumPy arrays): Success" in out
    assert "n = 5000 on the CPU reference executor (NumPy arrays): Success" in out
    assert "specialisations used: 1 (" in out and "layout.ptr_load" in out


def test_jit_softmax_runs_masked_rows_of_two_shapes():
    out = run_example("jit_softmax.py", hide_gpu=True).stdout
    assert "softmax of 6x1000 on the CPU reference executor: Success" in out
    assert "softmax of 11x700 on the CPU reference executor: Success" in out
    assert "specialisations used: 1 (" in out


def test_jit_gemm_is_exact_on_the_reference_executor():
    out = run_example("jit_gemm.py", hide_gpu=True).stdout
    assert "C = A @ B, 100x90 @ 90x72 f16 -> f32, on the CPU reference executor: Success" in out


@pytest.mark.gpu
def test_jit_examples_on_the_gpu():
    assert "n = 5000 on the GPU (CuPy arrays): Success" in run_example("jit_copy.py").stdout
    assert "softmax of 11x700 on the GPU: Success" in run_example("jit_softmax.py").stdout
    assert "f16 -> f32, on the GPU: Success" in run_example("jit_gemm.py").stdout


def test_launch_cupy_without_gpu_uses_the_reference_executor():
    out = run_example("launch_cupy.py", hide_gpu=True).stdout
    assert "no GPU found: compiled" in out and "sm_90 cubin with NVRTC" in out
    assert "on the CPU reference executor: identical to NumPy's x.T" in out
    assert "FAILED" not in out


@pytest.mark.torch
@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
def test_launch_torch_without_gpu_uses_the_reference_executor():
    out = run_example("launch_torch.py", hide_gpu=True).stdout
    assert "no GPU found: compiled" in out
    assert "on the CPU reference executor (torch CPU tensors): identical to NumPy's x.T" in out


@pytest.mark.skipif(HAS_TORCH, reason="PyTorch is installed")
def test_launch_torch_without_torch_says_it_skipped():
    out = run_example("launch_torch.py").stdout
    assert out.strip() == "skipped: PyTorch is not installed (pip install torch to run this example)"


def test_copy_tensors_without_gpu_uses_the_reference_executor():
    out = run_example("copy_tensors.py", hide_gpu=True).stdout
    assert "no GPU found: ran the compiled kernels on the CPU reference executor" in out
    assert "float32->float16 strided copy: identical to NumPy" in out
    assert "kernels compiled: 2" in out


@pytest.mark.gpu
def test_copy_tensors_on_the_gpu():
    out = run_example("copy_tensors.py").stdout
    assert "CuPy: contiguous of a reversed, strided view: identical to CuPy" in out
    assert "no GPU found" not in out
    if HAS_TORCH:
        assert "identical to PyTorch" in out


def test_gemm_without_gpu_runs_the_example_shape_on_the_reference_executor():
    out = run_example("gemm_bf16.py", hide_gpu=True).stdout
    assert "sm_90 cubin with NVRTC; running 256x256x256 on the CPU reference executor" in out
    assert "on the CPU reference executor: within the documented tolerance" in out


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
def test_gemm_on_the_gpu():
    out = run_example("gemm_bf16.py").stdout
    assert "C = A @ B, 1024x1024 @ 1024x1024 bf16, on the GPU (torch tensors): within the documented tolerance" in out


def test_hopper_gemm_without_gpu_runs_the_example_shape_on_the_reference_executor():
    out = run_example("gemm_bf16_hopper.py", hide_gpu=True).stdout
    assert "sm_90a cubin with NVRTC; running 256x256x256 on the CPU reference executor" in out
    assert "on the CPU reference executor: within the documented tolerance" in out


@pytest.mark.parametrize("form", [[], ["--ws"], ["--rolled"], ["--ws", "--rolled"]])
def test_plain_loop_gemm_without_gpu_runs_the_example_shape_on_the_reference_executor(form):
    """examples/python/gemm_plain.py: the plain loop pipelined by software-pipeline (or
    warp-specialize, or software-pipeline's rolled form; 3 stages here) compiles with
    NVRTC and its lowered program runs on the executor."""
    out = run_example("gemm_plain.py", hide_gpu=True, args=("--stages", "3", *form)).stdout
    assert "sm_90a cubin with NVRTC; running 256x256x256 on the CPU reference executor" in out
    assert "C = A @ B, 256x256 @ 256x256 bf16, on the CPU reference executor: within the documented tolerance" in out


def test_hopper_ws_gemm_without_gpu_runs_the_example_shape_on_the_reference_executor():
    out = run_example("gemm_bf16_hopper.py", hide_gpu=True, args=("--ws",)).stdout
    assert "sm_90a cubin with NVRTC; running 256x256x512 on the CPU reference executor" in out
    assert "C = A @ B, 256x512 @ 512x256 bf16, on the CPU reference executor: within the documented tolerance" in out


@pytest.mark.gpu
def test_launch_cupy_on_the_gpu():
    out = run_example("launch_cupy.py").stdout
    assert "on the GPU: identical to NumPy's x.T" in out
    assert "no GPU found" not in out


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
def test_launch_torch_on_the_gpu():
    out = run_example("launch_torch.py").stdout
    assert "on the GPU (torch tensors): identical to NumPy's x.T" in out


FAKE_TORCH = '''
"""A stand-in for the few torch calls launch_torch.py makes on the CPU path: CPU
tensors backed by NumPy arrays (enough to run the script where PyTorch is absent)."""
import numpy as np

float32 = np.float32


class Tensor:
    def __init__(self, array):
        self._array = array

    def numpy(self):
        return self._array

    def __array__(self, dtype=None, copy=None):
        return self._array if dtype is None else self._array.astype(dtype)


def from_numpy(array):
    return Tensor(array)


def full(shape, value, dtype=None, device="cpu"):
    assert device == "cpu"
    return Tensor(np.full(shape, value, dtype=dtype))


class cuda:
    @staticmethod
    def is_available():
        return False
'''


@pytest.mark.skipif(HAS_TORCH, reason="PyTorch is installed: the real test above runs")
def test_launch_torch_cpu_path_with_a_stand_in_torch(tmp_path):
    """Without PyTorch, the script's CPU path still runs, on a NumPy-backed stand-in."""
    (tmp_path / "torch.py").write_text(FAKE_TORCH)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
               CUDA_VISIBLE_DEVICES="")
    proc = subprocess.run([sys.executable, str(EXAMPLES / "launch_torch.py")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "on the CPU reference executor (torch CPU tensors): identical to NumPy's x.T" in proc.stdout


def test_the_kernels_of_docs_python_kernels_are_the_tested_examples():
    """Every `@tilec.jit` kernel docs/python-kernels.md shows is, verbatim, in one of the
    jit examples these tests run (so the page cannot drift from working code)."""
    import re

    page = (ROOT / "docs" / "python-kernels.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", page, re.S) if b.startswith("@tilec.jit")]
    assert len(blocks) == 3
    sources = "".join((EXAMPLES / n).read_text() for n in ("jit_copy.py", "jit_softmax.py", "jit_gemm.py"))
    for block in blocks:
        assert block in sources, f"not in an example:\n{block}"
