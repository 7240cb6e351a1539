"""Random programs of serial split-K's counter protocol (`layout.atomic_add`,
`layout.fence`: dialects/layout_atomic.py) for the fuzz tests and for
`dev/device/sanitize.sh`, built with the typed Python builder (compiler/builder.py),
never as IR text: valid ones, which must run on the CPU reference executor (its
release/acquire hand-over and race checks pass), compile through the default pipeline
with `--check-equivalence` and print CUDA that NVRTC compiles; and invalid ones, each
with one injected defect that the executor must report as a located diagnostic.

`random_split_k_kernel` draws `SplitK`: T tiles of E elements, each summed over K in S
splits; a *unit* (tile t, split s) sums its kc rows of `x` into its partial tile
`w[t, s, :]` (the workspace), the block meets at a barrier, its thread 0 makes the
release (`fence` then a relaxed arrival, or a `release` / `acq_rel` arrival), adds 1 to
tile t's counter (`atomic_add` on `ctr`, gpu scope) and makes the acquire (a `fence`
after the relaxed arrival, or an `acquire` / `acq_rel` arrival); the counter's old
value reaches the block's threads through a flag (shared memory, or a slot of `ctr`
past the counters, as `gemm_hopper_ws(serial=True)` does, put back to 0 once the
block has read it: the order of arrival is the GPU's, so that every buffer's final
value is the same on the GPU as on the executor for `--run gpu --check`), and the unit whose old
value is S - 1 (the last to arrive) sums the S partials in order s = 0 .. S-1 into
`out` and puts the counter back to 0 (an addition of -S after its sum, or by thread 0
right after its arrival: CUTLASS's and tilec's two places). Units are blocks (a grid
of T S blocks along x in tile-major or split-major order, or a T x S grid) or the trips
of P persistent blocks walking the units; partial tiles are written and read element by
element (`layout.read` / `layout.write` by 1 or 2 warps, E not a multiple of the threads:
guarded elements) or as whole tiles (`layout.load` / `layout.store` in a blocked layout
of up to 16-byte vectors, as the GEMM's fixup moves them). With `launches` = 2 the host
function runs the kernel twice on the same counters and workspace, the second into
`out1`: only a counter put back to 0 lets the second launch find its last units.

`random_invalid_split_k_kernel` injects one of `DEFECTS`: a missing release or acquire
(the fence, or the arrival's order, left out), a counter not put back (two launches:
the second never sums, its output is never written), the sum by a unit that is not
last (the first to arrive: it reads partials no release handed over), a cta-scope
counter (it orders nothing between blocks). `InvalidProgram.message` is a regular
expression the diagnostic must match.

Everything drawn comes from the `random.Random` passed in: a seed gives one program.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from generate_mbarrier import InvalidProgram, MbarrierProgram, _text, spec_summary

DTYPES = ("f32", "f64", "f16", "i32")
"""Element types of `x`, the partials and `out` (sums of several partials: order matters
for the floats, which `--check-equivalence` compares bit for bit)."""


@dataclass(frozen=True)
class SplitK:
    """The drawn shape of a `random_split_k_kernel` program (module docstring)."""

    dtype: str
    tiles: int  # T
    elements: int  # E, per tile
    splits: int  # S
    rows: int  # kc: rows of x a split sums
    warps: int
    units: str  # "tile-major" | "split-major" | "grid2d" | "persistent"
    persistent: int  # P blocks walking the units ("persistent" only)
    release: str  # "fence" | "order"
    acquire: str  # "fence" | "order"
    flag: str  # "smem" | "gmem"
    reset: str  # "after-sum" | "on-arrival"
    launches: int  # 1 | 2 (the second into out1: the counters reused)
    access: str = "element"  # "element" (layout.read / write) | "tensor" (layout.load / store of whole tiles)
    defect: str | None = None

    @property
    def unit_count(self) -> int:
        return self.tiles * self.splits

    @property
    def threads(self) -> int:
        return 32 * self.warps


def draw_split_k(rng: random.Random) -> SplitK:
    units = rng.choice(["tile-major", "split-major", "grid2d", "persistent"])
    tiles, splits = rng.randint(1, 3), rng.randint(2, 4)
    access = rng.choice(["element", "element", "tensor"])
    # distributed tensors have power-of-two extents
    elements = rng.choice([32, 64, 128, 256] if access == "tensor" else [1, 5, 32, 40, 64, 96])
    return SplitK(rng.choice(DTYPES), tiles, elements, splits, rng.randint(1, 3),
                  rng.choice([1, 1, 2]), units, rng.randint(1, min(3, tiles * splits)) if units == "persistent" else 0,
                  rng.choice(["fence", "order"]), rng.choice(["fence", "order"]), rng.choice(["smem", "gmem"]),
                  rng.choice(["after-sum", "on-arrival"]), rng.choice([1, 2]), access)


def split_k_program(s: SplitK) -> str:
    """The MLIR text of the split-K program `s` (with `s.defect` injected, if any)."""
    from tilec.compiler.builder import Program

    d = s.defect
    T, E, S, kc, U = s.tiles, s.elements, s.splits, s.rows, s.unit_count
    cols = T * E
    scope = "cta" if d == "cta-scope" else "gpu"
    p = Program("splitk")
    al = 8 if s.dtype == "f64" else 4
    x = p.view(p.pointer("x", s.dtype, align=al), f"({S * kc * cols}):(1)")
    w = p.view(p.pointer("w", s.dtype, align=al), f"({U * E}):(1)")
    outs = [p.view(p.pointer(f"out{n}", s.dtype, align=al), f"({cols}):(1)") for n in range(s.launches)]
    # counters at 0 .. T-1, then (a "gmem" flag) one flag a unit
    ctr = p.view(p.pointer("ctr", "i32", align=4), f"({T + (U if s.flag == 'gmem' else 0)}):(1)")
    grid = {"grid2d": (T, S, 1), "persistent": (s.persistent, 1, 1)}.get(s.units, (U, 1, 1))
    chunks = -(-E // s.threads)
    release_order = s.release == "order" and d != "no-release"
    acquire_order = s.acquire == "order" and d != "no-acquire"
    order = {(True, True): "acq_rel", (True, False): "release", (False, True): "acquire"}.get(
        (release_order, acquire_order), "relaxed")
    last = S - 1 if d != "not-last" else 0

    import tilec

    # "tensor": a tile of E elements a thread's vector at a time (up to 16 bytes), as the
    # GEMM's fixup loads and stores its partial tiles
    vec = max(1, min(16 // {"f64": 8, "f16": 2}.get(s.dtype, 4), E // s.threads))
    enc = tilec.BlockedLayout([vec], [32], [s.warps], [0]) if s.access == "tensor" else None

    def tile(view, index):
        """Tile `index` of E elements of a 1-D view."""
        return p.tile(view, [index], [E])

    def unit(k, flag, t, sp, u) -> None:
        """Unit (tile t, split sp) of index u: its partial, its arrival, and the last's sum."""
        if s.access == "tensor":
            acc = None
            for j in range(kc):  # row sp kc + j of x, tile t: x's tile (sp kc + j) T + t
                v = p.load(tile(x, (sp * kc + j) * T + t), enc)
                acc = v if acc is None else acc + v
            p.store(acc, tile(w, u_slot(t, sp)))
        for c in range(chunks if s.access == "element" else 0):  # E elements over the block's threads
            e = k.tid + c * s.threads

            def element() -> None:
                acc = None
                for j in range(kc):
                    v = x[(sp * kc + j) * cols + t * E + e]
                    acc = v if acc is None else acc + v
                w[u_slot(t, sp) * E + e] = acc

            if (c + 1) * s.threads > E:
                with p.if_(e < E):
                    element()
            else:
                element()
        p.barrier()  # every partial store before the release
        with p.if_(k.tid.eq(0)):
            if s.release == "fence" and d != "no-release":
                p.fence(scope)
            old = p.atomic_add(ctr, [t], 1, scope=scope, order=order)
            if s.acquire == "fence" and d != "no-acquire":
                p.fence(scope)
            if s.flag == "gmem":
                ctr[T + u] = old
            else:
                flag[0] = old
            if s.reset == "on-arrival" and d != "no-reset":
                with p.if_(old.eq(p.constant(last, "i32"))):
                    p.atomic_add(ctr, [t], -S, scope=scope)
        p.barrier()  # the old value, and the acquire, for every thread of the block
        arrived = ctr[T + u] if s.flag == "gmem" else flag[0]
        with p.if_(arrived.eq(p.constant(last, "i32"))):
            if s.access == "tensor":
                acc = None
                for q in range(S):  # in order: the same bits on every run
                    v = p.load(tile(w, u_slot(t, q)), enc)
                    acc = v if acc is None else acc + v
                p.store(acc, tile(out, t))
            for c in range(chunks if s.access == "element" else 0):
                e = k.tid + c * s.threads

                def total() -> None:
                    acc = None
                    for q in range(S):  # in order: the same bits on every run
                        v = w[u_slot(t, q) * E + e]
                        acc = v if acc is None else acc + v
                    out[t * E + e] = acc

                if (c + 1) * s.threads > E:
                    with p.if_(e < E):
                        total()
                else:
                    total()
            if s.reset == "after-sum" and d != "no-reset":
                with p.if_(k.tid.eq(0)):
                    p.atomic_add(ctr, [t], -S, scope=scope)
        if s.flag == "gmem":  # the flag (the arrival's rank: the GPU's order) back to 0 once read
            p.barrier()
            with p.if_(k.tid.eq(0)):
                ctr[T + u] = p.constant(0, "i32")

    def u_slot(t, sp):
        return t * S + sp  # the workspace's partial of (t, sp): tile-major whatever the units' order

    for out in outs:
        with p.launch(grid=grid, threads=s.threads) as k:
            flag = p.alloc("(1):(1)", "i32", "smem") if s.flag == "smem" else None
            if s.units == "persistent":
                with p.range(0, -(-U // s.persistent)) as j:
                    u = k.bx + j * s.persistent
                    with p.if_(u < U):
                        unit(k, flag, p.divui(u, p.constant(S)), p.remui(u, p.constant(S)), u)
                    p.barrier()  # the flag read before the next unit's arrival writes it
            elif s.units == "grid2d":
                unit(k, flag, k.bx, k.by, k.bx * S + k.by)
            elif s.units == "tile-major":
                unit(k, flag, p.divui(k.bx, p.constant(S)), p.remui(k.bx, p.constant(S)), k.bx)
            else:
                unit(k, flag, p.remui(k.bx, p.constant(T)), p.divui(k.bx, p.constant(T)), k.bx)
    return _text(p)


def random_split_k_kernel(rng: random.Random) -> MbarrierProgram:
    """A valid split-K counter program (module docstring), through the default pipeline."""
    s = draw_split_k(rng)
    return MbarrierProgram(split_k_program(s), "default", _summary(s), "splitk", mbarriers=False)


_RACE = r"data race on global memory: thread \d+ of block \d+( \([^)]*\))? reads %w\[\d+\], which thread \d+ of block"
DEFECTS: dict[str, str] = {
    "no-release": _RACE,
    "no-acquire": _RACE,
    "cta-scope": _RACE,
    "not-last": _RACE,
    "no-reset": r"element\(s\) of output %out1 were never written",
}
"""The defects `random_invalid_split_k_kernel` injects and what the diagnostic says."""


def defects_of(s: SplitK) -> list[str]:
    """The defects that make `s` wrong for certain: a hand-over needs two blocks (one
    persistent block hands nothing to another), a counter not put back needs a second
    launch (drawn with it)."""
    if s.units == "persistent" and s.persistent == 1:
        return ["no-reset"]
    return ["no-release", "no-acquire", "cta-scope", "not-last", "no-reset"]


def random_invalid_split_k_kernel(rng: random.Random) -> InvalidProgram:
    """A split-K program with one defect (DEFECTS) the executor reports."""
    s = draw_split_k(rng)
    defect = rng.choice(defects_of(s))
    s = replace(s, defect=defect, launches=2 if defect == "no-reset" else s.launches)
    return InvalidProgram(split_k_program(s), f"{defect}: {_summary(s)}", defect, DEFECTS[defect])


def _summary(s: SplitK) -> str:
    return spec_summary("splitk", s)
