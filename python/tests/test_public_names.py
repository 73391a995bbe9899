"""The public names, ``netpoly.__all__`` and ``netpoly.torch.__all__``, against the documented ones.

What it reads: docs/guide/python.md if it exists (the Python guide), else README.md from its level-2
heading "## Python" to the next level-2 heading. A name is documented when the text writes it
qualified, anywhere (a heading, a list, prose or a code sample): ``netpoly.NAME`` or
``netpoly.torch.NAME``, e.g. "### `netpoly.make(arch, **shape)`" or "`netpoly.torch.Rounding`".

What it checks, for netpoly and netpoly.torch:
- every name of ``__all__`` is an attribute of the module and is documented;
- every documented name is in ``__all__``, except the submodule (``netpoly.torch``), module dunders
  other than ``__version__`` (``netpoly.__file__``) and the file name ``netpoly.pth`` (the path file
  scripts/setup writes): the guide names nothing private and nothing that is not there.

The README was written before this test and leaves some public names unqualified or out; on the
README (only) those are listed below, exactly, so that the list cannot go stale. The guide gets no
such list.
"""

import re
from pathlib import Path

import pytest

import netpoly

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide" / "python.md"

NOT_NAMES = {"netpoly": {"pth", "torch"}, "netpoly.torch": set()}  # a file name; the submodule
README_UNDOCUMENTED = {
    "netpoly": {"from_json", "options", "Network", "Layer", "Poly", "GaussianRational", "Results", "Bound",
                "Report", "Rows", "LimitError", "CheckFailed", "InternalError"},
    "netpoly.torch": {"Attention", "TokenMix", "ChannelMix", "Product", "Network", "mixer", "Rounding"},
}


def documentation() -> tuple[str, str]:
    """(which file, its text about Python)."""
    if GUIDE.exists():
        return "docs/guide/python.md", GUIDE.read_text(encoding="utf-8")
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"^## Python\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert m, "README.md has no '## Python' section and docs/guide/python.md does not exist"
    return "README.md, section Python", m.group(1)


def documented(module: str, text: str) -> set:
    """The names the text writes as `module.NAME` (not preceded by a word, '.', '/' or '-')."""
    pattern = r"(?<![\w./-])" + re.escape(module) + r"\.([A-Za-z_]\w*)"
    names = set(re.findall(pattern, text))
    return {n for n in names if n not in NOT_NAMES[module] and not (n.startswith("__") and n != "__version__")}


def compare(module, name: str):
    where, text = documentation()
    public = set(module.__all__)
    assert len(public) == len(module.__all__), f"{name}.__all__ names something twice"
    missing = sorted(n for n in public if not hasattr(module, n))
    assert not missing, f"{name}.__all__ names what {name} does not have: {missing}"
    docs = documented(name, text)
    exempt = README_UNDOCUMENTED[name] if where.startswith("README") else set()
    assert exempt <= public, f"README_UNDOCUMENTED[{name!r}] names what is not public: {sorted(exempt - public)}"
    assert not exempt & docs, (f"{where} documents {sorted(exempt & docs)} now: take them off "
                               f"README_UNDOCUMENTED[{name!r}]")
    undocumented = sorted(public - docs - exempt)
    assert not undocumented, f"{where} does not write {', '.join(f'{name}.{n}' for n in undocumented)} (public)"
    unknown = sorted(docs - public)
    assert not unknown, (f"{where} documents {', '.join(f'{name}.{n}' for n in unknown)}, which "
                         f"{name}.__all__ does not list")


def test_netpoly_public_names_are_the_documented_ones():
    compare(netpoly, "netpoly")


def test_netpoly_torch_public_names_are_the_documented_ones():
    pytest.importorskip("torch")
    import netpoly.torch
    compare(netpoly.torch, "netpoly.torch")


def test_init_files_only_re_export():
    """``__init__.py`` of netpoly and netpoly.torch: a docstring, imports, ``__all__`` and the version
    assignments; the code lives in the modules by concept."""
    import ast
    for init in (ROOT / "python/netpoly/__init__.py", ROOT / "python/netpoly/torch/__init__.py"):
        for node in ast.parse(init.read_text()).body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # the docstring
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.Attribute)):
                continue  # __all__, __version__ = _netpoly.__version__, flint_version = ...
            pytest.fail(f"{init.relative_to(ROOT)}:{node.lineno}: {type(node).__name__}: an __init__.py only "
                        "re-exports")


def test_the_reading_itself():
    """The pattern on a text of known names."""
    text = ("### `netpoly.make(arch)`\nnet = netpoly.load(p); `netpoly.torch.Rounding`; "
            "build/netpoly.pth; `netpoly.__file__`; x.netpoly.fake; `netpoly.__version__`")
    assert documented("netpoly", text) == {"make", "load", "__version__"}
    assert documented("netpoly.torch", text) == {"Rounding"}
