# SPDX-License-Identifier: MIT
"""bench_goals.py - the benchmark goals (issues 6 and 21), each with its figures.

A goal is a dict: name, verdict (PASS, FAIL or n/a when the log lacks the
lines) and the figures behind it.  Hardware goals are judged for KVM or bare
metal; under an emulator (TCG, Bochs) only the absence of inversions is, and
the hardware goals are shown for information.  judge() returns both lists;
a new set of goals is one function appended to HARDWARE_GOALS or
EVERYWHERE_GOALS.  Even the judged goals decide nothing unless asked
(bench_report.py --strict): a run on a noisy or shared machine is not a
broken lock; verdict_cell() labels a verdict with which it is.
"""

from bench_log import cas_loop_limits, fallback_fraction, fmt_pct, scaling_grid

# Goals (issues 6 and 21).  Hardware: KVM or bare metal.  Emulated: TCG or Bochs.
GOAL_UNCONTENDED_MAX = 1.1  # lockref get+put <= 1.1x spinlock get+put (the v7 promise)
GOAL_VS_CAS_LOOP_MAX = 1.1  # lockref get+put <= 1.1x the load+cmpxchg loop pair, same instruction
GOAL_WIDE_UNCONTENDED_MAX = 1.15  # uncontended lockref16 get+put <= 1.15x lockref get+put
GOAL_VS_SPINLOCK_MIN = 1.3  # lockref >= 1.3x spinlock at every N >= 2
GOAL_VS_XADD_MIN = 0.25  # lockref >= 0.25x xadd at every N >= 2
GOAL_FALLBACK_MAX = 0.001  # fallbacks < 0.1% of lockref operations (refcount)
GOAL_WIDE_MIN = 0.7  # lockref16 >= 0.7x lockref (refcount throughput)
GOAL_PV_UNCONTENDED_MAX = 1.05  # spinlock-pv get+put <= 1.05x spinlock get+put, nobody waiting


# How a judged goal's verdict reads in a report or on the console: which of them decides.
INFORMATIVE = "goal, informative: decides only with --strict"
DECIDING = "decides the exit status: --strict"


def verdict_cell(verdict, strict):
    """A judged goal's verdict, labelled: a FAIL says whether it fails anything."""
    if verdict != "FAIL":
        return verdict
    return f"FAIL ({DECIDING if strict else INFORMATIVE})"


def goal(name, ok, figures):
    verdict = "n/a" if ok is None else ("PASS" if ok else "FAIL")
    return {"name": name, "verdict": verdict, "figures": figures}


def goal_uncontended(results, impl, base, bound, base_name=None):
    """Uncontended: @impl's get+put costs at most @bound times @base's (one goal row)."""
    name = f"uncontended {impl} get+put <= {bound}x {base_name or base}"
    a = results.get(("uncontended", impl, "get+put", 1))
    b = results.get(("uncontended", base, "get+put", 1))
    if not (a and b and b["ns_per_op"]):
        return goal(name, None, f"no uncontended {impl}/{base} get+put lines")
    ratio = a["ns_per_op"] / b["ns_per_op"]
    return goal(name, ratio <= bound,
                f"{a['ns_per_op']:.2f} ns vs {b['ns_per_op']:.2f} ns = {ratio:.2f}x")


def goals_refcount_vs(grid, cpus, impl, lock):
    """refcount: @impl at least the bounds times @lock's and xadd's rate at every N >= 2."""
    out = []
    mine = grid.get(impl, {})
    for base, bound in ((lock, GOAL_VS_SPINLOCK_MIN), ("xadd", GOAL_VS_XADD_MIN)):
        other = grid.get(base, {})
        pairs = [(n, mine[n]["ops_per_sec"], other[n]["ops_per_sec"]) for n in cpus
                 if n >= 2 and n in mine and n in other and other[n]["ops_per_sec"]]
        name = f"refcount: {impl} >= {bound}x {base} at every N >= 2"
        if not pairs:
            out.append(goal(name, None, "needs refcount lines at 2 or more CPUs"))
            continue
        out.append(goal(name, all(a >= bound * b for _, a, b in pairs),
                        ", ".join(f"N={n}: {a / b:.2f}x" for n, a, b in pairs)))
    return out


def goal_pv_uncontended(results):
    """The paravirtual lock costs what the plain one does while nobody sleeps (lib/spinlock_pv.c)."""
    return goal_uncontended(results, "spinlock-pv", "spinlock", GOAL_PV_UNCONTENDED_MAX,
                            "ticket lock")


def goals_hardware(results):
    out = [goal_uncontended(results, "lockref", "spinlock", GOAL_UNCONTENDED_MAX, "ticket lock")]
    limits = {insn: (impl, ns, loop) for insn, impl, ns, loop, _ in cas_loop_limits(results)}
    for insn in ("cmpxchg8b", "cmpxchgq"):
        name = f"uncontended lockref get+put <= {GOAL_VS_CAS_LOOP_MAX}x cas-loop-{insn} pair"
        if insn not in limits:
            out.append(goal(name, None, f"no uncontended lockref/cas-loop-{insn} get+put lines"))
            continue
        impl, ns, loop = limits[insn]
        out.append(goal(name, ns <= GOAL_VS_CAS_LOOP_MAX * loop,
                        f"{impl} {ns:.2f} ns vs {loop:.2f} ns = {ns / loop:.2f}x"))
    grid, cpus = scaling_grid(results, "refcount")
    lref = grid.get("lockref", {})
    out += goals_refcount_vs(grid, cpus, "lockref", "spinlock")
    fb = [(n, fallback_fraction(lref[n])) for n in sorted(lref)
          if fallback_fraction(lref[n]) is not None]
    name = f"refcount: lockref fallbacks < {100 * GOAL_FALLBACK_MAX:g}% of operations"
    out.append(goal(name, all(f < GOAL_FALLBACK_MAX for _, f in fb) if fb else None,
                    ", ".join(f"N={n}: {fmt_pct(f)}" for n, f in fb) or "no lockref lines"))
    wide = grid.get("lockref16", {})
    pairs = [(n, wide[n]["ops_per_sec"], lref[n]["ops_per_sec"]) for n in sorted(wide)
             if n in lref and lref[n]["ops_per_sec"]]
    figures = [f"N={n}: {a / b:.2f}x" for n, a, b in pairs]
    checks = [a >= GOAL_WIDE_MIN * b for _, a, b in pairs]
    out.append(goal(f"refcount: lockref16 >= {GOAL_WIDE_MIN}x the 8-byte lockref (throughput)",
                    all(checks) if checks else None, ", ".join(figures) or "no lockref16 lines"))
    out.append(goal_uncontended(results, "lockref16", "lockref", GOAL_WIDE_UNCONTENDED_MAX))
    return out


def goals_qspinlock(results):
    """The issue-6 goals again with the queued spinlock under the lockref; none without its lines."""
    lr = results.get(("uncontended", "lockref-qspinlock", "get+put", 1))
    ql = results.get(("uncontended", "qspinlock", "get+put", 1))
    grid, cpus = scaling_grid(results, "refcount")
    if not (lr or ql or grid.get("lockref-qspinlock")):
        return []
    return [goal_uncontended(results, "lockref-qspinlock", "qspinlock", GOAL_UNCONTENDED_MAX)
            ] + goals_refcount_vs(grid, cpus, "lockref-qspinlock", "qspinlock")


def goals_emulated(results):
    grid, cpus = scaling_grid(results, "refcount")
    lref, spin = grid.get("lockref", {}), grid.get("spinlock", {})
    pairs = [(n, lref[n]["ops_per_sec"], spin[n]["ops_per_sec"]) for n in cpus
             if n >= 2 and n in lref and n in spin and spin[n]["ops_per_sec"]]
    name = "refcount: no inversion, lockref >= spinlock at every N >= 2"
    if not pairs:
        return [goal(name, None, "needs refcount lines at 2 or more CPUs")]
    return [goal(name, all(a >= b for _, a, b in pairs),
                 ", ".join(f"N={n}: {a / b:.2f}x" for n, a, b in pairs))]


# Judged on hardware only (shown under an emulator), and judged everywhere: each
# a function of the results returning a list of goals.
HARDWARE_GOALS = [goals_hardware, goals_qspinlock]
EVERYWHERE_GOALS = [lambda results: [goal_pv_uncontended(results)]]  # a ratio of two locks


def judge(results, emulated):
    """(judged, shown for information): the goals that count for this log, and the rest."""
    hw = [g for f in HARDWARE_GOALS for g in f(results)]
    emu = goals_emulated(results)
    judged, info = (emu, hw) if emulated else (hw, emu)
    return judged + [g for f in EVERYWHERE_GOALS for g in f(results)], info
