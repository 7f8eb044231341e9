#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fastpath_check.py - the lockref's successful lockless path is straight-line.

Why: the point of a lockref is that an uncontended get or put costs one
`lock cmpxchg` and little else.  A call (e.g. out of line for the CPU id
of the per-CPU statistics) or a stack frame on that path costs as much
again, and nothing in the C says so: only the machine code does.  So this
reads the machine code.

For each public lockless call of both forms it disassembles the function
(objdump -d) and finds its success paths: every path that runs from the
entry through a `lock cmpxchg*` whose exchange succeeded (the edge of the
conditional jump right after it that ZF=1 selects) to a `ret`.  Paths that
never reach an exchange (the lock seen held, a refusal, the locked mode)
and the edge of a failed exchange lead to the slow path and are not
checked.  On the success paths there must be no call, no frame set-up
(push %rbp, mov %rsp,%rbp, enter, leave, sub/add on %rsp) and no tail jump
out of the function; each function must have at least one success path.
In the kernel, which keeps frame pointers for panic backtraces, these
functions must not touch %rbp at all, or a backtrace through their slow
path would follow a clobbered frame pointer.

And the success paths hold only the algorithm: from the first load of the
lockref (a memory operand on %rdi, the object's register at entry) to the
`ret`, no load of a global (a RIP-relative, absolute or %fs/%gs operand:
a switch word, a static key's byte, the CPU index of the statistics) and
no store to memory (the statistics) besides the exchange itself.  In the
kernel every switch is a static key, a NOP on the default path, so every
public call is checked so; the native build cannot patch its text, so
there only the fixed copies the native benchmark times
(lib/lockref_fixed.h) are held to it, the public calls to the rest.

And the text the benchmarks ran (--patched LOG, with --kernel): the kernel
patches its static keys at run time, so the ELF's text is what runs only
while every key is off.  The kernel prints, after the bench suite's switch
round, each site that holds a JMP and the FNV-1a hash of its whole text
(kernel/static_key.c, static_keys_dump).  This applies those JMPs to a copy
of the ELF, requires the copy's text to hash as the running text did (byte
for byte what ran), and checks the copy: the lockref calls as above, and the
lock calls (spin_lock, spin_unlock, spin_trylock): on the straight path
from the entry (fall-throughs and the jumps a patched site makes) to the
first locked instruction, store through the lock or ret, no load of a global.

Usage: fastpath_check.py [--self-test] [--kernel ELF [--patched LOG]] [--native OBJ...]
With no arguments: build/kernel.elf and build/bench-native/obj/lib/lockref{,16}.o.
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

# The ELF's sections and an address's file offset: the site planter's (tools/boot/).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "boot"))
from static_key_plant import offset, sections  # noqa: E402

OPS = ["get", "get_not_zero", "get_not_dead", "put_not_zero", "put_return", "put_or_lock"]
FUNCTIONS = [f"lockref_{op}{p}" for op in OPS for p in ("", "_p")] + [
    f"lockref16_{op}{p}" for op in OPS + ["get_if_gen"] for p in ("", "_p")
]
# The native build's copies with the switches constant: held to the "only the algorithm" rule there.
FIXED = ["lockref_get_fixed", "lockref_put_or_lock_fixed", "lockref_get_fixed_zero",
         "lockref_put_or_lock_fixed_zero", "lockref16_get_fixed", "lockref16_put_or_lock_fixed"]
# The lock calls whose straight path the patched text is held to (lock_straight_path).
LOCK_FUNCTIONS = ["spin_lock", "spin_unlock", "spin_trylock"]
DEFAULT_KERNEL = "build/kernel.elf"
DEFAULT_NATIVE = ["build/bench-native/obj/lib/lockref.o", "build/bench-native/obj/lib/lockref16.o"]

# The jump that reads the compare-exchange's ZF, and which of its edges is the success (ZF=1).
SUCCESS_IF_TAKEN = {"je": True, "jz": True, "jne": False, "jnz": False}
# What the compiler may put between the exchange and that jump: none of these writes the
# flags (Intel SDM Vol. 1, Appendix A, EFLAGS cross-reference), so the jump still reads ZF.
FLAGS_KEPT = re.compile(r"^(lea|mov\w*|set\w+|cmov\w+|nop\w*|xchg|push|pop)$")
FRAME = [
    re.compile(r"^push\s+%rbp$"),
    re.compile(r"^mov\s+%rsp,%rbp$"),
    re.compile(r"^(sub|add)\S*\s+.*,%rsp$"),
    re.compile(r"^(enter|leave)\b"),
]
# A memory operand (AT&T): an optional segment, a displacement, the registers in parentheses.
MEM = re.compile(r"^(%[cdefgs]s:)?(-?0x[0-9a-f]+|-?[0-9]+)?\(([^)]*)\)$")
ABSOLUTE = re.compile(r"^(%[cdefgs]s:)?(0x[0-9a-f]+|[0-9]+)$")
# Instructions whose memory operand is only read, or none at all (lea computes an address).
READS_ONLY = re.compile(r"^(cmp\w*|test\w*|bt|push\w*|pop\w*|nop\w*|lea\w*|prefetch\w*|j\w+|call\w*)$")
HEADER = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*?)\s*$")
TARGET = re.compile(r"^([0-9a-f]+) <([^>+]+)(\+0x[0-9a-f]+)?>$")


def parse(text):
    """Map each function name to its instructions: a list of (addr, mnemonic, operands)."""
    funcs, cur = {}, None
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = INSN.match(line)
        if m and cur is not None:
            parts = m.group(2).split(None, 1)
            if not parts or parts[0] == "(bad)":
                continue
            mnem, ops = parts[0], parts[1] if len(parts) > 1 else ""
            if mnem in ("lock", "notrack", "bnd", "rep", "repz", "repnz", "ds"):
                sub = ops.split(None, 1)
                mnem, ops = (mnem + " " + sub[0]), (sub[1] if len(sub) > 1 else "")
            ops = ops.split("#")[0].strip()
            cur.append((int(m.group(1), 16), mnem, ops))
        elif not line.strip():
            cur = None
    return funcs


def base(mnem):
    return mnem.split()[-1]


def operands(ops):
    """@ops split at the commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in ops:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def memory(operand, mnem):
    """(is a memory operand, is a global: RIP-relative, absolute or segment-relative)."""
    if operand.startswith("$") or operand.startswith("%") and ":" not in operand:
        return False, False
    m = MEM.match(operand)
    if m:
        return True, bool(m.group(1)) or "%rip" in m.group(3) or m.group(3) == ""
    if ABSOLUTE.match(operand) and not base(mnem).startswith(("j", "call")):
        return True, True
    return False, False


def algorithm_only(name, insns, path, succ):
    """Problems of the "only the algorithm" rule on the success path @path (indices)."""
    problems = []
    first = None
    for i in sorted(path):
        if any(memory(o, insns[i][1])[0] and "%rdi" in o for o in operands(insns[i][2])):
            first = i
            break
    if first is None:
        return [f"{name}: no load of the lockref (a memory operand on %rdi) on the success path"]
    todo, after = [first], {first}
    while todo:
        for j in succ[todo.pop()]:
            if j in path and j not in after:
                after.add(j)
                todo.append(j)
    for i in sorted(after):
        addr, mnem, ops = insns[i]
        b = base(mnem)
        if b.startswith("cmpxchg") and mnem.startswith("lock"):
            continue
        ops_list = operands(ops)
        text, off = f"{mnem} {ops}".strip(), addr - insns[0][0]
        if b.startswith("lea") or b.startswith("nop"):
            continue
        for k, o in enumerate(ops_list):
            is_mem, is_global = memory(o, mnem)
            if not is_mem:
                continue
            dest = k == len(ops_list) - 1 and len(ops_list) > 1 or b.startswith(("inc", "dec",
                                                                               "not", "neg"))
            if dest and not READS_ONLY.match(b) and "%rsp" not in o:
                problems.append(f"{name}+{off:#x}: a store on the success path, after the "
                                f"lockref's first load (statistics?) ({text})")
            elif is_global:
                problems.append(f"{name}+{off:#x}: a load of a global on the success path, "
                                f"after the lockref's first load (a switch word?) ({text})")
    return problems


def check_function(name, insns, kernel, only_algorithm=False):
    """Problems with @name's success paths (an empty list: it is straight-line)."""
    if not insns:
        return [f"{name}: not found in the disassembly"]
    index = {a: i for i, (a, _, _) in enumerate(insns)}
    problems = []
    succ = [[] for _ in insns]
    exchanges = []  # (index of the jump on the exchange's ZF, where its success edge leads)
    for i, (addr, mnem, ops) in enumerate(insns):
        b = base(mnem)
        nxt = i + 1 if i + 1 < len(insns) else None
        target = None
        m = TARGET.match(ops)
        if b.startswith("j") and m and int(m.group(1), 16) in index and m.group(2) == name:
            target = index[int(m.group(1), 16)]
        if kernel and "%rbp" in ops:
            problems.append(f"{name}+{addr - insns[0][0]:#x}: touches %rbp ({mnem} {ops})")
        if b.startswith("cmpxchg") and mnem.startswith("lock"):
            k = i + 1
            while k < len(insns) and FLAGS_KEPT.match(base(insns[k][1])):
                k += 1
            jump = insns[k] if k < len(insns) else None
            if jump is None or base(jump[1]) not in SUCCESS_IF_TAKEN:
                off = addr - insns[0][0]
                problems.append(f"{name}+{off:#x}: no je/jne reads the exchange's ZF")
                continue
            jm = TARGET.match(jump[2])
            if not jm or int(jm.group(1), 16) not in index:
                problems.append(f"{name}: the jump after the exchange leaves the function")
                continue
            taken, fall = index[int(jm.group(1), 16)], k + 1
            exchanges.append((k, taken if SUCCESS_IF_TAKEN[base(jump[1])] else fall))
        if b == "ret" or b == "jmp":
            if target is not None:
                succ[i].append(target)
            continue
        if nxt is not None:
            succ[i].append(nxt)
        if target is not None and b != "call":
            succ[i].append(target)
    # The jump on the exchange's ZF: only its success edge is a success path.
    for k, ok in exchanges:
        succ[k] = [ok]

    def reach(starts, edges):
        seen, todo = set(starts), list(starts)
        while todo:
            for j in edges[todo.pop()]:
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
        return seen

    pred = [[] for _ in insns]
    for i, js in enumerate(succ):
        for j in js:
            pred[j].append(i)
    rets = [i for i, (_, m, _) in enumerate(insns) if base(m) == "ret"]
    from_entry = reach([0], succ)
    to_ret = reach(rets, pred)
    path = set()
    for i, ok in exchanges:
        if i not in from_entry:
            continue
        after = reach([ok], succ) & to_ret
        if not after:
            where = insns[ok][0] - insns[0][0]
            problems.append(f"{name}: the exchange's success edge (+{where:#x}) reaches no ret")
            continue
        path |= (from_entry & reach([i], pred)) | after
    if not path and not problems:
        problems.append(f"{name}: no path from the entry through a successful exchange to a ret")
    if only_algorithm and path:
        problems += algorithm_only(name, insns, path, succ)
    for i in sorted(path):
        addr, mnem, ops = insns[i]
        text = f"{mnem} {ops}".strip()
        off = addr - insns[0][0]
        if base(mnem).startswith("call"):
            problems.append(f"{name}+{off:#x}: call on the success path ({text})")
        elif any(p.match(f"{base(mnem)} {ops}".strip()) for p in FRAME):
            problems.append(f"{name}+{off:#x}: frame set-up on the success path ({text})")
        elif base(mnem) == "jmp" and not succ[i]:
            problems.append(f"{name}+{off:#x}: leaves the function on the success path ({text})")
    return problems


def lock_straight_path(name, insns):
    """Problems on @name's straight path: from the entry along fall-throughs and jumps within
    the function, to the first locked instruction, store through %rdi (the lock word) or ret:
    no load of a global (a switch word read because a site jumps)."""
    if not insns:
        return [f"{name}: not found in the disassembly"]
    index = {a: i for i, (a, _, _) in enumerate(insns)}
    problems, i, seen = [], 0, set()
    while i is not None and i < len(insns) and i not in seen:
        seen.add(i)
        addr, mnem, ops = insns[i]
        b, off = base(mnem), addr - insns[0][0]
        ops_list = operands(ops)
        if mnem.startswith("lock") or b == "ret":
            return problems
        if any(memory(o, mnem)[1] for o in ops_list) and not b.startswith(("lea", "nop")):
            problems.append(f"{name}+{off:#x}: a load of a global on the straight path to "
                            f"the lock (a switch word?) ({mnem} {ops})")
        if len(ops_list) > 1 and "(%rdi)" in ops_list[-1] and not READS_ONLY.match(b):
            return problems  # the unlock's store
        m = TARGET.match(ops)
        if b == "jmp":
            i = index.get(int(m.group(1), 16)) if m and m.group(2) == name else None
            if i is None:
                problems.append(f"{name}+{off:#x}: leaves the function on the straight path "
                                f"({mnem} {ops})")
        else:
            i += 1
    return problems


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def patched_copy(elf, log):
    """A copy of @elf with the JMPs @log's last "# KEYS" dump lists, and the problems found
    making it (the dump missing, its text not the ELF's once patched).  (path or None, list)"""
    jumps, summary = [], None
    for line in open(log, errors="replace"):
        text = line.strip()
        if text.startswith("# KEYS jump "):
            p = text.split()
            jumps.append((int(p[3], 16), int(p[4], 16)))
        elif text.startswith("# KEYS {"):
            summary, last = json.loads(text[len("# KEYS "):]), jumps
            jumps = []
    if summary is None:
        return None, [f"{log}: no '# KEYS {{json}}' line (the kernel's static_keys_dump)"]
    secs = sections(elf)
    data = bytearray(open(elf, "rb").read())
    for site, target in last:
        at = offset(secs, site)
        data[at:at + 5] = b"\xe9" + struct.pack("<i", target - (site + 5))
    start, end = int(summary["text_start"], 16), int(summary["text_end"], 16)
    got = fnv1a64(data[offset(secs, start):offset(secs, start) + end - start])
    if got != int(summary["text_fnv1a"], 16):
        return None, [f"{log}: the running text hashed {summary['text_fnv1a']}, the ELF with "
                      f"its {len(last)} jump(s) {got:#x}: not the same build, or text changed"]
    fd, path = tempfile.mkstemp(suffix=".elf")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    print(f"ok {log}: {summary['sites']} sites, {len(last)} jump(s); the ELF so patched "
          f"hashes as the running text did")
    return path, []


def disassemble(path):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True,
                         text=True, check=True)
    return parse(out.stdout)


def check(path, names, kernel, strict):
    """Problems of @names in @path; those in @strict also under the "only the algorithm" rule."""
    funcs = disassemble(path)
    problems = []
    for name in names:
        problems += [f"{path}: {p}" for p in
                     check_function(name, funcs.get(name, []), kernel, name in strict)]
    return problems


# Two hand-made functions: the check must pass the first and fail the second.
SELF_TEST = """
0000000000000000 <good>:
   0:	mov    (%rdi),%rax
   3:	test   %al,%al
   5:	jne    20 <good+0x20>
   7:	push   %rbx
   8:	lock cmpxchg8b (%rdi)
   c:	jne    30 <good+0x30>
   e:	xchg   %ax,%ax
  16:	pop    %rbx
  17:	ret
  20:	jmp    100 <slow>
  30:	pop    %rbx
  31:	call   100 <slow>
  36:	ret

0000000000000040 <bad>:
  40:	push   %rbp
  41:	mov    %rsp,%rbp
  44:	lock cmpxchg8b (%rdi)
  48:	jne    60 <bad+0x20>
  4a:	call   200 <platform_cpu_id>
  4f:	pop    %rbp
  50:	ret
  60:	jmp    100 <slow>

0000000000000070 <switchload>:
  70:	mov    (%rdi),%rax
  73:	movzbl 0x100(%rip),%ecx
  7a:	test   %cl,%cl
  7c:	jne    90 <switchload+0x20>
  7e:	lock cmpxchg %rdx,(%rdi)
  83:	jne    90 <switchload+0x20>
  85:	ret
  90:	jmp    100 <slow>

00000000000000a0 <statstore>:
  a0:	movzbl 0x100(%rip),%ecx
  a7:	mov    (%rdi),%rax
  aa:	lock cmpxchg %rdx,(%rdi)
  af:	jne    c0 <statstore+0x20>
  b1:	mov    %fs:0xfffffffffffffffc,%ecx
  b9:	addq   $0x1,0x40(%rcx)
  be:	ret
  c0:	jmp    100 <slow>
"""


# The lock calls' straight path: bare passes, a patched site's jump into a switch load does not.
SELF_TEST_LOCK = """
0000000000000000 <lockbare>:
   0:	push   %rbp
   1:	mov    %rsp,%rbp
   4:	nopl   0x0(%rax,%rax,1)
   9:	mov    $0x20000,%eax
   e:	lock xadd %eax,(%rdi)
  12:	pop    %rbp
  13:	ret

0000000000000020 <lockswitched>:
  20:	push   %rbp
  21:	mov    %rsp,%rbp
  24:	jmp    40 <lockswitched+0x20>
  29:	mov    $0x20000,%eax
  2e:	lock xadd %eax,(%rdi)
  32:	pop    %rbp
  33:	ret
  40:	movzbl 0x348e69(%rip),%esi
  47:	test   %sil,%sil
  4a:	je     29 <lockswitched+0x9>
  4c:	jmp    100 <slow>
"""


def self_test():
    lock_funcs = parse(SELF_TEST_LOCK)
    if lock_straight_path("lockbare", lock_funcs["lockbare"]) or not any(
            "load of a global" in p for p in lock_straight_path("lockswitched",
                                                                lock_funcs["lockswitched"])):
        print("self-test FAILED: the lock calls' straight path")
        return False
    funcs = parse(SELF_TEST)
    good = check_function("good", funcs["good"], True, True)
    bad = check_function("bad", funcs["bad"], True)
    load = check_function("switchload", funcs["switchload"], True, True)
    store = check_function("statstore", funcs["statstore"], True, True)
    if good or not any("call on the success path" in p for p in bad) or not any(
            "frame set-up" in p for p in bad):
        print(f"self-test FAILED: good {good}, bad {bad}")
        return False
    # statstore's switch load comes before the lockref's first load: allowed; its CPU index
    # load and its counter's store after the exchange are not.
    if not any("load of a global" in p for p in load) or \
            not any("a store on the success path" in p for p in store) or \
            not any("load of a global" in p and "%fs" in p for p in store) or \
            any("0x100(%rip)" in p for p in store):
        print(f"self-test FAILED: switchload {load}, statstore {store}")
        return False
    print("ok self-test: a call and a frame after the exchange are found, "
          "the slow path's call is not; a switch load and a statistics store after the "
          "lockref's first load are found, a load before it is not; a lock call's jump into "
          "a switch load is found, its NOP is not")
    return True


def main(argv):
    kernel, native, log, args = None, [], None, list(argv)
    ok = self_test()
    if args == ["--self-test"]:
        return 0 if ok else 1
    while args:
        a = args.pop(0)
        if a == "--kernel":
            kernel = args.pop(0)
        elif a == "--patched":
            log = args.pop(0)
        elif a == "--native":
            while args and not args[0].startswith("--"):
                native.append(args.pop(0))
        else:
            print(f"fastpath_check: unknown argument {a!r}")
            return 2
    if log and kernel is None:
        print("fastpath_check: --patched LOG needs --kernel ELF (the build that ran)")
        return 2
    if kernel is None and not native:
        kernel, native = DEFAULT_KERNEL, DEFAULT_NATIVE
    problems = []
    if log:
        patched, problems = patched_copy(kernel, log)
        if patched:
            funcs = disassemble(patched)
            found = check(patched, FUNCTIONS, True, FUNCTIONS)
            for name in LOCK_FUNCTIONS:
                found += [f"{kernel} as patched: {p}" for p in
                          lock_straight_path(name, funcs.get(name, []))]
            os.unlink(patched)
            problems += found
            print(f"{'not ok' if found else 'ok'} {kernel} as {log} ran it: "
                  f"{len(FUNCTIONS)} lockref and {len(LOCK_FUNCTIONS)} lock functions")
    targets = ([(kernel, True)] if kernel else []) + [(n, False) for n in native]
    for path, is_kernel in targets:
        names = [f for f in FUNCTIONS + FIXED if ("lockref16_" in f) == ("lockref16" in path)] \
            if not is_kernel else FUNCTIONS
        found = check(path, names, is_kernel, FUNCTIONS if is_kernel else FIXED)
        problems += found
        print(f"{'not ok' if found else 'ok'} {path}: {len(names)} functions")
    for p in problems:
        print("FAIL " + p)
    return 0 if ok and not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
