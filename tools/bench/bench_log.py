# SPDX-License-Identifier: MIT
"""bench_log.py - a benchmark log's records, and the words the report and goals share.

The `# ENV` and `# BENCH` lines of a serial log (`make bench`) or of the
native program's output (`make bench-native`), read through kernel_log.py,
as results keyed (bench, impl, op, cpus); the orders tables follow; the
look-ups both bench_goals.py and bench_sections.py make (a scaling grid,
the lockref on each instruction, whether a run was emulated); and how a
figure is written.  Python 3 standard library only.
"""

import os
import pathlib
import platform
import re

import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "log"))  # kernel_log
import kernel_log

# The implementations in the order docs/interface.md lists them; others follow, sorted.
IMPL_ORDER = ["xadd", "cas-loop-cmpxchg8b", "cas-loop-cmpxchgq", "ticket-inline",
              "qspinlock-inline", "spinlock", "spinlock-pv",
              "lockref", "lockref-pv", "lockref-v7", "lockref-locked", "lockref16", "lockref-cmpxchgq",
              "lockref-cmpxchg8b", "qspinlock", "lockref-qspinlock", "qspinlock-pv"]


def spin_kinds():
    """The lock kinds (spinlock.kind=) of lib/spinlock_kinds.h's SPIN_KIND_LIST, the one list, in order."""
    text = (pathlib.Path(__file__).resolve().parents[2] / "lib" / "spinlock_kinds.h").read_text()
    return re.findall(r"^\s*X\(arg, (\w+), \w+,", text, re.M)


# Each lock kind's lock impl and lockref impl: the default kind's are the plain names, every
# other kind's are named after it (bench_ref.h).
LOCK_KINDS = [(k, k, f"lockref-{k}") if i else (k, "spinlock", "lockref")
              for i, k in enumerate(spin_kinds())]
INSN_ORDER = ["xadd", "cmpxchg8b", "cmpxchgq", "cmpxchg16b"]
OP_ORDER = ["insn", "get", "put", "get+put"]
BENCH_ORDER = ["uncontended", "refcount", "convoy", "retry-table", "pathwalk"]
SCALING_BENCHES = ["refcount", "convoy", "pathwalk"]
REQUIRED = ["bench", "impl", "cpus", "trials", "ops_per_sec"]
EMULATORS = {"tcg", "bochs"}

# One uncontended LOCK XADD takes about 5 to 25 ns on hardware; far more means the
# guest is not running natively (emulation, or nested virtualization that emulates).
NATIVE_XADD_MAX_NS = 200

# A log the report cannot use; the message says where and why.
InputError = kernel_log.LogError


def parse_log(path):
    """Return (env, result, results, notes) from the serial log at @path.

    results maps (bench, impl, op, cpus) to the BENCH record; a repeated key
    keeps the last one and adds a note, as does each line the reader found
    damaged.  A log without the lines the report needs raises InputError.
    """
    lines, problems = kernel_log.read(path)
    notes = kernel_log.warnings(path, problems)
    env, results = None, {}
    for number, kind, record in kernel_log.records(lines, path, {"BENCH": REQUIRED}):
        if kind == "ENV":
            env = record
            continue
        if kind != "BENCH":
            continue  # a race-detecting kernel's # KCSAN summary
        key = (record["bench"], record["impl"], record.get("op", "get+put"), record["cpus"])
        if key in results:
            notes.append(f"{'/'.join(map(str, key))} appears more than once; "
                         f"the last line ({number}) is used")
        results[key] = record
    if env is None:
        raise InputError(f"{path}: no '# ENV {{...}}' line: is this the kernel's serial log?")
    if not results:
        raise InputError(f"{path}: no '# BENCH {{...}}' lines: was the kernel booted with "
                         f"run=bench, and did it get that far?")
    return env, kernel_log.verdict(lines), results, notes


def host_info(host_cpus=None):
    """The machine the tool runs on (where QEMU ran, under make bench)."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    if host_cpus is None:
        host_cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
            else os.cpu_count()
    return {"node": platform.node(), "model": model, "cpus": host_cpus,
            "system": f"{platform.system()} {platform.release()}"}


def xadd_ns(results):
    """ns of one uncontended LOCK XADD, or None if the log has no line that tells.

    From the uncontended benchmark, or else from refcount's xadd on one CPU,
    whose get+put pair is two of them (a run cut short may have only that).
    """
    r = results.get(("uncontended", "xadd", "insn", 1))
    if r and "ns_per_op" in r:
        return r["ns_per_op"]
    r = results.get(("refcount", "xadd", "get+put", 1))
    return r["ns_per_op"] / 2 if r and "ns_per_op" in r else None


def is_native(env):
    """True for the native program's log, False for a kernel's serial log."""
    return env.get("platform") == "native"


def accelerator(env):
    """(label, emulated) from the ENV line's platform and hypervisor fields.

    A kernel's hypervisor is the one its guest runs under; the native
    program's is the one its host OS runs under (none on bare metal).
    """
    # A CPUID signature repeats its name to fill 12 bytes ("bhyve bhyve "): once is enough.
    hv = " ".join(dict.fromkeys(str(env.get("hypervisor", "unknown")).split())) or "unknown"
    if is_native(env):
        name = {"kvm": "KVM", "tcg": "QEMU TCG"}.get(hv, hv)
        where = "bare metal" if hv == "none" else f"a host that is itself a {name} guest"
        return f"native threads on {where}", hv in EMULATORS
    labels = {"kvm": "KVM", "tcg": "QEMU TCG (emulation)", "bochs": "Bochs (emulation)",
              "none": "bare metal"}
    return labels.get(hv, f"hypervisor '{hv}'"), hv in EMULATORS


def judged_emulated(env, results):
    """Whether a log is judged as an emulator's: by its ENV line, or by how slow LOCK XADD ran."""
    _, emulated = accelerator(env)
    ns = xadd_ns(results)
    return emulated or (ns is not None and ns > NATIVE_XADD_MAX_NS)


def impl_key(impl):
    if impl in IMPL_ORDER:
        return (0, IMPL_ORDER.index(impl), impl)
    return (1, 0, impl)


def side_key(key):
    bench, impl, op, cpus = key
    return (BENCH_ORDER.index(bench) if bench in BENCH_ORDER else 99, bench,
            OP_ORDER.index(op) if op in OP_ORDER else 9, op) + impl_key(impl) + (cpus,)


def benches(results):
    """The benchmarks a log holds, in the report's order."""
    return sorted({k[0] for k in results},
                  key=lambda b: (BENCH_ORDER.index(b) if b in BENCH_ORDER else 99, b))


def select(results, bench, op=None):
    return {k: v for k, v in results.items() if k[0] == bench and (op is None or k[2] == op)}


def scaling_grid(results, bench):
    """{label: {cpus: record}} of a scaling benchmark, and the sorted CPU counts.

    The label is the impl, or "impl/op" when the benchmark has several
    operations (pathwalk), so that rows of different operations stay apart.
    """
    recs = select(results, bench)
    multi = len({k[2] for k in recs}) > 1
    grid, order = {}, {}
    for (_b, impl, op, cpus), r in recs.items():
        label = f"{impl}/{op}" if multi else impl
        grid.setdefault(label, {})[cpus] = r
        order[label] = (op,) + impl_key(impl)
    cpus = sorted({n for per in grid.values() for n in per})
    return dict(sorted(grid.items(), key=lambda kv: order[kv[0]])), cpus


def base_label(label, base):
    """The row of implementation @base doing the same operation as row @label."""
    return f"{base}/{label.split('/', 1)[1]}" if "/" in label else base


def lockref_on(results, insn):
    """(impl, uncontended get+put record) of the lockref that exchanges with @insn, or None.

    The plain `lockref` runs the boot instruction (its BENCH line's cas
    field); `lockref-<insn>` the other one.
    """
    for impl in ("lockref-" + insn, "lockref"):
        r = results.get(("uncontended", impl, "get+put", 1))
        if r and (impl != "lockref" or r.get("cas", "cmpxchg8b") == insn):
            return impl, r
    return None


def cas_loop_limits(results):
    """Per instruction: (insn, lockref impl, its get+put ns, the cas-loop pair's ns, the
    chained pair's ns (two `insn` lines) or None), where both get+put lines are there."""
    out = []
    for insn in ("cmpxchg8b", "cmpxchgq"):
        lr = lockref_on(results, insn)
        loop = results.get(("uncontended", "cas-loop-" + insn, "get+put", 1))
        if not (lr and loop and loop.get("ns_per_op")):
            continue
        chain = results.get(("uncontended", insn, "insn", 1))
        out.append((insn, lr[0], lr[1]["ns_per_op"], loop["ns_per_op"],
                    2 * chain["ns_per_op"] if chain and chain.get("ns_per_op") else None))
    return out


def fallback_fraction(r):
    ops = r.get("lockref_ops")
    if not ops or "fallbacks" not in r:
        return None
    return r["fallbacks"] / ops


def fmt_rate(v):
    if v is None:
        return "-"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if v >= scale:
            return f"{v / scale:.3g} {unit}"
    return f"{v:.3g}"


def fmt_ratio(a, b):
    if a is None or not b:
        return "-"
    return f"{a / b:.2f}x"


def fmt_pct(v):
    return "-" if v is None else f"{100 * v:.3g}%"


def fmt_overlap(r):
    """The median overlap, and the worst trial's where the line gives it."""
    text = f"{r.get('overlap', 0):.3f}"
    return text + (f" (min {r['overlap_min']:.3f})" if "overlap_min" in r else "")


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)
