#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_readme_check.py - readme_check.py gives the same verdict with and without git.

Why: the check once asked git for the tracked paths and, where git was
missing, counted every file under the tree: `.git/` and `build/` then became
top-level folders the README had to name, and `make test` failed on exactly
the fresh machines the README is written for.  Each case here copies the
project's files into a new git repository with a `build/` folder beside them,
runs the check once with git on PATH and once with no PATH at all, and holds
the two verdicts (status and every line after the one naming the source)
equal.  A fallback that lists `.git/` or `build/` again fails the first case.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tooldirs import ROOT, tool  # noqa: E402
import readme_check  # noqa: E402

CHECK = tool("readme_check.py")


def run_check(tree, with_git):
    """readme_check.py on TREE: (status, lines after the source line, the source line)."""
    env = dict(os.environ)
    if not with_git:
        env["PATH"] = os.path.join(tree, "no-such-folder")
    done = subprocess.run([sys.executable, CHECK, tree], env=env, capture_output=True,
                          text=True)
    lines = done.stdout.splitlines()
    return done.returncode, lines[1:], lines[0] if lines else ""


def git(tree, *args):
    subprocess.run(["git", "-C", tree, *args], check=True, capture_output=True)


class SameVerdict(unittest.TestCase):
    def setUp(self):
        self.tree = tempfile.mkdtemp(prefix="readme_check.")
        self.addCleanup(shutil.rmtree, self.tree)
        files, _ = readme_check.tracked(readme_check.ROOT)
        for rel in files:
            dest = os.path.join(self.tree, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, rel), dest)
        # What a tree holds once the tests have built: build output git ignores.
        os.makedirs(os.path.join(self.tree, "build/obj"))
        open(os.path.join(self.tree, "build/obj/main.o"), "w").close()
        git(self.tree, "init", "-q")
        git(self.tree, "add", "-A")

    def verdicts(self):
        with_git = run_check(self.tree, True)
        without = run_check(self.tree, False)
        self.assertIn("git ls-files", with_git[2])
        self.assertIn("without git", without[2])
        return with_git, without

    def test_pass_with_git_and_build_present(self):
        with_git, without = self.verdicts()
        self.assertEqual(with_git[:2], without[:2])
        self.assertEqual(with_git[0], 0, with_git[1])

    def test_a_folder_missing_from_the_readme_fails_both_ways(self):
        os.makedirs(os.path.join(self.tree, "newroom"))
        open(os.path.join(self.tree, "newroom/room.c"), "w").close()
        git(self.tree, "add", "-A")
        with_git, without = self.verdicts()
        self.assertEqual(with_git[:2], without[:2])
        self.assertEqual(with_git[0], 1)
        self.assertTrue(any("folder newroom/" in line for line in without[1]), without[1])

    def test_without_gitignore_git_and_build_are_still_left_out(self):
        os.remove(os.path.join(self.tree, ".gitignore"))
        status, lines, source = run_check(self.tree, False)
        self.assertIn("no .gitignore", source)
        self.assertEqual(status, 0, lines)
        self.assertFalse(any(".git/" in line or "build/" in line for line in lines), lines)

    def test_ignore_patterns(self):
        patterns = ["build/", "*.o", "/top.txt", "docs/*.tmp"]
        self.assertTrue(readme_check.ignored("build", True, patterns))
        self.assertFalse(readme_check.ignored("build", False, patterns))
        self.assertTrue(readme_check.ignored("kernel/x.o", False, patterns))
        self.assertTrue(readme_check.ignored("top.txt", False, patterns))
        self.assertFalse(readme_check.ignored("kernel/top.txt", False, patterns))
        self.assertTrue(readme_check.ignored("docs/a.tmp", False, patterns))
        self.assertFalse(readme_check.ignored("kernel/main.c", False, patterns))


if __name__ == "__main__":
    unittest.main()
