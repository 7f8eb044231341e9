# SPDX-License-Identifier: MIT
"""The report's path-walk section: the two walks and the two locks side by side.

The seeds' claim is that the lockref beats the lock where the dcache's
counts are hottest: path lookup.  The pathwalk benchmark runs the same stat
loop with lockref and with the locked fs, each in the boot's walk (RCU-walk
unless fs.walk=ref) and in the ref-walk (op "...-refwalk"), so one table
shows both ratios per CPU count: lockref / lock within each walk, and the
boot's walk / the ref-walk for each lock.  The mixed rows (a writer renaming
on the walked path) add the RCU-walk's restart rate.  The paragraph under
the table is generated from the same figures.
"""

from bench_log import fmt_rate, fmt_ratio, table

WORKLOADS = [("same-path", "stat-same-path"), ("own-file", "stat-own-file")]
# The done-when figures of the RCU-walk work: lockref over the locked fs, default walk.
GOAL_LOCKREF_VS_LOCK = 1.3


def _impls(recs):
    """(lock, lockref) impl names of this log: the ticket lock's, or the qspinlock boot's."""
    if any(k[1] == "qspinlock" for k in recs):
        return "qspinlock", "lockref-qspinlock"
    return "spinlock", "lockref"


def _rate(recs, impl, op, n):
    r = recs.get(("pathwalk", impl, op, n))
    return r["ops_per_sec"] if r else None


def _ratio(a, b):
    return a / b if a is not None and b else None


def _paragraph(recs, lock, lref, cpus):
    """What the figures say, at the most CPUs both walks of same-path measured."""
    both = [n for n in cpus if _rate(recs, lref, "stat-same-path", n) and
            _rate(recs, lref, "stat-same-path-refwalk", n) and
            _rate(recs, lock, "stat-same-path", n)]
    if not both:
        return None
    n = max(both)
    walk = recs[("pathwalk", lref, "stat-same-path", n)].get("walk", "rcu")
    vs_lock = _ratio(_rate(recs, lref, "stat-same-path", n), _rate(recs, lock, "stat-same-path", n))
    vs_ref = _ratio(_rate(recs, lref, "stat-same-path", n),
                    _rate(recs, lref, "stat-same-path-refwalk", n))
    ref_vs_lock = _ratio(_rate(recs, lref, "stat-same-path-refwalk", n),
                         _rate(recs, lock, "stat-same-path-refwalk", n))
    out = [f"At {n} CPU{'s' if n > 1 else ''} on one shared path, in the {walk} walk, the "
           f"lockref does {vs_lock:.2f}x the locked fs (goal {GOAL_LOCKREF_VS_LOCK}x: "
           f"{'met' if vs_lock >= GOAL_LOCKREF_VS_LOCK else 'not met'}) and {vs_ref:.2f}x its "
           f"own ref-walk (goal 1x: {'met' if vs_ref >= 1 else 'not met'})"]
    if ref_vs_lock is not None:
        out[0] += f"; in the ref-walk the lockref does {ref_vs_lock:.2f}x the lock."
    else:
        out[0] += "."
    if walk == "ref":
        out.append("This log's boot walked with references (fs.walk=ref), so both columns "
                   "measure the ref-walk and say nothing about RCU-walk.")
    elif vs_lock >= GOAL_LOCKREF_VS_LOCK:
        out.append("So the seeds' claim holds on the walk: once it stops writing the "
                   "directories it passes, the counts it still changes are the last node's "
                   "get and put, and the lockless lockref beats taking the node's lock for "
                   "them.")
    elif vs_lock > 1:
        out.append("The lockref is ahead of the lock, by less than the goal: the walk now "
                   "changes one count per stat (the last node's get and put), so the locked fs "
                   "takes a lock twice per stat instead of on every component, and there is "
                   "less for the lockref to win.")
    else:
        out.append("The lockref does not beat the lock here: the walk's cost is elsewhere "
                   "than its count changes (on a busy or virtual host, often preempted "
                   "threads).")
    steps = recs[("pathwalk", lref, "stat-same-path", n)].get("steps")
    if vs_ref > 1 and walk != "ref" and steps:
        out.append(f"The RCU-walk's gain over the ref-walk ({vs_ref:.2f}x) is the count "
                   f"changes on shared lines it no longer makes: {2 * steps + 2} per stat in "
                   "the ref-walk (a get and a put on the root, each directory and the file), "
                   "2 in the RCU-walk (the file's).")
    mixed = recs.get(("pathwalk", lref, "stat-mixed", n))
    mixed_ref = _rate(recs, lref, "stat-mixed-refwalk", n)
    if mixed and "restarts_per_op" in mixed:
        out.append(f"With a writer renaming a directory on the walked path, "
                   f"{100 * mixed['restarts_per_op']:.2g}% of the walks restarted and "
                   f"{mixed.get('walk_fallbacks', 0)} fell back to the ref-walk; the "
                   f"{walk} walk still did {fmt_ratio(mixed['ops_per_sec'], mixed_ref)} "
                   "the ref-walk's stats.")
    return " ".join(out)


def section_pathwalk(results):
    """Lockref against lock in each walk, each walk against the ref-walk, and the paragraph."""
    recs = {k: v for k, v in results.items() if k[0] == "pathwalk"}
    if not any(k[2].endswith("-refwalk") for k in recs):
        return None
    lock, lref = _impls(recs)
    cpus = sorted({k[3] for k in recs})
    rows = []
    for name, op in WORKLOADS:
        for n in cpus:
            l_def, s_def = _rate(recs, lref, op, n), _rate(recs, lock, op, n)
            l_ref, s_ref = (_rate(recs, lref, op + "-refwalk", n),
                            _rate(recs, lock, op + "-refwalk", n))
            if l_def is None and l_ref is None:
                continue
            walk = (recs.get(("pathwalk", lref, op, n)) or {}).get("walk", "?")
            rows.append([name, n, walk, fmt_rate(l_def), fmt_rate(s_def), fmt_ratio(l_def, s_def),
                         fmt_rate(l_ref), fmt_rate(s_ref), fmt_ratio(l_ref, s_ref),
                         fmt_ratio(l_def, l_ref), fmt_ratio(s_def, s_ref)])
    mixed_rows = []
    for n in cpus:
        m = recs.get(("pathwalk", lref, "stat-mixed", n))
        if not m:
            continue
        m_ref = _rate(recs, lref, "stat-mixed-refwalk", n)
        mixed_rows.append([n, m.get("walk", "?"), fmt_rate(m["ops_per_sec"]), fmt_rate(m_ref),
                           fmt_ratio(m["ops_per_sec"], m_ref),
                           f"{m.get('restarts_per_op', 0):.4f}", m.get("walk_fallbacks", "-"),
                           m.get("misses", "-"), m.get("writes", "-")])
    out = ["## pathwalk: the walks and the locks", "",
           f"Stats per second (median of trials).  `walk` is the boot's walk (`fs.walk=`); the "
           f"ref-walk columns take a reference on every component.  `{lref} / {lock}` is the "
           "lockref against the locked fs in the same walk; `walk / ref` each impl's boot "
           "walk against its ref-walk.", "",
           table(["path", "CPUs", "walk", lref, lock, f"{lref} / {lock}", f"{lref} ref-walk",
                  f"{lock} ref-walk", f"{lref} / {lock}, ref-walk", f"{lref} walk / ref",
                  f"{lock} walk / ref"], rows)]
    if mixed_rows:
        out += ["", "Mixed: CPU 0 also renames a directory of the walked path away and back, "
                "and creates and unlinks a file beside it, every 16 stats (restarts: RCU-walk "
                "tries that failed a check, per stat; misses: stats that came while the "
                "directory was away).", "",
                table(["CPUs", "walk", f"{lref} stats/s", f"{lref} ref-walk", "walk / ref",
                       "restarts/stat", "fallbacks", "misses", "writes"], mixed_rows)]
    text = _paragraph(recs, lock, lref, cpus)
    if text:
        out += ["", text]
    return "\n".join(out)
