#!/usr/bin/env python3
"""A test that cannot run in this build or on this machine: prints why and exits 77, which meson reports as SKIP.

    skip.py REASON...
"""
import sys

print("SKIP: " + " ".join(sys.argv[1:]))
sys.exit(77)
