"""scripts/check-layout on files written here, at the limits: a file of 600 lines and a function of
120 pass, one line more fails, naming the file, the function and its first line. (The tree itself is
checked by ctest's `layout`.)"""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check-layout"


def run(*paths):
    r = subprocess.run([sys.executable, str(SCRIPT), *map(str, paths)], capture_output=True, text=True)
    return r.returncode, r.stdout


def python_def(name, lines, indent=""):
    """A def of exactly `lines` lines."""
    body = [f"{indent}    x = {k}" for k in range(lines - 2)]
    return [f"{indent}def {name}():", *body, f"{indent}    return x"]


def write(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return path


def test_python_file_length(tmp_path):
    ok = write(tmp_path / "ok.py", ["x = 1"] * 600)
    assert run(ok) == (0, f"layout: 1 files of {ok}: every file at most 600 lines, every function at most 120\n")
    long = write(tmp_path / "long.py", ["x = 1"] * 601)
    assert run(long) == (1, f"{long}: 601 lines (at most 600)\n")


def test_python_function_length(tmp_path):
    ok = write(tmp_path / "ok.py", ["@staticmethod", *python_def("f", 120)])  # decorators do not count
    assert run(ok)[0] == 0
    f = write(tmp_path / "f.py", ["import os", "", *python_def("f", 121)])
    assert run(f) == (1, f"{f}:3: f is 121 lines (at most 120)\n")


def test_python_methods_and_nested_defs(tmp_path):
    # a method is checked on its own; a nested def counts towards the def around it, which is reported
    inner = python_def("inner", 100, "    ")
    lines = ["class C:", *python_def("method", 121, "    "), "",
             "def outer():", *inner, *[f"    y = {k}" for k in range(20)], "    return inner",
             "", "async def co():", *[f"    await x{k}" for k in range(121)]]
    p = write(tmp_path / "m.py", lines)
    code, out = run(p)
    assert code == 1
    assert out.splitlines() == [f"{p}:2: method is 121 lines (at most 120)",
                                f"{p}:124: outer is 122 lines (at most 120)",
                                f"{p}:247: co is 122 lines (at most 120)"]


def test_cpp_function_length(tmp_path):
    body = [f"    x += {k};" for k in range(118)]
    long = write(tmp_path / "long.cpp", ["int f(int x) {", *body, "    return x;", "}"])  # 121 lines
    assert run(long) == (1, f"{long}:1: f is 121 lines (at most 120)\n")
    fine = write(tmp_path / "fine.cpp", ["int f(int x) {", *body[1:], "    return x;", "}"])
    assert run(fine)[0] == 0

