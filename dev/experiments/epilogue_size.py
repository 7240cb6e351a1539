"""The GEMM kernel's code size, no GPU needed (issue 39: the staggered bias + `silu` epilogue's
instruction fetch, benchmarks/NOTES.md epi49/epi50): for each named configuration with an
epilogue, NVRTC's cubin for sm_90a and from it the SASS instructions (the kernel's `.text`
section over 16 bytes an instruction), registers, spills, PTX lines and the CUDA's characters.

    python3 dev/experiments/epilogue_size.py [--shape 8192x28672x4096] [--act silu] CONFIG ...

CONFIG: a `matmul_bench.parse_config` name, or `rule` (`choose_config`'s, with the activation).
An experiment: nothing of the product changes."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))


def text_bytes(cubin: bytes) -> dict[str, int]:
    """The sizes of a cubin's `.text.<kernel>` sections (ELF64, little-endian), by kernel."""
    import struct

    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]
    names_at = heads[shstrndx][4]
    out = {}
    for h in heads:
        end = cubin.index(b"\0", names_at + h[0])
        name = cubin[names_at + h[0]:end].decode()
        if name.startswith(".text."):
            out[name[6:]] = h[5]
    return out


def measure(m: int, n: int, k: int, name: str, act: str | None, bias: bool) -> dict:
    """The kernel of configuration `name` with bias + `act` at M x N x K, compiled: its sizes."""
    from matmul_bench import parse_config

    from tilec.compiler.pipeline import run_pipeline
    from tilec.gemm import MatmulKey, choose_config, index_bits, matmul_program
    from tilec.gemm_programs import Epilogue
    from tilec.runtime.launch import Kernel
    from tilec.runtime.nvrtc import compile_cuda

    config = choose_config(m, n, 132, k=k, activation=act) if name == "rule" else parse_config(name)
    key = MatmulKey(config, n, k, "bf16", Epilogue(bias=bias, activation=act), 132, False,
                    index_bits(m, n, k, config))
    module = matmul_program(key)
    run_pipeline(module, "default")
    kernel = Kernel(module)
    result = compile_cuda(kernel.source, arch="sm_90a", options=kernel.options)
    text = sum(text_bytes(result.cubin).values())
    regs = ",".join(re.findall(r"Used (\d+) registers", result.log))
    return {"config": config.name, "sass": text // 16, "regs": regs,
            "spill": ",".join(re.findall(r"(\d+) bytes spill stores", result.log)),
            "ptx": result.ptx.count("\n"), "cuda": len(kernel.source), "source": kernel.source}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("configs", nargs="+")
    ap.add_argument("--shape", default="8192x28672x4096")
    ap.add_argument("--act", default="silu", help="the activation ('none': plain, no bias)")
    ap.add_argument("--save", help="a folder for each kernel's CUDA")
    a = ap.parse_args(argv)
    m, n, k = (int(x) for x in a.shape.split("x"))
    act = None if a.act == "none" else a.act
    for name in a.configs:
        r = measure(m, n, k, name, act, act is not None)
        if a.save:
            Path(a.save).mkdir(parents=True, exist_ok=True)
            (Path(a.save) / f"{name.replace(':', '_')}.cu").write_text(r["source"])
        print(f"{name:34s} {r['config']:36s} SASS {r['sass']:6d}  regs {r['regs']:4s} spill {r['spill'] or '-':3s} "
              f"PTX {r['ptx']:6d}  CUDA {r['cuda']:7d}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
