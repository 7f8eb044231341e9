#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_kind_recipe.py - docs/howto.md's "A lock kind" recipe, followed on a scratch tree.

Why: the page once said "one file and one line", and a new kind took 7 files, two
of which only a failing `make test` named.  This test follows the page's steps on a
copy of the tree with a generated kind ("tasb": lib/spinlock_tas.h with its prefix
and names changed), then runs every check that looks at kinds there: the kernel
build (its static assertions over the table), cmdline_doc_check.py, readme_check.py,
layering.py, the host test over every kind, bench_log.py's list of kinds, and a
quick boot on the new kind.  It fails if the files touched are not exactly those
the page's `kind-recipe-files` comment names, if they are more than 3, or if any
check fails (it then names the check: the file it wanted is one the page lacks).

    tools/tests/test_kind_recipe.py          (about 2 minutes: a full build)
    KIND_RECIPE_BOOT=0 ...                   skip the boot (no QEMU)
    KIND_RECIPE_KEEP=1 ...                   keep the scratch tree, and say where
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOWTO = os.path.join(ROOT, "docs", "howto.md")
RECIPE = re.compile(r"<!-- kind-recipe-files: (.*?) -->")
# The worked example the kind is generated from, and the generated kind.
EXAMPLE = {"name": "tas", "id": "TAS", "prefix": "tas"}
KIND = {"name": "tasb", "id": "TASB", "prefix": "tasb"}
MOST_FILES = 4


def tool(tree, name):
    """A tool's path in TREE by its name, wherever under tools/ it lives."""
    found = sorted(glob.glob(os.path.join(tree, "tools", "**", name), recursive=True))
    if not found:
        raise AssertionError(f"no tools/**/{name} in {tree}")
    return os.path.relpath(found[0], tree)


def read(path):
    with open(path) as f:
        return f.read()


def run(cwd, *cmd, env=None):
    """Run CMD in CWD: (exit status, stdout and stderr together)."""
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))
    return done.returncode, done.stdout + done.stderr


def git(cwd, *args):
    status, out = run(cwd, "git", *args, env={
        "GIT_AUTHOR_NAME": "recipe", "GIT_AUTHOR_EMAIL": "recipe@localhost",
        "GIT_COMMITTER_NAME": "recipe", "GIT_COMMITTER_EMAIL": "recipe@localhost"})
    if status != 0:
        raise RuntimeError(f"git {' '.join(args)}: {out}")
    return out


def copy_tree(dest):
    """The project's files (tracked, and new ones git would track) into DEST, as a fresh repository."""
    files = git(ROOT, "ls-files", "--cached", "--others", "--exclude-standard").split("\n")
    for rel in filter(None, files):
        src = os.path.join(ROOT, rel)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
            shutil.copy2(src, os.path.join(dest, rel))
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "scratch")


def recipe_files():
    """The files the page says a kind touches, with <name> filled in."""
    m = RECIPE.search(read(HOWTO))
    if not m:
        raise AssertionError("docs/howto.md: no '<!-- kind-recipe-files: ... -->' line in "
                             "'A lock kind'")
    return {f.replace("<name>", KIND["name"]) for f in m.group(1).split()}


def edit(path, old, new):
    text = read(path)
    if old not in text:
        raise AssertionError(f"{path}: the recipe's anchor {old!r} is not there")
    with open(path, "w") as f:
        f.write(text.replace(old, new, 1))


def follow_recipe(tree):
    """docs/howto.md's steps 1 to 4 for KIND, by hand as a reader would."""
    # 1. The header: the example's, every name of its prefix and ID renamed.
    text = read(os.path.join(tree, "lib", f"spinlock_{EXAMPLE['name']}.h"))
    text = re.sub(rf"\b{EXAMPLE['prefix']}_", f"{KIND['prefix']}_", text)
    text = re.sub(rf"\b{EXAMPLE['id']}_", f"{KIND['id']}_", text)
    text = text.replace(f"LIB_SPINLOCK_{EXAMPLE['id']}_H", f"LIB_SPINLOCK_{KIND['id']}_H")
    text = text.replace(f"spinlock_{EXAMPLE['name']}.h", f"spinlock_{KIND['name']}.h")
    with open(os.path.join(tree, "lib", f"spinlock_{KIND['name']}.h"), "w") as f:
        f.write(text)
    # 2. The table line, after the example's (the last of SPIN_KINDS_SWITCHED), its row of
    #    spin_kind_props after the example's, and the include.
    table = os.path.join(tree, "lib", "spinlock_kinds.h")
    line = f"X(arg, {EXAMPLE['name']}, {EXAMPLE['id']}, {EXAMPLE['prefix']})"
    new_line = f"X(arg, {KIND['name']}, {KIND['id']}, {KIND['prefix']})"
    edit(table, line, f"{line} \\\n\t{new_line}")
    row = re.search(rf"\[SPIN_KIND_{EXAMPLE['id']}\] = \{{[^}}]*\}},", read(table)).group(0)
    edit(table, row, row + "\n" + row.replace(f"SPIN_KIND_{EXAMPLE['id']}]",
                                                f"SPIN_KIND_{KIND['id']}]"))
    include = f'#include "spinlock_{EXAMPLE["name"]}.h"'
    edit(table, include, f'{include}\n#include "spinlock_{KIND["name"]}.h"')
    # 3. The four benchmark rows, after the example's.
    cases = os.path.join(tree, "bench", "bench_cases.h")
    for bench in ("refcount", "convoy"):
        ex, new = EXAMPLE["name"], KIND["name"]
        last = f'BENCH_SWEEP(X, {bench}_lockref_{ex}, "{bench}-lockref-{ex}")'
        rows = [f'BENCH_SWEEP(X, {bench}_{new}, "{bench}-{new}")',
                f'BENCH_SWEEP(X, {bench}_lockref_{new}, "{bench}-lockref-{new}")']
        edit(cases, last, " \\\n\t".join([last] + rows))
    # 4. The two rows of docs/interface.md.
    doc = os.path.join(tree, "docs", "interface.md")
    for key in ("spinlock.kind=", "torture.busted="):
        row = next(r for r in read(doc).splitlines() if r.startswith(f"| `{key}` |"))
        edit(doc, row, row[:-2] + f"; `{KIND['name']}` (a generated copy of `tas`) |")


class KindRecipe(unittest.TestCase):
    def test_recipe_alone_makes_a_kind(self):
        named = recipe_files()
        self.assertLessEqual(len(named), MOST_FILES,
                             f"docs/howto.md names {len(named)} files: {sorted(named)}")
        tree = tempfile.mkdtemp(prefix="kind-recipe-")
        try:
            copy_tree(tree)
            follow_recipe(tree)
            git(tree, "add", "-A")
            touched = {line[3:] for line in git(tree, "status", "--porcelain").splitlines()}
            print(f"# kind recipe: {len(touched)} files touched by hand: {sorted(touched)}")
            self.assertEqual(touched, named, "the files touched are not those the page names")

            checks = [
                ("the kernel build", ["make", "-j2"]),
                ("cmdline_doc_check.py", [sys.executable, tool(tree, "cmdline_doc_check.py")]),
                ("readme_check.py", [sys.executable, tool(tree, "readme_check.py")]),
                ("layering.py", [sys.executable, tool(tree, "layering.py")]),
                ("the host test over every kind",
                 ["sh", "-c", "make -C tests/host -j2 ../../build/host/plain/test_spin_kinds "
                  ">/dev/null && build/host/plain/test_spin_kinds"]),
                ("bench_log.py's kinds",
                 [sys.executable, "-c", "import os, sys; sys.path.insert(0, os.path.dirname("
                  f"'{tool(tree, 'bench_log.py')}')); import bench_log; "
                  f"sys.exit('{KIND['name']}' not in bench_log.spin_kinds())"]),
            ]
            if os.environ.get("KIND_RECIPE_BOOT", "1") != "0":
                checks.append(("a quick boot on the kind", [
                    "env", "ACCEL=tcg", "SMP=2", "TIMEOUT=600",
                    f"CMDLINE=run=spinlock quick spinlock.kind={KIND['name']}",
                    tool(tree, "run-qemu.sh"), "build/kind.serial"]))
            outputs = {}
            for what, cmd in checks:
                status, outputs[what] = run(tree, *cmd)
                self.assertEqual(status, 0, f"{what} fails after following the page alone "
                                 f"(it wants something the page does not name):\n"
                                 f"{outputs[what][-3000:]}")
            self.assertIn(f"# kind {KIND['name']}: ", outputs["the host test over every kind"],
                          "the host test over every kind did not run the new one")
            if os.environ.get("KIND_RECIPE_BOOT", "1") != "0":
                log = read(os.path.join(tree, "build", "kind.serial"))
                self.assertIn(f'"spinlock_kind":"{KIND["name"]}"', log, "the boot ran another kind")
            # No check may have changed a file of the tree on the way.
            after = {line[3:] for line in git(tree, "status", "--porcelain").splitlines()}
            self.assertEqual(after, touched, "a check changed files of the tree")
        finally:
            if os.environ.get("KIND_RECIPE_KEEP") == "1":
                print(f"# kind recipe: scratch tree kept in {tree}")
            else:
                shutil.rmtree(tree, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
