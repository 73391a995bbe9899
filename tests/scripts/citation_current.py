#!/usr/bin/env python3
"""The citation is one fact in five places, kept equal here: CITATION.cff (what GitHub and citation
managers read), `netpoly --cite` (the BibTeX entry of the build that ran), the licence in LICENSE and
pyproject.toml, the version in CMakeLists.txt, and a section of CHANGELOG.md for that version.

usage: citation_current.py ROOT NETPOLY"""

import re
import subprocess
import sys
from pathlib import Path


def cff_fields(text: str) -> dict:
    """The top-level scalar fields of CITATION.cff (a flat YAML mapping; lists are skipped)."""
    out = {}
    for line in text.splitlines():
        m = re.match(r'^([a-z-]+):\s*"?(.*?)"?\s*$', line)
        if m and m.group(2):
            out[m.group(1)] = m.group(2)
    names = re.findall(r'^\s*- name:\s*"(.*)"\s*$', text, re.M)
    out["authors"] = names
    return out


def main() -> int:
    root, netpoly = Path(sys.argv[1]), sys.argv[2]
    problems = []
    cff = cff_fields((root / "CITATION.cff").read_text(encoding="utf-8"))
    version = re.search(r"project\(\s*netpoly\s+VERSION\s+([0-9.]+)", (root / "CMakeLists.txt").read_text()).group(1)
    bib = subprocess.run([netpoly, "--cite"], capture_output=True, text=True, check=True).stdout
    fields = dict(re.findall(r"^\s*(\w+)\s*=\s*\{(.*)\},?\s*$", bib, re.M))
    expect = {
        "title": cff.get("title"),
        "author": "{" + " and ".join(cff["authors"]) + "}",
        "year": cff.get("date-released", "")[:4],
        "version": cff.get("version"),
        "license": cff.get("license"),
    }
    for k, v in expect.items():
        if fields.get(k) != v:
            problems.append(f"netpoly --cite: {k} = {fields.get(k)!r}, CITATION.cff gives {v!r}")
    if cff.get("version") != version:
        problems.append(f"CITATION.cff: version {cff.get('version')!r}, CMakeLists.txt {version!r}")
    if not re.search(r"^\s*note\s*=\s*\{netpoly " + re.escape(version) + r" \(", bib, re.M):
        problems.append("netpoly --cite: the note does not name this build (netpoly VERSION (git ..., FLINT ...))")
    if not (root / "LICENSE").read_text(encoding="utf-8").startswith(f"{cff.get('license')} License"):
        problems.append(f"LICENSE: not the {cff.get('license')} licence CITATION.cff names")
    if f'license = {{text = "{cff.get("license")}"}}' not in (root / "pyproject.toml").read_text():
        problems.append("pyproject.toml: no license = {text = ...} equal to CITATION.cff's")
    if not re.search(rf"^## {re.escape(version)}\b", (root / "CHANGELOG.md").read_text(encoding="utf-8"), re.M):
        problems.append(f"CHANGELOG.md: no section for the version {version}")
    for p in problems:
        print("FAIL citation:", p)
    print(f"citation: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
