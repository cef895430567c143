#!/usr/bin/env python3
"""The documentation holds together: README.md stays short (at most 250 lines) and keeps the quick start's two
commands and the exit codes; every relative link in README.md, docs/ (the measurement logs included) and
bench/README.md names a file that exists, and every #anchor a heading of the page it points to (GitHub's anchors); the
places the sources send a reader to ("see docs/health.md, 'Health rules'", README.md ("Exit codes")) exist; the
sbatch script docs/launching.md shows is the one in scripts/slurm/. Reads files only: no MPI, no binary.

Environment: DISTBENCH_SOURCE_ROOT (the source tree; default: two folders up from this file).
"""
import glob
import os
import re
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("DISTBENCH_SOURCE_ROOT") or os.path.join(HERE, "..", "..")

README_MAX_LINES = 250
# The quick start's two commands, as a user copies them: each must stay in README.md exactly so.
QUICK_START = [
    "sh scripts/setup-debian.sh && sh scripts/build.sh && mpirun --allow-run-as-root -np 2 distbench allreduce "
    "--json reports/allreduce.json --csv reports/allreduce.csv",
    "sh scripts/setup-debian.sh && sh scripts/test.sh",
]

FENCE = re.compile(r"^ {0,3}(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.MULTILINE)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def line_count(text):
    """What `wc -l` prints: the newlines."""
    return text.count("\n")


def outside_code_blocks(text):
    """The lines of `text` outside fenced code blocks (```, ~~~), each with its line number."""
    lines, fence = [], None
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None and m and m.group(1) == fence and line.strip().strip(fence[0]) == "":
            fence = None
        elif fence is None:
            lines.append((number, line))
    return lines


def code_blocks(text):
    """The contents of the fenced code blocks of `text`, each as one string."""
    blocks, fence, current = [], None, []
    for line in text.split("\n"):
        m = FENCE.match(line)
        if fence is None and m:
            fence, current = m.group(1), []
        elif fence is not None and m and line.strip().strip(fence[0]) == "":
            blocks.append("\n".join(current) + "\n")
            fence = None
        elif fence is not None:
            current.append(line)
    return blocks


def anchor(heading):
    """GitHub's anchor for a heading's text: link markup reduced to its text, lower case, everything but letters,
    digits, '_', '-' and spaces dropped, spaces made hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def headings(text):
    """The headings' texts, in order."""
    return [m.group(2) for _, line in outside_code_blocks(text) for m in [HEADING.match(line)] if m]


def anchors(text):
    """Every anchor the headings of `text` get, repeated ones numbered as GitHub numbers them (-1, -2, ...)."""
    seen, result = {}, set()
    for h in headings(text):
        a = anchor(h)
        n = seen.get(a, 0)
        seen[a] = n + 1
        result.add(a if n == 0 else f"{a}-{n}")
    return result


def links(text):
    """(line number, target) of every inline link, image and reference definition outside code."""
    found = []
    for number, line in outside_code_blocks(text):
        found += [(number, t) for t in REFERENCE_DEF.findall(line)]
    # Code spans may run over line ends, so they are blanked in the text outside code blocks as a whole; their
    # length and line ends are kept, so that a match still knows its line.
    kept = {number: line for number, line in outside_code_blocks(text)}
    prose = "\n".join(kept.get(n, "") for n in range(1, line_count(text) + 2))
    prose = CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", "x", m.group(0)), prose)
    for m in INLINE_LINK.finditer(prose):
        found.append((prose.count("\n", 0, m.start()) + 1, m.group(1)))
    return found


def broken_links(root, pages):
    """Why each relative link of `pages` (paths relative to `root`) does not resolve: 'page:line: target: why'."""
    problems, anchors_of = [], {}
    root = os.path.realpath(root)

    def anchors_in(path):
        if path not in anchors_of:
            anchors_of[path] = anchors(read(path))
        return anchors_of[path]

    for page in pages:
        source = os.path.join(root, page)
        for number, target in links(read(source)):
            if not target or SCHEME.match(target) or target.startswith("//"):
                continue
            path_part, _, fragment = target.partition("#")
            where = f"{page}:{number}: {target}"
            if path_part.startswith("/"):
                problems.append(f"{where}: an absolute path; write it relative to the page")
                continue
            path = os.path.realpath(os.path.join(os.path.dirname(source), path_part)) if path_part else source
            if os.path.commonpath([root, path]) != root:
                problems.append(f"{where}: outside the source tree")
            elif not os.path.exists(path):
                problems.append(f"{where}: no such file")
            elif fragment and path.endswith(".md") and fragment not in anchors_in(path):
                problems.append(f"{where}: no heading with the anchor '#{fragment}' in {os.path.relpath(path, root)}")
    return problems


def doc_pages(root):
    return ["README.md"] + sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))


def linked_pages(root):
    """Every page whose links are checked: the doc pages, bench/README.md and the measurement logs."""
    more = glob.glob(os.path.join(root, "bench", "README.md")) + glob.glob(os.path.join(root, "docs", "*", "*.md"))
    return doc_pages(root) + sorted(os.path.relpath(p, root) for p in more)


def section(text, title):
    """The text of the section (# or ##) with this exact title, code blocks included, up to the next heading of its
    level or above."""
    all_lines = text.split("\n")
    starts = [(n, len(m.group(1)), m.group(2)) for n, line in outside_code_blocks(text)
              for m in [HEADING.match(line)] if m and len(m.group(1)) <= 2]
    for i, (n, _, t) in enumerate(starts):
        if t == title:
            end = starts[i + 1][0] if i + 1 < len(starts) else len(all_lines) + 1
            return "\n".join(all_lines[n:end - 1]) + "\n"
    return ""


class Readme(unittest.TestCase):
    def setUp(self):
        self.text = read(os.path.join(ROOT, "README.md"))

    def test_is_short(self):
        self.assertLessEqual(line_count(self.text), README_MAX_LINES,
                             f"README.md has {line_count(self.text)} lines; move detail to docs/")

    def test_starts_with_the_quick_start_and_its_two_commands(self):
        self.assertEqual([h for h in headings(self.text) if not h.startswith("distbench")][0],
                         "Quick start (Debian 12)")
        commands = [line for block in code_blocks(section(self.text, "Quick start (Debian 12)"))
                    for line in block.split("\n")]
        for command in QUICK_START:
            self.assertIn(command, commands, f"README.md's quick start lost its command: {command}")

    def test_documents_every_exit_code(self):
        self.assertIn("Exit codes", headings(self.text))
        rows = [line for line in section(self.text, "Exit codes").split("\n") if line.startswith("|")]
        codes = set()
        for row in rows:
            codes.update(re.findall(r"\b\d+\b", row.split("|")[1]))
        enum = read(os.path.join(ROOT, "src", "core", "error.hpp"))
        body = enum[enum.index("enum class ExitCode"):]
        body = body[:body.index("};")]
        for code in set(re.findall(r"=\s*(\d+)\s*,", body)) | {"130", "143"}:
            self.assertIn(code, codes, f"exit code {code} (src/core/error.hpp) is not in README.md's 'Exit codes'")

    def test_links_every_docs_page(self):
        linked = {os.path.normpath(t.partition("#")[0]) for _, t in links(self.text)}
        for page in doc_pages(ROOT)[1:]:
            self.assertIn(page, linked, f"README.md does not link {page}")


class Docs(unittest.TestCase):
    def test_every_relative_link_resolves(self):
        problems = broken_links(ROOT, linked_pages(ROOT))
        self.assertEqual(problems, [], "\n".join(problems))

    def test_health_rules_have_their_heading(self):
        self.assertIn("Health rules", headings(read(os.path.join(ROOT, "docs", "health.md"))))

    def test_what_the_sources_point_to_exists(self):
        # "see docs/health.md, 'Health rules'" in a message, 'README.md ("Exit codes")' in a comment
        pointer = re.compile(r"\b(README\.md|docs/[\w.-]+\.md),? \(?['\"]([^'\"]+)['\"]")  # not `o.md, "...`
        found = 0
        for path in glob.glob(os.path.join(ROOT, "src", "**", "*.[ch]pp"), recursive=True):
            for page, title in pointer.findall(read(path)):
                found += 1
                target = os.path.join(ROOT, page)
                self.assertTrue(os.path.exists(target), f"{os.path.relpath(path, ROOT)} points to {page}")
                self.assertIn(title, headings(read(target)), f"{os.path.relpath(path, ROOT)}: {page}, '{title}'")
        self.assertGreaterEqual(found, 3)  # error.hpp's exit codes, health's option and its rules' error message

    def test_the_sbatch_script_shown_is_the_one_in_scripts(self):
        script = read(os.path.join(ROOT, "scripts", "slurm", "distbench.sbatch"))
        self.assertIn(script, code_blocks(read(os.path.join(ROOT, "docs", "launching.md"))),
                      "docs/launching.md should show scripts/slurm/distbench.sbatch as it is")


class Checker(unittest.TestCase):
    """The checker itself: it must see a broken link, or it proves nothing."""

    def test_it_finds_a_missing_file_and_a_missing_anchor_but_not_links_in_code(self):
        with tempfile.TemporaryDirectory() as root:
            os.mkdir(os.path.join(root, "docs"))
            with open(os.path.join(root, "README.md"), "w") as f:
                f.write("# t\n\n## Exit codes\n\n[ok](docs/a.md#next-to-nccl-tests---timing) [self](#exit-codes)\n"
                        "[gone](docs/b.md) [no anchor](docs/a.md#nope) `[code](docs/c.md)`\n"
                        "```\n[block](docs/d.md)\n```\n[web](https://example.org/x.md)\n")
            with open(os.path.join(root, "docs", "a.md"), "w") as f:
                f.write("# A\n\n## Next to nccl-tests: `--timing`\n\n[up](../README.md#exit-codes) [bad](../README.md#x)\n")
            problems = broken_links(root, doc_pages(root))
            self.assertEqual(problems, ["README.md:6: docs/b.md: no such file",
                                        "README.md:6: docs/a.md#nope: no heading with the anchor '#nope' in docs/a.md",
                                        "docs/a.md:5: ../README.md#x: no heading with the anchor '#x' in README.md"])

    def test_anchors_are_githubs(self):
        self.assertEqual(anchor("Lists of tensors: `--tensors N --fuse on|off|both`"),
                         "lists-of-tensors---tensors-n---fuse-onoffboth")
        self.assertEqual(anchor("nccl-tests' flags"), "nccl-tests-flags")
        self.assertEqual(anchor("Interleaved A/B"), "interleaved-ab")
        self.assertEqual(anchors("# A\n## B\n## B\n"), {"a", "b", "b-1"})


if __name__ == "__main__":
    unittest.main()
