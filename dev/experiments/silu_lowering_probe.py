"""Which lowering of SiLU's `ex2.approx` + `div.approx` costs least in the GEMM's epilogue
(issue 39: bias + SiLU + cast <= 3% over the plain GEMM, with a relative error bound). An
experiment: the rule's `128x256x64:4:c128` at 8192 x 28672 x 4096 with bias + SiLU written
as it was before (y / (1 + 2^(-y log2 e)): one `ex2.approx` and one `div.approx` an element,
`old`), its CUDA rewritten after the printer, each variant timed beside the plain GEMM,
`silu` (as the tree computes it) and `silu_tanh` in turns (`matmul_bench.compare`) and
checked against float64 within docs/matmul.md's bound. Variants (as activation names):

- `old`: as written before, not rewritten: 2 MUFU an element.
- `dup`: `old` again (another kernel of the same code: the noise of the comparison).
- `oldpad`: `old` with the numerator multiplied by 1.0000001 and 0.9999999 (two more FMUL
  an element, the MUFU work unchanged): whether issue slots or MUFU set the cost.

- `p2`: the exponent clamped at 62, one `rcp.approx` for each pair of elements
  (r = 1 / (d1 d2), q1 = y1 d2 r, q2 = y2 d1 r): 1.5 MUFU an element.
- `p4`: clamped at 31, one `rcp.approx` for four elements: 1.25 MUFU an element.
- `p4m`: `p4` with the first element of each four's exp2 on the FMA pipe (a degree-4
  polynomial after Cody-Waite reduction, the exponent by an integer add): 1 MUFU an
  element.
- `a4`: relative everywhere, no clamp: e = 2^(-|y| log2 e) (in (0, 1]), silu = max(y, y e) /
  (1 + e), one `rcp.approx` for four elements (the divisors in (1, 2]): 1.25 MUFU an element.
- `a2s`: `a4` with the exponent floored at -150 by `fmaxf` (as the tree's `silu`, whose
  four share a reciprocal) and pairs sharing one: 1.5 MUFU an element.
- `gelufast`: bias + GELU (erf form) with CUDA's `erff` replaced by erf(x) = sign(x)
  (1 - 2^(P(t) - t^2 log2 e)), t = min(|x|, 4.2), P a degree-11 fit of log2(erfcx(t))
  (absolute error 2^-21.6 with ex2.approx's): 16 instructions and one `MUFU.EX2` where `erff` takes ~23.
- `nr`: `ex2.approx` on MUFU, the reciprocal on the FMA pipe (an integer guess and three
  Newton steps): 1 MUFU an element.

    TILEC_CACHE=0 python3 dev/experiments/silu_lowering_probe.py [--only p2,p4] [--repeat 3]

Nothing of the product changes."""

import argparse
import copy
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import matmul_bench  # noqa: E402

from tilec import gemm, gemm_programs  # noqa: E402

PROBES = ("old", "dup", "oldpad", "p2", "p4", "a4", "a2s", "p4m", "nr", "gelufast")

HELPERS = r"""
__device__ __forceinline__ float probe_rcp(float x) {
  float r; asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r;
}
__device__ __forceinline__ float probe_exp2_poly(float x) {
  x = fmaxf(x, -125.0f);
  const float t = x + 12582912.0f;
  const float j = t - 12582912.0f;
  const float f = x - j;
  const float p = fmaf(fmaf(fmaf(fmaf(9.5700966e-3f, f, 5.5917867e-2f), f, 2.4024744e-1f), f,
                            6.9312179e-1f), f, 9.9999928e-1f);
  return __int_as_float(__float_as_int(p) + (__float_as_int(t) << 23));
}
__device__ __forceinline__ float probe_erf(float x) {
  const float t = fminf(fabsf(x), 4.2f);
  float p = 9.605962958403325e-08f;
  p = fmaf(p, t, -2.6132370294362772e-06f);
  p = fmaf(p, t, 3.1500578188570216e-05f);
  p = fmaf(p, t, -0.00021946612105239183f);
  p = fmaf(p, t, 0.0009465073235332966f);
  p = fmaf(p, t, -0.00228619365952909f);
  p = fmaf(p, t, -7.9425546573475e-05f);
  p = fmaf(p, t, 0.027953799813985825f);
  p = fmaf(p, t, -0.14844341576099396f);
  p = fmaf(p, t, 0.5242883563041687f);
  p = fmaf(p, t, -1.627910852432251f);
  p = fmaf(p, t, 5.8072188835467387e-08f);
  float e; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(fmaf(t * t, -1.442695041f, p)));
  return copysignf(1.0f - e, x);
}
__device__ __forceinline__ float probe_rcp_newton(float d) {
  float r = __int_as_float(0x7EF311C3 - __float_as_int(d));
  float e = fmaf(-d, r, 1.0f); r = fmaf(r, e, r);
  e = fmaf(-d, r, 1.0f); r = fmaf(r, e, r);
  e = fmaf(-d, r, 1.0f); r = fmaf(r, e, r);
  return r;
}
"""

EX2 = re.compile(r"^(\s*)const float (\w+) = tilec_ex2_approx_ftz\((\w+)\);$")
MUL = re.compile(r"^(\s*)const float (\w+) = (\w+) \* \(-1\.442695f\);$")
ADD = re.compile(r"^(\s*)const float (\w+) = (\w+) \+ 1\.0f;$")
DIV = re.compile(r"^(\s*)const float (\w+) = tilec_div_approx_ftz\((\w+), (\w+)\);$")


def rewrite(src: str, probe: str) -> str:
    if probe in ("old", "dup"):
        return src
    if probe == "gelufast":
        text = src.replace("erff(", "probe_erf(")
        at = text.index("__global__")
        at = text.rindex("\n", 0, text.rindex("extern", 0, at) if "extern" in text[:at] else at)
        return text[:at] + HELPERS + text[at:]
    if probe == "oldpad":
        return re.sub(r"tilec_div_approx_ftz\((\w+), ", r"tilec_div_approx_ftz((\1 * 1.0000001f) * 0.9999999f, ", src)
    lines = src.split("\n")
    out = []
    clamp = {"p2": "62.0f", "p4": "31.0f", "a4": None, "a2s": None, "p4m": "31.0f", "nr": "126.0f"}[probe]
    group = {"p2": 2, "p4": 4, "a4": 4, "a2s": 2, "p4m": 4, "nr": 1}[probe]
    absform = probe in ("a4", "a2s")
    exp_of = {}  # a divisor's name -> its exp2's
    ex2_seen = 0
    pending: list = []
    uid = [0]

    def flush():
        if not pending:
            return
        ind = pending[0][0]
        q = [p[1] for p in pending]
        y = [p[2] for p in pending]
        d = [p[3] for p in pending]
        u = uid[0]
        uid[0] += 1
        if group == 1:
            out.append(f"{ind}const float {q[0]} = {y[0]} * probe_rcp_newton({d[0]});")
        elif len(pending) == 2 and group == 2:
            out.append(f"{ind}const float pr{u} = probe_rcp({d[0]} * {d[1]});")
            out.append(f"{ind}const float {q[0]} = ({y[0]} * {d[1]}) * pr{u};")
            out.append(f"{ind}const float {q[1]} = ({y[1]} * {d[0]}) * pr{u};")
        elif len(pending) == 4:
            out.append(f"{ind}const float pa{u} = {d[0]} * {d[1]}; const float pb{u} = {d[2]} * {d[3]};")
            out.append(f"{ind}const float pr{u} = probe_rcp(pa{u} * pb{u});")
            out.append(f"{ind}const float ra{u} = pr{u} * pb{u}; const float rb{u} = pr{u} * pa{u};")
            out.append(f"{ind}const float {q[0]} = ({y[0]} * {d[1]}) * ra{u};")
            out.append(f"{ind}const float {q[1]} = ({y[1]} * {d[0]}) * ra{u};")
            out.append(f"{ind}const float {q[2]} = ({y[2]} * {d[3]}) * rb{u};")
            out.append(f"{ind}const float {q[3]} = ({y[3]} * {d[2]}) * rb{u};")
        else:
            raise SystemExit(f"probe {probe}: a group of {len(pending)} divisions")
        pending.clear()

    for line in lines:
        if absform and (m := MUL.match(line)):
            ind, r, x = m.groups()
            t = f"fabsf({x}) * (-1.442695f)"
            out.append(f"{ind}const float {r} = {f'fmaxf({t}, -150.0f)' if probe == 'a2s' else t};")
            continue
        if absform and (m := ADD.match(line)):
            exp_of[m.group(2)] = m.group(3)
            out.append(line)
            continue
        if absform and (m := EX2.match(line)):
            out.append(line)
            continue
        if m := EX2.match(line):
            ind, r, x = m.groups()
            if probe == "p4m" and ex2_seen % 4 == 0:
                out.append(f"{ind}const float {r} = probe_exp2_poly(fminf({x}, {clamp}));")
            else:
                out.append(f"{ind}const float {r} = tilec_ex2_approx_ftz(fminf({x}, {clamp}));")
            ex2_seen += 1
            continue
        if m := DIV.match(line):
            ind, q, y, d = m.groups()
            if absform:
                out.append(f"{ind}const float n_{q} = fmaxf({y}, {y} * {exp_of[d]});")
                y = f"n_{q}"
            pending.append((ind, q, y, d))
            if len(pending) == group:
                flush()
            continue
        flush()
        out.append(line)
    flush()
    text = "\n".join(out)
    at = text.index("__global__")
    at = text.rindex("\n", 0, text.rindex("extern", 0, at) if "extern" in text[:at] else at)
    return text[:at] + HELPERS + text[at:]


def install() -> None:
    """The probes as activation names of `tilec.matmul` (each compiled from `old`'s CUDA
    rewritten) and checked by `matmul_bench.within_bound` as `silu` (`gelufast` as `gelu`):
    dev/experiments/epilogue_ncu.py profiles them in Nsight Compute."""
    gemm_programs.ACTIVATIONS = gemm.ACTIVATIONS = (*gemm_programs.ACTIVATIONS, *PROBES)
    matmul_bench_within = matmul_bench.within_bound

    def within_bound(got, a, b, bias=None, act=None):
        act = "gelu" if act == "gelufast" else act
        if act not in ("gelu", "relu"):
            return matmul_bench_within(got, a, b, bias, "silu" if act in PROBES else act)
        import torch

        from tilec.dialects.layout_mma import mma_error_bound

        a64, b64 = a.double(), b.double()
        z, mag = a64 @ b64 + bias.double()[None, :], a64.abs() @ b64.abs()
        y = 0.5 * z * (1 + torch.erf(z / 2**0.5)) if act == "gelu" else z.clamp(min=0)
        d0 = mma_error_bound(a.shape[1], "bf16")[0] * mag + 2.0**-22 * (mag + bias.double().abs()[None, :])
        d = 1.13 * d0 + 2.0**-20 * (y.abs() + 1.0)
        return bool(((got.double() - y).abs() <= d + 2.0**-8 * (y.abs() + d)).all())

    matmul_bench.within_bound = within_bound
    original = gemm.matmul_kernel
    new_apply = gemm_programs.Epilogue.apply

    def old_apply(self, g, acc, bx, by, rows, cols, layout=None, vectors=None):
        """Bias + SiLU as `Epilogue.apply` wrote it before: y / (1 + 2^(-y log2 e))."""
        if self.activation not in PROBES:
            return new_apply(self, g, acc, bx, by, rows, cols, layout, vectors)
        p = g.p
        y = acc.named("acc")
        v = self.vectors(g, bx, by, rows, cols, layout) if vectors is None else vectors
        col = v["bias"].cast("f32").named("biasf")
        y = (y + p.broadcast(p.expand_dims(col, 0).named("biasrow"), [rows, cols])).named("biased")
        e = p.math("exp2", (y * -gemm_programs.LOG2_E).named("ylog2e"), fastmath="afn").named("expneg")
        y = p.div(y, (e + 1.0).named("denom"), fastmath="afn").named("silu")
        return y.cast(self.out_dtype).named("h")

    def matmul_kernel(key):
        if key.epilogue.activation not in PROBES:
            return original(key)
        import dataclasses

        if key.epilogue.activation == "gelufast":
            silu = original(dataclasses.replace(key, epilogue=dataclasses.replace(key.epilogue, activation="gelu")))
        else:
            gemm_programs.Epilogue.apply = old_apply
            try:
                silu = original(dataclasses.replace(key, epilogue=dataclasses.replace(key.epilogue, activation="old")))
            finally:
                gemm_programs.Epilogue.apply = new_apply
        if key.epilogue.activation == "old":
            return silu
        k = copy.copy(silu)
        k.source = rewrite(silu.source, key.epilogue.activation)
        k._compiled, k._modules, k._functions, k._packed = {}, {}, {}, {}
        gemm._kernels[key] = k
        return k

    gemm.matmul_kernel = matmul_kernel


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=",".join(PROBES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--extra", default="gelu", help="other activations timed beside them (default: gelu)")
    ap.add_argument("--dump", help="write the rewritten CUDA of --only's first probe here and stop (no GPU)")
    args = ap.parse_args()
    probes = args.only.split(",")
    install()
    if args.dump:
        key = gemm.MatmulKey(gemm.CONFIGS[0], 28672, 4096, "bf16",
                             gemm_programs.Epilogue(bias=True, activation=probes[0]), 132, index_bits=32)
        Path(args.dump).write_text(gemm.matmul_kernel(key).source)
        return 0
    import torch

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows = matmul_bench.compare([(8192, 28672, 4096)], [], ["silu", "silu_tanh", *probes, *filter(None, args.extra.split(","))],
                                sms, args.repeat)
    for r in rows:
        print(f"{r['epilogue']:>16} {100 * r['overhead']:+.2f}% / {100 * r['overhead_queued']:+.2f}% "
              f"plain {r['plain_ms']:.3f} ms ok={r['ok']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
