#!/usr/bin/env python3
"""The house keeps its shape: no function in src/ longer than 60 lines, no #include that runs from a lower layer of
src/ to a higher one (or between two parts of one layer), no loop of includes between files, and the C++ of src/,
tests/ and bench/ as .clang-format writes it. Reads files only:
no build, no MPI. The layers are LAYERS below, lowest first; docs/tests.md ("The house's rules") says the same in words.

A function's length is Universal Ctags' reading of where it begins and ends (its signature to its closing brace);
without `ctags` (Debian's universal-ctags, which scripts/setup-debian.sh installs) that test is skipped with the reason.
The format is clang-format 14's (Debian 12's, which scripts/setup-debian.sh installs): another version formats some
lines differently, so that test is skipped with the reason under any other.

Environment: DISTBENCH_SOURCE_ROOT (the source tree; default: two folders up from this file).
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("DISTBENCH_SOURCE_ROOT") or os.path.join(HERE, "..", "..")
SRC = os.path.join(ROOT, "src")

MAX_FUNCTION_LINES = 60
SOURCE_SUFFIXES = (".cpp", ".hpp", ".cu", ".hpp.in")

# Lowest first. A part is a folder of src/ (or one file of src/core/ itself); a file may include files of its own
# part and of any lower layer, never of a higher layer or of another part of its own layer.
LAYERS = [
    ["core/error.hpp", "core/version.hpp"],
    ["core/sys"],
    ["core/measure"],
    ["core/device"],
    ["core/comm"],
    ["core/report"],
    ["core/benchmark.hpp"],
    ["numerics", "connectors"],
    ["backends", "benchmarks/collective", "benchmarks/health", "benchmarks/latency", "benchmarks/tp",
     "benchmarks/train", "benchmarks/zero", "views"],
    ["compare", "model"],
    ["history"],
    ["cli"],
]
LAYER_OF = {part: i for i, parts in enumerate(LAYERS) for part in parts}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def part_of(relative):
    """The part of src/ a path (relative to src/) belongs to: the longest prefix LAYERS names."""
    pieces = relative.split("/")
    for n in range(len(pieces), 0, -1):
        prefix = "/".join(pieces[:n])
        if prefix in LAYER_OF:
            return prefix
    if relative == "core/version.hpp.in":
        return "core/version.hpp"
    return None


def source_files():
    for folder, _, names in os.walk(SRC):
        for name in sorted(names):
            if name.endswith(SOURCE_SUFFIXES):
                path = os.path.join(folder, name)
                yield os.path.relpath(path, SRC).replace(os.sep, "/"), path


def resolved(includer, written):
    """The file (relative to src/) an include names: from src/ first, then beside the includer; None if neither."""
    if os.path.exists(os.path.join(SRC, written)):
        return written
    beside = os.path.normpath(os.path.join(os.path.dirname(includer), written)).replace(os.sep, "/")
    return beside if os.path.exists(os.path.join(SRC, beside)) else None


def include_graph():
    graph = {}
    for relative, path in source_files():
        with open(path, encoding="utf-8") as f:
            text = f.read()
        targets = [resolved(relative, written) for written in INCLUDE.findall(text)]
        graph[relative] = [t for t in targets if t is not None and t != relative]
    return graph


def wrong_way(graph):
    """Every include that runs up a layer or across to a sibling part, as 'from -> to (why)'."""
    found = []
    for includer, targets in sorted(graph.items()):
        a = part_of(includer)
        for target in targets:
            b = part_of(target)
            if a is None or b is None:
                found.append(f"{includer} -> {target} (a part LAYERS does not name)")
            elif a != b and LAYER_OF[b] > LAYER_OF[a]:
                found.append(f"{includer} -> {target} ({a} is below {b})")
            elif a != b and LAYER_OF[b] == LAYER_OF[a]:
                found.append(f"{includer} -> {target} ({a} and {b} are parts of one layer)")
    return found


def include_loops(graph):
    """The loops of includes between files, each as the files around it (depth-first search, colours)."""
    state, stack, loops = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == "open":
                loops.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return loops


def long_functions(ctags, folder=SRC):
    """(lines, name, file) of every function under folder longer than MAX_FUNCTION_LINES, longest first."""
    out = subprocess.run(
        [ctags, "-R", "--languages=C++", "--langmap=C++:+.cu", "--kinds-C++=f", "--fields=+ne", "-x",
         "--_xformat=%{end} %{line} %N %F", "."],
        cwd=folder, check=True, capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        end, start, name, path = line.split(" ", 3)
        if end.isdigit() and start.isdigit():
            lines = int(end) - int(start) + 1
            if lines > MAX_FUNCTION_LINES:
                found.append((lines, name, os.path.normpath(path)))
    return sorted(found, reverse=True)


class IncludesFollowTheLayers(unittest.TestCase):
    def test_the_layers_name_every_folder_of_src(self):
        unnamed = sorted({r for r, _ in source_files() if part_of(r) is None})
        self.assertFalse(unnamed, "files in a part of src/ that LAYERS does not place: add the part to a layer")

    def test_no_include_runs_up_or_across(self):
        found = wrong_way(include_graph())
        self.assertFalse(found, "includes against the layers (lowest first: "
                         + " | ".join(",".join(p) for p in LAYERS) + "):\n" + "\n".join(found))

    def test_no_loop_of_includes(self):
        loops = include_loops(include_graph())
        self.assertFalse(loops, "\n".join(" -> ".join(loop) for loop in loops))

    def test_the_checks_see_a_wrong_include(self):
        graph = {"core/sys/a.hpp": ["cli/runner.hpp"], "cli/runner.hpp": ["core/sys/a.hpp"],
                 "model/x.hpp": ["compare/y.hpp"], "compare/y.hpp": []}
        self.assertEqual(len(wrong_way(graph)), 2)
        self.assertEqual(include_loops(graph), [["cli/runner.hpp", "core/sys/a.hpp", "cli/runner.hpp"]])


class FunctionsStayShort(unittest.TestCase):
    def setUp(self):
        self.ctags = shutil.which("ctags")
        if self.ctags is None:
            self.skipTest("no ctags on PATH (Debian: apt-get install universal-ctags; scripts/setup-debian.sh does)")
        version = subprocess.run([self.ctags, "--version"], capture_output=True, text=True).stdout
        if "Universal Ctags" not in version:
            self.skipTest(f"{self.ctags} is not Universal Ctags (it cannot say where a function ends)")

    def test_no_function_over_the_limit(self):
        found = long_functions(self.ctags)
        self.assertFalse(found, f"functions over {MAX_FUNCTION_LINES} lines (split them into named steps):\n"
                         + "\n".join(f"{n} {name} src/{path}" for n, name, path in found))

    def test_the_check_sees_a_long_function(self):
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "lengths.cpp"), "w", encoding="utf-8") as f:
                for name, lines in (("at_the_limit", MAX_FUNCTION_LINES), ("one_over", MAX_FUNCTION_LINES + 1)):
                    f.write(f"int {name}(int x) {{\n" + "  x += 1;\n" * (lines - 3) + "  return x;\n}\n")
            found = long_functions(self.ctags, folder)
        self.assertEqual(found, [(MAX_FUNCTION_LINES + 1, "one_over", "lengths.cpp")])


def cpp_files():
    out = subprocess.run(["git", "ls-files", "*.cpp", "*.hpp", "*.cu"], cwd=ROOT, capture_output=True, text=True)
    return [f for f in out.stdout.split() if f.startswith(("src/", "tests/", "bench/"))] if out.returncode == 0 else []


class SourcesKeepTheFormat(unittest.TestCase):
    def setUp(self):
        self.clang_format = shutil.which("clang-format-14") or shutil.which("clang-format")
        if self.clang_format is None:
            self.skipTest("no clang-format on PATH (Debian: apt-get install clang-format; scripts/setup-debian.sh does)")
        version = subprocess.run([self.clang_format, "--version"], capture_output=True, text=True).stdout
        if "version 14." not in version:
            self.skipTest(f"{self.clang_format} is not clang-format 14 ({version.strip()}): its format may differ")
        self.files = cpp_files()
        if not self.files:
            self.skipTest("not a git checkout: no list of the project's files")

    def test_every_file_as_clang_format_writes_it(self):
        out = subprocess.run([self.clang_format, "--dry-run", "--Werror", *self.files], cwd=ROOT,
                             capture_output=True, text=True)
        unformatted = sorted({line.split(":")[0] for line in out.stderr.splitlines() if ": error:" in line})
        self.assertEqual(out.returncode, 0, "files not as .clang-format writes them (run clang-format -i on them):\n"
                         + "\n".join(unformatted))

    def test_the_check_sees_a_badly_formatted_file(self):
        with tempfile.TemporaryDirectory() as folder:
            shutil.copy(os.path.join(ROOT, ".clang-format"), folder)
            with open(os.path.join(folder, "bad.cpp"), "w", encoding="utf-8") as f:
                f.write("int  f( int x ){return x;}\n")
            out = subprocess.run([self.clang_format, "--dry-run", "--Werror", "bad.cpp"], cwd=folder,
                                 capture_output=True, text=True)
        self.assertNotEqual(out.returncode, 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
