#!/usr/bin/env python3
"""Every benchmark folder has the one shape src/benchmarks/meson.build states: src/benchmarks/<name>/ holds plan.hpp,
<name>_benchmark.{hpp,cpp} and <name>_record.{hpp,cpp}, and all its code is in namespace distbench::<name>. Folders of
code the benchmarks share (SHARED) are not benchmarks. Reads files only.

Environment: DISTBENCH_SOURCE_ROOT (the source tree; default: two folders up from this file).
"""
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("DISTBENCH_SOURCE_ROOT") or os.path.join(HERE, "..", "..")
BENCHMARKS = os.path.join(ROOT, "src", "benchmarks")
SHARED: set[str] = set()  # code several benchmarks use lives outside this folder (src/numerics, core)
NAMESPACE = re.compile(r"^namespace (distbench(?:::\w+)*) \{", re.MULTILINE)
# A block that only names another namespace's classes (namespace distbench { class Work; }) defines nothing.
FORWARD_ONLY = re.compile(r"^namespace [\w:]+ \{\n(?:(?:class|struct) \w+;\n)+\}.*$", re.MULTILINE)


def benchmark_folders(root):
    return sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)) and d not in SHARED)


def shape_problems(folder, name):
    """What the folder `folder` of benchmark `name` lacks or has in another namespace, as sentences."""
    problems = []
    for f in ["plan.hpp", f"{name}_benchmark.hpp", f"{name}_benchmark.cpp", f"{name}_record.hpp", f"{name}_record.cpp"]:
        if not os.path.isfile(os.path.join(folder, f)):
            problems.append(f"{name}: {f} is missing")
    for f in sorted(os.listdir(folder)):
        if not f.endswith((".hpp", ".cpp")):
            continue
        with open(os.path.join(folder, f), encoding="utf-8") as fh:
            spaces = set(NAMESPACE.findall(FORWARD_ONLY.sub("", fh.read())))
        if spaces != {f"distbench::{name}"}:
            problems.append(f"{name}/{f}: namespaces {sorted(spaces)}, not only distbench::{name}")
    return problems


class BenchmarkShape(unittest.TestCase):
    def test_every_benchmark_has_the_shape(self):
        names = benchmark_folders(BENCHMARKS)
        self.assertIn("collective", names)
        self.assertIn("latency", names)
        problems = []
        for name in names:
            problems += shape_problems(os.path.join(BENCHMARKS, name), name)
        self.assertEqual(problems, [])

    def test_it_finds_a_missing_record_file_and_another_namespace(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            for f in ["plan.hpp", "x_benchmark.hpp", "x_benchmark.cpp", "x_record.hpp"]:
                with open(os.path.join(tmp, f), "w", encoding="utf-8") as fh:
                    fh.write("namespace distbench::x {\n}  // namespace distbench::x\n")
            with open(os.path.join(tmp, "forward.hpp"), "w", encoding="utf-8") as fh:  # names core's Work only
                fh.write("namespace distbench {\nclass Work;\n}\n\nnamespace distbench::x {\n}\n")
            with open(os.path.join(tmp, "helper.cpp"), "w", encoding="utf-8") as fh:
                fh.write("namespace distbench {\nnamespace {\n}\n}\n")
            self.assertEqual(shape_problems(tmp, "x"), [
                "x: x_record.cpp is missing",
                "x/helper.cpp: namespaces ['distbench'], not only distbench::x",
            ])


if __name__ == "__main__":
    sys.exit(unittest.main())
