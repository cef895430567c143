#!/usr/bin/env python3
"""Prints the ninja targets (paths inside BUILD) that the tests of the given suites need, from Meson's introspection:
each test's own executable and what it depends on. For building only what a build's chosen suites run. An argument
with a slash is a folder of the source tree instead: every target its meson.build defines (bench/: tools run by hand).

    ninja -C build-nompi $(python3 scripts/suite-targets.py build-nompi env gpu)
    ninja -C build $(python3 scripts/suite-targets.py build unit e2e bench/)
"""
import json
import os
import subprocess
import sys


def introspect(build, what):
    out = subprocess.run(["meson", "introspect", build, what], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build, suites = sys.argv[1], {a for a in sys.argv[2:] if "/" not in a}
    root = os.path.abspath(build)
    targets = {t["id"]: t for t in introspect(build, "--targets")}
    by_file = {f: t for t in targets.values() for f in t["filename"]}
    wanted = set()
    source_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for folder in (os.path.join(source_root, a.strip("/"), "meson.build") for a in sys.argv[2:] if "/" in a):
        for t in targets.values():
            if t["defined_in"] == folder:
                wanted.update(os.path.relpath(f, root) for f in t["filename"])
    for test in introspect(build, "--tests"):
        if not suites & {s.split(":")[-1] for s in test["suite"]}:
            continue
        ids = list(test.get("depends", []))
        if test["cmd"] and test["cmd"][0] in by_file:
            ids.append(by_file[test["cmd"][0]]["id"])
        for target_id in ids:
            if target_id in targets:
                wanted.update(os.path.relpath(f, root) for f in targets[target_id]["filename"])
    print(" ".join(sorted(wanted)))


if __name__ == "__main__":
    main()
