"""A call that needs an optional package that is not installed (a bare venv) raises a netpoly error
that names the extra to install (pyproject.toml's optional dependencies), not a raw ImportError from
inside netpoly nor an InternalError. Each case runs in a subprocess where the package cannot be
imported (sys.modules[name] = None, as Python's import system reads it)."""

import os
import subprocess
import sys

import pytest

CASES = {
    "sympy": "netpoly.make('attention', layers=1, width=1, heads=1, tokens=2, seed=1).expand().to_sympy()",
    "pandas": "netpoly.Rows([]).to_pandas()",
    "matplotlib": "netpoly.Rows([]).plot()",
    "torch": "import netpoly.torch",
    "numpy": "import netpoly.torch",
}


@pytest.mark.parametrize("extra", list(CASES))
def test_a_missing_optional_package_names_the_extra(extra):
    if extra == "numpy":
        pytest.importorskip("torch")  # netpoly.torch checks torch first, then NumPy
    code = (f"import sys; sys.modules[{extra!r}] = None\n"
            "import netpoly\n"
            "try:\n"
            f"    {CASES[extra]}\n"
            "except netpoly.Error as e:\n"
            "    assert isinstance(e, ImportError), type(e)\n"
            "    print(type(e).__name__, e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("MissingExtra "), r.stdout
    assert f"pip install 'netpoly[{extra}]'" in r.stdout, r.stdout
