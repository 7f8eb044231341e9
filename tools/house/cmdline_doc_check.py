#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cmdline_doc_check.py - every command-line word is documented exactly once.

docs/interface.md's "Kernel command line" table is where the words are
documented; kernel/cmdline_options.c's options[] table is what the kernel parses.
This check holds them together: the same keys in both, every value a choice
option accepts named in its row, no other page (README.md, docs/*.md)
carrying a table row of its own for a word, and the keys the page calls
harmless (a word of theirs not understood does not fail the run) exactly
the rows of kernel/cmdline_options.c marked .harmless; run='s row names every suite of
kernel/suites.h's SUITE_LIST and every group; and each row's last column,
the programs that act on the word (kernel, kcsan, native), says what the
code does: the native benchmark program acts on every key but those of
tests/bench/bench_native.c's native_ignored_keys[], the plain kernel on every
key but those of kernel/kcsan.c's plain_ignored_keys[], the race-detecting
kernel on all; torture.busted='s row names kernel/busted_list.h's words,
each once, in their order, and no other.  It prints one line per problem
and exits 1 if there is any, so `make test` fails the moment one side
changes without the other.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "interface.md"
CODE = ROOT / "kernel" / "cmdline_options.c"
KINDS = ROOT / "lib" / "spinlock_kinds.h"
SUITES = ROOT / "kernel" / "suites.h"
BUSTED = ROOT / "kernel" / "busted_list.h"
WALKS = ROOT / "fs" / "fs.h"
NATIVE = ROOT / "tests" / "bench" / "bench_native.c"
PLAIN = ROOT / "kernel" / "kcsan.c"
PROGRAMS = ("kernel", "kcsan", "native")
SECTION = "## Kernel command line"


def doc_rows(text):
    """The command-line table's rows: {key: row text}, and keys seen twice."""
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    rows, twice = {}, []
    for line in text[start:end if end >= 0 else None].splitlines():
        if not line.startswith("| `"):
            continue
        first = line.split("|")[1]
        for word in re.findall(r"`([^`]+)`", first):
            key = word.split("=")[0]
            if key in rows:
                twice.append(key)
            rows[key] = line
    return rows, twice


def spin_kinds():
    """The lock kinds of lib/spinlock_kinds.h's SPIN_KIND_LIST: spin_kind_names, and what
    an array that expands the list (torture.busted=<kind>) adds."""
    return re.findall(r"^\s*X\(arg, (\w+), \w+,", KINDS.read_text(), re.M)


def busted_rows():
    """kernel/busted_list.h's BUSTED_LIST: [(word, kind)] in its order, kind the lock
    kind a broken twin is judged as (None for the others); its last rows are one per
    lock kind after the default (SPIN_KINDS_SWITCHED), named after the kind."""
    text = BUSTED.read_text()
    body = text[text.index("#define BUSTED_LIST(X)"):text.index("SPIN_KINDS_SWITCHED(")]
    body = body.replace("\\\n", " ")
    rows = [(word, kind if breaks == "BUSTED_BREAKS_EXCLUSION" else None)
            for word, kind, breaks in re.findall(
                r'X\("([^"]*)",\s*\w+,\s*\w+,\s*(\w+),\s*(\w+),', body)]
    rows = [(w, k[len("SPIN_KIND_"):].lower() if k and k.startswith("SPIN_KIND_") else None)
            for w, k in rows]
    return rows + [(kind, kind) for kind in spin_kinds()[1:]]


def busted_twin(kind):
    """The torture.busted= word of @kind's broken twin (tests/checks/every_kind.sh)."""
    ids = dict(re.findall(r"^\s*X\(arg, (\w+), (\w+),", KINDS.read_text(), re.M))
    for word, twin in busted_rows():
        if twin in (kind, ids.get(kind, "").lower()):
            return word
    return None


def fs_walks():
    """The walks of fs/fs.h's FS_WALK_LIST, which fs_walk_names expands."""
    return re.findall(r"^\s*X\(\w+, (\w+)\)", WALKS.read_text(), re.M)


def suites():
    """The suites of kernel/suites.h's SUITE_LIST, and run='s groups of them
    (kernel/cmdline_options.c's suite_groups): every word run= takes."""
    names = re.findall(r"^\s*X\((\w+), \w+, \w+,", SUITES.read_text(), re.M)
    groups = re.search(r"suite_groups\[\] = \{(.*?)\};", CODE.read_text(), re.S)
    return names + re.findall(r'\{"(\w+)",', groups.group(1))


def code_rows(text):
    """kernel/cmdline_options.c's options[] rows, KIND_ROW("key", field, ...): [(key, kind,
    arrays, row text)], arrays the names of those a choice or a list takes (the argument after
    the field and, for a list, the next)."""
    table = re.search(r"const struct option options\[\] = \{(.*?)\n\};", text, re.S)
    parts = re.split(r"\b([A-Z_]+)_ROW\(", table.group(1))[1:]
    rows = []
    for kind, rest in zip(parts[0::2], parts[1::2]):
        key, row = re.match(r'"([^"]+)",(.*)', rest, re.S).groups()
        args = [a.strip() for a in row.split(",")]
        arrays = args[1:2] if kind.startswith("CHOICE") else args[1:3] if kind == "LIST" else []
        rows.append((key, kind, arrays, row))
    return rows


def code_options(text):
    """kernel/cmdline_options.c's options: {key: [values]} (empty for numbers, flags and
    values a parser of their own reads): a choice's choices, a list's names and group words."""
    arrays = {"spin_kind_names": spin_kinds(),
              "busted_names": [word for word, _ in busted_rows()]}
    for name, body in re.findall(r"const char \*const (\w+)\[\] = \{(.*?)\};", text, re.S):
        arrays[name] = re.findall(r'"([^"]*)"', body)
        if "SPIN_KIND_LIST(" in body:
            arrays[name] += spin_kinds()
        if "FS_WALK_LIST(" in body:
            arrays[name] += fs_walks()
    for name, body in re.findall(r"struct word_mask (\w+)\[\] = \{(.*?)\n\};", text, re.S):
        arrays[name] = re.findall(r'\{"([^"]*)",', body)
    options = {key: [v for a in names for v in arrays.get(a, [])]
               for key, _, names, _ in code_rows(text)}
    options["run"] = suites()
    return options


HARMLESS = re.compile(r"The keys that do not select what is tested are harmless: (.*?)\(", re.S)


def harmless_problems(doc, code, options):
    """The page's harmless keys against the rows of kernel/cmdline_options.c marked
    .harmless = true, both ways."""
    m = HARMLESS.search(doc)
    if not m:
        return ["docs/interface.md's sentence 'The keys that do not select what is tested are "
                "harmless: ...' is missing"]
    doc_keys = set(re.findall(r"`([^`]+)`", m.group(1)))
    code_keys = {key for key, _, _, row in code_rows(code) if ".harmless = true" in row}
    return ([f"docs/interface.md calls '{k}' harmless; kernel/cmdline_options.c does not"
             for k in sorted(doc_keys - code_keys)] +
            [f"kernel/cmdline_options.c calls '{k}' harmless; docs/interface.md does not"
             for k in sorted(code_keys - doc_keys)])


def listed_keys(path, array):
    """The strings of the array @array in @path, or None when it has none such."""
    m = re.search(rf"{array}\[\] = \{{(.*?)\}};", path.read_text(), re.S)
    return set(re.findall(r'"([^"]+)"', m.group(1))) if m else None


def programs_problems(rows, options):
    """Each row's "acted on by" column against the code's lists of keys not acted on."""
    ignored = {"native": listed_keys(NATIVE, "native_ignored_keys"),
               "kernel": listed_keys(PLAIN, "plain_ignored_keys"), "kcsan": set()}
    problems = [f"{path.relative_to(ROOT)}: no {array}[] of string keys"
                for (path, array), keys in zip([(NATIVE, "native_ignored_keys"),
                                                (PLAIN, "plain_ignored_keys")],
                                               [ignored["native"], ignored["kernel"]]) if keys is None]
    if problems:
        return problems
    for name, keys in ignored.items():
        problems += [f"{name}: its list of keys not acted on names '{k}', which kernel/cmdline_options.c "
                     "does not parse" for k in sorted(keys - set(options))]
    for key in sorted(set(rows) & set(options)):
        cells = rows[key].rstrip().rstrip("|").rsplit("|", 1)
        said = set(re.findall(r"\b(" + "|".join(PROGRAMS) + r")\b", cells[-1] if len(cells) > 1 else ""))
        want = {p for p in PROGRAMS if key not in ignored[p]}
        if not said:
            problems.append(f"docs/interface.md: the row of '{key}' has no 'acted on by' column "
                            f"(expected: {', '.join(p for p in PROGRAMS if p in want)})")
            continue
        for p in sorted(want - said):
            problems.append(f"docs/interface.md: the row of '{key}' leaves out '{p}', which acts on it")
        for p in sorted(said - want):
            problems.append(f"docs/interface.md: the row of '{key}' names '{p}', which does not act "
                            "on it (its list of keys not acted on names it)")
    return problems


BUSTED_WORD = re.compile(r"(?:^|; )`([a-z][a-z-]*)`")


def busted_problems(rows):
    """torture.busted='s row: each word once, at the start of a "; "-separated part
    ("; `word`: what it breaks"), in BUSTED_LIST's order, and no word the list lacks (a
    retired word documented still)."""
    row = rows.get("torture.busted")
    if row is None:
        return []
    said = BUSTED_WORD.findall(row)
    words = [word for word, _ in busted_rows()]
    if said == words:
        return []
    return [f"docs/interface.md: the row of 'torture.busted' names the words {', '.join(said)}; "
            f"kernel/busted_list.h's BUSTED_LIST has {', '.join(words)} (each once, in that "
            "order, each starting a part: \"; `word`: ...\")"]


def main():
    if sys.argv[1:2] == ["--busted-twin"] and len(sys.argv) == 3:
        word = busted_twin(sys.argv[2])
        print(word or f"cmdline_doc_check: no torture.busted= word breaks the lock kind '{sys.argv[2]}'")
        return 0 if word else 2
    problems = []
    doc, code = DOC.read_text(), CODE.read_text()
    rows, twice = doc_rows(doc)
    options = code_options(code)
    problems += harmless_problems(doc, code, options)
    problems += programs_problems(rows, options)
    problems += busted_problems(rows)
    for key in twice:
        problems.append(f"docs/interface.md: '{key}' has more than one row")
    for key in sorted(set(options) - set(rows)):
        problems.append(f"kernel/cmdline_options.c parses '{key}', which docs/interface.md does not document")
    for key in sorted(set(rows) - set(options)):
        problems.append(f"docs/interface.md documents '{key}', which kernel/cmdline_options.c does not parse")
    for key, choices in options.items():
        for choice in choices:
            if key in rows and f"`{choice}`" not in rows[key] and f"={choice}`" not in rows[key]:
                problems.append(f"docs/interface.md: the row of '{key}' does not name the value '{choice}'")
    others = [ROOT / "README.md"] + sorted(p for p in (ROOT / "docs").glob("*.md") if p != DOC)
    for page in others:
        for n, line in enumerate(page.read_text().splitlines(), 1):
            first = line.split("|")[1] if line.startswith("| `") else ""
            for word in re.findall(r"`([^`=]+)=?[^`]*`", first):
                if word in options:
                    problems.append(f"{page.relative_to(ROOT)}:{n}: a table row documents '{word}' "
                                    "again; docs/interface.md is its one place")
    for p in problems:
        print(p)
    print(f"{len(options)} command-line words, {len(problems)} problem(s)")
    return 1 if problems else 0


# `cmdline_doc_check.py --busted-twin KIND` prints the word of KIND's broken twin.
if __name__ == "__main__":
    sys.exit(main())
