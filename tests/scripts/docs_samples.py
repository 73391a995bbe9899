#!/usr/bin/env python3
"""Runs every command sample and every Python block of README.md,
docs/guide/*.md and proofs/README.md and compares their output with the
output shown (ctest: docs_samples).

The convention (docs/guide/development.md, "Tested samples"):

* A sample is a fenced block marked ```console. In it, a line starting with
  `$ ` is a command (a trailing `\\` continues it on the next line); the lines
  up to the next command are its output as shown. Commands run in bash, in a
  scratch directory of their document (files written by one sample are there
  for the next ones) holding copies of the repository's `proofs/`, `tests/`,
  `examples/` and `docs/` (so that paths print as from the repository's root), with this build's directory first on PATH (so
  `netpoly` is the build's `netpoly`). Standard output and standard error are
  compared together, in the order written.
* A fenced block marked ```python is a program: it runs on its own, with
  /usr/bin/python3 (NETPOLY_DOCS_PYTHON overrides; `none`: a build without
  the Python module, where the blocks are reported as not run) and
  PYTHONPATH=BINDIR/python
  (the build's package), in the same scratch directory as the document's
  console samples (files written by an earlier block or sample are there).
  It must exit 0. A ```output block directly after it (blank lines
  between are fine) is what it prints, standard output and standard error
  together; without one, it must print nothing.
* In the output shown, a line `...` (alone on its line, any indentation)
  stands for any number of lines, none included.
* Both sides are masked before comparing: durations (`0.038 s`, `(26.7 s)`,
  `12 ms`), memory sizes (`822 MiB`), the build (`0.1.0 (git 0430ad9e06d5,
  FLINT 2.9.0)` -> `0.1.0 (...)`), a black-box seed drawn at random, and
  trailing white space.
* An HTML comment directly before a block (blank lines between are fine)
  configures it:
    <!-- docs-sample: not run: REASON -->   the block is not run (a reason
                                            is required; printed in the log)
    <!-- docs-sample: file NAME
    ...content...
    -->                                     writes NAME in the scratch
                                            directory first (a fixture the
                                            text does not show)
* A fenced block of another kind that contains a `$ ` line is an error:
  every shown command is a sample or says why it is not run. So is an
  ```output block that follows no ```python block.

Usage: docs_samples.py ROOT BINDIR [FILE.md ...]  (default: README.md,
docs/guide/*.md, proofs/README.md). Exit 0 when every sample matches, 1
otherwise.
"""
import difflib, glob, os, re, shutil, subprocess, sys, tempfile, time

PYTHON = os.environ.get("NETPOLY_DOCS_PYTHON", "/usr/bin/python3")


def default_docs(root):
    guide = sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "guide", "*.md")))
    return ["README.md"] + guide + ["proofs/README.md"]


LINKS = ["proofs", "tests", "examples", "docs"]
TIMEOUT = 120

MASKS = [
    (re.compile(r"\d+\.\d+\.\d+ \((git [0-9a-f]+(-dirty)?, )?FLINT [0-9.]+\)"), "VERSION"),
    (re.compile(r"black-box seed \d+ \(drawn at random"), "black-box seed S (drawn at random"),
    (re.compile(r"\b\d+(\.\d+)?(e[-+]?\d+)? ?(s|ms|us|min)\b"), "T"),
    (re.compile(r"\b\d+(\.\d+)? ?(B|KiB|MiB|GiB|kB|MB|GB)\b"), "M"),
]


def mask(line):
    for rx, rep in MASKS:
        line = rx.sub(rep, line)
    return line.rstrip()


class Block:
    def __init__(self, doc, line, lang, body, directives, adjacent=False):
        self.doc, self.line, self.lang, self.body = doc, line, lang, body
        self.adjacent = adjacent  # only blank lines since the previous block
        self.skip = None
        self.files = []
        for d in directives:
            m = re.match(r"docs-sample:\s*not run:\s*(\S.*)", d, re.S)
            f = re.match(r"docs-sample:\s*file\s+(\S+)[ \t]*\n(.*)", d, re.S)
            if m:
                self.skip = " ".join(m.group(1).split())
            elif f:
                self.files.append((f.group(1), f.group(2)))
            elif d.startswith("docs-sample"):
                raise SystemExit(f"{doc}:{line}: unknown directive <!-- {d} -->")


def blocks(doc, text):
    """The fenced blocks of a markdown file, with the docs-sample comments
    directly before each."""
    lines = text.split("\n")
    out, pending, i, prose = [], [], 0, True
    while i < len(lines):
        s = lines[i]
        if s.startswith("<!--"):
            j = i
            while "-->" not in lines[j]:
                j += 1
            raw = "\n".join(lines[i:j + 1])
            body = raw[4:raw.rindex("-->")].lstrip(" ")
            if body.startswith("docs-sample"):
                pending.append(body if "\n" in body else body.strip())
            i = j + 1
            continue
        m = re.match(r"^```(\w*)\s*$", s)
        if m:
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            out.append(Block(doc, i + 1, m.group(1), lines[i + 1:j], pending, adjacent=not prose))
            pending, i, prose = [], j + 1, False
            continue
        if s.strip() and pending:
            raise SystemExit(f"{doc}:{i + 1}: a docs-sample comment must come directly before its block")
        prose = prose or bool(s.strip())
        i += 1
    return out


def commands(block):
    """[(command, [output lines])] of a console block."""
    out, k, body = [], 0, block.body
    while k < len(body):
        if not body[k].startswith("$ "):
            raise SystemExit(f"{block.doc}:{block.line + 1 + k}: output before the first command")
        cmd = body[k][2:]
        while cmd.endswith("\\"):
            k += 1
            cmd = cmd[:-1] + "\n" + body[k]
        k += 1
        shown = []
        while k < len(body) and not body[k].startswith("$ "):
            shown.append(body[k])
            k += 1
        out.append((cmd, shown))
    return out


def matches(shown, actual):
    """Whether the masked lines `actual` fit `shown`, where a line `...`
    stands for any lines."""
    pats = [None if s.strip() == "..." else s for s in shown]
    memo = {}

    def go(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(pats):
            r = j == len(actual)
        elif pats[i] is None:
            r = go(i + 1, j) or (j < len(actual) and go(i, j + 1))
        else:
            r = j < len(actual) and pats[i] == actual[j] and go(i + 1, j + 1)
        memo[(i, j)] = r
        return r

    sys.setrecursionlimit(100000)
    return go(0, 0)


def execute(argv, work, env):
    """(output, exit code or "timeout", seconds) of one command."""
    t0 = time.time()
    try:
        p = subprocess.run(argv, cwd=work, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
        out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
    except subprocess.TimeoutExpired:
        out, rc = "", "timeout"
    return out, rc, time.time() - t0


def compare(where, what, shown, out, rc, dt, must_succeed):
    """Prints ok/FAIL for one run; returns 1 on a failure, else 0."""
    actual = [mask(l) for l in out.split("\n")]
    while actual and not actual[-1]:
        actual.pop()
    expect = [mask(l) for l in shown]
    while expect and not expect[-1]:
        expect.pop()
    if rc == "timeout" or rc == 70 or (isinstance(rc, int) and rc > 128) or (must_succeed and rc != 0):
        print(f"FAIL {where}: {what}: exit {rc} ({dt:.1f} s)\n{out}")
        return 1
    if matches(expect, actual):
        print(f"ok   {where}: {what}  ({dt:.1f} s, exit {rc})")
        return 0
    print(f"FAIL {where}: {what}  ({dt:.1f} s, exit {rc}): output differs (- shown, + actual, masked)")
    for l in difflib.unified_diff(expect, actual, "shown", "actual", lineterm="", n=2):
        print("    " + l)
    return 1


def run_doc(root, bindir, doc):
    text = open(os.path.join(root, doc), encoding="utf-8").read()
    work = tempfile.mkdtemp(prefix="docs-samples-")
    for name in LINKS:
        shutil.copytree(os.path.join(root, name), os.path.join(work, name), symlinks=True)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""),
               LC_ALL="C.UTF-8", COLUMNS="80")
    env.pop("NETPOLY_SEED", None)
    pyenv = dict(env, PYTHONPATH=os.path.join(bindir, "python"), PYTHONDONTWRITEBYTECODE="1")
    failures, ran, skipped = 0, 0, 0
    try:
        bs = blocks(doc, text)
        for k, b in enumerate(bs):
            where = f"{doc}:{b.line}"
            has_cmd = any(l.startswith("$ ") for l in b.body)
            if b.lang == "output":
                if k == 0 or bs[k - 1].lang != "python" or not b.adjacent:
                    print(f"FAIL {where}: an ```output block must come directly after a ```python block")
                    failures += 1
                continue
            if b.lang not in ("console", "python"):
                if has_cmd and not b.skip:
                    print(f"FAIL {where}: a block with `$ ` commands must be ```console (or not run, with a reason)")
                    failures += 1
                continue
            if b.skip:
                print(f"skip {where}: not run: {b.skip}")
                skipped += 1
                continue
            for name, content in b.files:
                with open(os.path.join(work, name), "w", encoding="utf-8") as f:
                    f.write(content)
            if b.lang == "python" and PYTHON == "none":
                print(f"skip {where}: not run: this build has no Python module")
                skipped += 1
                continue
            if b.lang == "python":
                nxt = bs[k + 1] if k + 1 < len(bs) else None
                shown = nxt.body if nxt is not None and nxt.lang == "output" and nxt.adjacent else []
                script = os.path.join(work, ".docs-sample.py")
                with open(script, "w", encoding="utf-8") as f:
                    f.write("\n".join(b.body) + "\n")
                out, rc, dt = execute([PYTHON, script], work, pyenv)
                os.unlink(script)
                ran += 1
                failures += compare(where, f"python block ({len(b.body)} lines)", shown, out, rc, dt, True)
                continue
            for cmd, shown in commands(b):
                out, rc, dt = execute(["bash", "-c", cmd], work, env)
                ran += 1
                failures += compare(where, "$ " + " ".join(cmd.split()), shown, out, rc, dt, False)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return failures, ran, skipped


def prose_counts(root):
    """Counts written in prose, against the repository: proofs/README.md's "runs all N claims of the
    M files" (the claims and .np files of proofs/). Returns the failures (0 or more)."""
    import glob
    import re
    files = sorted(glob.glob(os.path.join(root, "proofs", "*.np")))
    claims = sum(len(re.findall(r"^claim ", open(f, encoding="utf-8").read(), re.M)) for f in files)
    text = open(os.path.join(root, "proofs", "README.md"), encoding="utf-8").read()
    m = re.search(r"runs all (\d+) claims of the (\d+) files", text)
    if not m:
        print("FAIL proofs/README.md: no 'runs all N claims of the M files' to check")
        return 1
    if (int(m.group(1)), int(m.group(2))) != (claims, len(files)):
        print(f"FAIL proofs/README.md says {m.group(1)} claims in {m.group(2)} files; proofs/ has {claims} "
              f"claims in {len(files)} files")
        return 1
    print(f"ok   proofs/README.md: {claims} claims in {len(files)} files, as proofs/ has")
    return 0


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    root, bindir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    docs = sys.argv[3:] or default_docs(root)
    t0 = time.time()
    total = [0, 0, 0]
    for doc in docs:
        t1 = time.time()
        for k, v in enumerate(run_doc(root, bindir, doc)):
            total[k] += v
        print(f"{doc}: {time.time() - t1:.1f} s")
    f, r, s = total
    if not sys.argv[3:]:  # the whole set: the prose counts too
        f += prose_counts(root)
    if r == 0:
        print("FAIL: no ```console sample or ```python block found (a test that cannot fail is no test)")
        f += 1
    print(f"docs samples: {r} commands and Python blocks run, {s} blocks not run, {f} failed "
          f"({len(docs)} documents, {time.time() - t0:.1f} s)")
    return 1 if f else 0


if __name__ == "__main__":
    sys.exit(main())
