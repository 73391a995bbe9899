#!/usr/bin/env python3
"""The sampled re-run of a long artefact's rows (tests/scripts/examples_current.sh long).

  examples_sample.py pick JOURNAL OUT VERSION CAP
      Picks the rows of JOURNAL with the least recorded time, up to CAP seconds
      of it and at least one, and writes every other row to OUT under VERSION
      (this build's, so that `table --resume` carries them over). Prints the
      picked rows' line numbers (from 0). Exits 1 with the reason when a row
      records another FLINT than VERSION (other arithmetic: nothing to compare).
  examples_sample.py compare JOURNAL FRESH I...
      Compares the rows I of JOURNAL with the rows of the same key in FRESH,
      their timings, indices and build ids masked. Prints one line per row
      that differs (nothing when all are equal).
"""
import json
import re
import sys


def flint(version):
    m = re.search(r"FLINT [0-9.]+", version or "")
    return m.group(0) if m else None


def rows_of(path):
    return [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]


def pick(journal, out, version, cap):
    rows = rows_of(journal)
    for r in rows:
        if flint(r.get("netpoly_version")) != flint(version):
            sys.exit(f"row {r.get('key')}: made with {r.get('netpoly_version')}, this build is {version}: other arithmetic")
    picked, spent = set(), 0.0
    for i in sorted(range(len(rows)), key=lambda i: rows[i].get("seconds", float("inf"))):
        if picked and spent + rows[i].get("seconds", float("inf")) > cap:
            break
        picked.add(i)
        spent += rows[i].get("seconds", 0.0)
    with open(out, "w", encoding="utf-8") as f:
        for i, r in enumerate(rows):
            if i not in picked:
                f.write(json.dumps(dict(r, netpoly_version=version)) + "\n")
    print(" ".join(str(i) for i in sorted(picked)))


def masked(r):
    return {k: v for k, v in r.items() if k not in ("seconds", "netpoly_version", "index")}


def compare(journal, fresh, picked):
    old = rows_of(journal)
    new = {r["key"]: r for r in rows_of(fresh)}
    for i in picked:
        a = masked(old[i])
        b = new.get(old[i]["key"])
        if b is None:
            print(f"row {old[i]['key']}: not re-run")
            continue
        b = masked(b)
        if a != b:
            keys = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
            print(f"row {old[i]['key']}: " + ", ".join(
                f"{k}: {json.dumps(a.get(k))[:80]} committed, {json.dumps(b.get(k))[:80]} now" for k in keys[:3]))


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "pick":
        pick(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3], [int(i) for i in sys.argv[4:]])
    else:
        sys.exit(__doc__)
