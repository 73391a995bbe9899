"""What a researcher takes from netpoly.table into a paper (issue 53): a row that prints as one line,
tables titled as the CLI titles them, and Rows.plot(), the CLI's --plot as a matplotlib Figure.

The plot's data is checked against the rows: every plotted y value is the log3 of a certified end (or
of a bound's exact value) computed here with math.log, not read from the library."""

import copy
import html
import math
import os
import re
import shutil
import subprocess
import sys

import pytest

import netpoly

CLI = shutil.which("netpoly") or os.path.join(os.path.dirname(__file__), "..", "..", "build", "netpoly")
SWEEP = dict(layers=[1, 2], widths=[2, 3], heads=[1], tokens=[4], seeds=2, progress=False)  # 0.3 s


@pytest.fixture(scope="module")
def rows():
    return netpoly.table("attention", **SWEEP)


def log3(v):
    return math.log(v) / math.log(3)


# ---- print(row)

def test_a_row_prints_as_one_line_and_stays_a_dict(rows):
    row = rows[0]
    assert isinstance(row, dict) and isinstance(row, netpoly.Row)
    assert row["lower"] == row["upper"] == 3 and row["json"]["key"] == row["key"]  # indexed as before
    text = repr(row)
    assert str(row) == text and "\n" not in text and len(text) < 400  # the dict's repr was 4.6 KB
    assert text.startswith("<netpoly.Row attention L=1 d=2 H=1 N=4 seed=1, 16 params: sep = 3 (exact), 2nd draw 3; ")
    assert "'json'" not in text
    shown = {b["id"] for b in row["bounds"] if b["in_regime"]}
    hidden = {b["id"] for b in row["bounds"] if not b["in_regime"]}
    assert shown and hidden and all(i in text for i in shown)
    assert not any(f" {i} " in text.replace(",", " ").replace(";", " ") for i in hidden - shown)
    assert "LV Thm 3 <= 3," in text  # an exact bound, with its relation
    thm2 = next(b["log3"] for b in row["bounds"] if b["id"] == "LV Thm 2 (upper)")
    assert f"LV Thm 2 (upper) <= 3^{thm2:.6g}" in text  # a bound known by its log3
    assert len(repr(rows)) < 400 * len(rows)


def test_row_forms_of_every_status(rows):
    row = rows[0]
    bracket = netpoly.Row(row, status="bracket", lower=6970, upper=20864)
    assert "sep in [6,970, 20,864] (bracket)" in repr(bracket)
    assert "sep in [0, inf] (bracket)" in repr(netpoly.Row(row, status="bracket", lower=None, upper=None))
    prob = netpoly.Row(row, status="probabilistic", lower=365, upper=400)
    assert "sep = 365 (probabilistic; certified in [365, 400])" in repr(prob)
    assert "sep: error" in repr(netpoly.Row(row, status="error"))
    assert "degenerate: identically 0" in repr(netpoly.Row(row, degenerate="identically 0"))
    assert repr(netpoly.Row()) == "<netpoly.Row ?: sep in [0, inf] (None)>"
    odd = netpoly.Row(row, lower="x", status="exact", bounds=[{"in_regime": True, "log3": "inf"}, 5])
    assert "sep = x (exact)" in repr(odd)  # an edited row still prints
    assert type(copy.deepcopy(row)) is netpoly.Row and copy.deepcopy(row) == row


def test_a_row_in_ipython_is_its_line(rows):
    pretty = pytest.importorskip("IPython.lib.pretty")
    assert pretty.pretty(rows[0]) == repr(rows[0])
    assert repr(rows[0]) in pretty.pretty(rows)


# ---- the title

def build(text):
    """The text with the build that measured it masked ("netpoly 0.1.0 (git 1a2b3c4d5e6f-dirty, FLINT 2.9.0)")."""
    return re.sub(r"netpoly \d+\.\d+\.\d+ \([^)]*\)", "netpoly (build)", text)


def cli_markdown(tmp_path, *args):
    out = tmp_path / "t.md"
    subprocess.run([CLI, "table", *args, "-o", str(out)], check=True, capture_output=True)
    return out.read_text()


@pytest.mark.parametrize("kw, args", [
    (dict(layers=[1], widths=[2], heads=[1], tokens=[2]),
     ["--arch", "attention", "--layers", "1", "--width", "2", "--heads", "1", "--tokens", "2"]),
    (dict(arch="mixer", layers=[1], widths=[2], tokens=[2], weights="small", residual=True, partition="A=0"),
     ["--arch", "mixer", "--layers", "1", "--width", "2", "--tokens", "2", "--weights", "small", "--residual",
      "--partition", "A=0"]),
    (dict(arch=["attention", "mlp"], param_budget=[8, 16], tokens=[2], max_depth=2),
     ["--arch", "attention,mlp", "--param-budget", "8,16", "--tokens", "2", "--max-depth", "2"]),
])
def test_markdown_is_the_clis_title_included(tmp_path, kw, args):
    kw.setdefault("arch", "attention")
    rows = netpoly.table(**kw, progress=False)
    md = cli_markdown(tmp_path, *args)
    assert md.startswith("**netpoly table: ")
    mine = rows.to_markdown()
    assert mine.splitlines()[0] == md.splitlines()[0]  # the title
    assert build(mine) == build(md)  # and the same table (the CLI and the module may be built apart)
    title = md.splitlines()[0].strip("*")
    assert rows.to_latex().startswith(f"% {title}\n")
    assert rows.to_markdown(title="").startswith("| ") and rows.to_markdown(title="T").startswith("**T**\n")


def test_a_merge_of_two_sweeps_is_titled_as_the_clis(tmp_path):
    # equal budgets 8 and 16 measured apart: the merged title names both budgets, in order
    parts = []
    for b in ("16", "8"):
        subprocess.run([CLI, "table", "--arch", "attention,mlp", "--param-budget", b, "--tokens", "2", "--max-depth",
                        "2", "-o", str(tmp_path / f"b{b}.json")], check=True, capture_output=True)
        parts += netpoly.table(["attention", "mlp"], param_budget=[int(b)], tokens=[2], max_depth=2, progress=False)
    subprocess.run([CLI, "table", "--merge", str(tmp_path / "b16.json"), str(tmp_path / "b8.json"), "-o",
                    str(tmp_path / "m.md")], check=True, capture_output=True)
    merged = (tmp_path / "m.md").read_text().splitlines()[0]
    assert "budgets 8, 16 for" in merged
    assert netpoly.Rows(parts).to_markdown().splitlines()[0] == merged


def test_rows_of_unrelated_sweeps_or_without_theirs_get_the_plain_title(rows):
    other = netpoly.table("mixer", layers=[1], widths=[2], tokens=[2], progress=False)
    mixed = netpoly.Rows([rows[0], other[0]])
    assert mixed.to_markdown().startswith("**netpoly table**\n")


# ---- Rows.plot()

mpl = pytest.importorskip("matplotlib")
mpl.use("Agg")


def lines(fig):
    out = {}
    for line in fig.axes[0].lines:
        out.setdefault(line.get_label(), []).append(line)
    return out


def xy(line):
    return [(float(x), float(y)) for x, y in zip(line.get_xdata(), line.get_ydata())]


def test_plot_draws_log3_of_the_certified_ends_against_depth(rows):
    fig = rows.plot()
    assert isinstance(fig, mpl.figure.Figure)
    ax = fig.axes[0]
    assert ax.get_title() == "" and fig._suptitle is None  # no built-in title
    assert abs(fig.get_size_inches()[0] * 72 - 345) < 1e-6  # a LaTeX article's text width
    assert ax.get_xlabel() == "depth L" and ax.get_ylabel() == "log3 sep"
    got = lines(fig)
    for d in (2, 3):
        name = f"d={d} H=1 N=4"
        mine = [r for r in rows if r["config"]["width"] == d]
        first = sorted((r["config"]["layers"], log3(r["lower"])) for r in mine if r["config"]["seed"] == 1)
        assert xy(got[f"{name} measured"][0]) == pytest.approx(first)
        points = sorted(p for line in got[f"{name} point"] for p in xy(line))
        assert points == pytest.approx(sorted((r["config"]["layers"], log3(r["lower"])) for r in mine))
        for r in mine:  # a bar from the lower to the upper end for a bracket, none for an exact row
            if r["upper"] != r["lower"]:
                assert [r["config"]["layers"], log3(r["upper"])] in [list(p) for line in got[f"{name} bracket"]
                                                                    for p in xy(line)]
    top = ax.get_ylim()[1]
    assert ax.get_ylim()[0] == 0 and top >= 1.6 * max(log3(r["lower"]) for r in rows)


def test_plot_bound_curves_are_the_bounds_exact_values(rows):
    fig = rows.plot(bounds="all")
    got = lines(fig)
    checked = 0
    for r in rows:
        if r["config"]["seed"] != 1:
            continue
        name = f"d={r['config']['width']} H=1 N=4"
        for b in r["bounds"]:
            if b["kind"] in ("upper", "lower") and isinstance(b["value"], int) and b["value"] > 0:
                y = dict(xy(got[f"{b['id']} ({name})"][0]))[r["config"]["layers"]]
                # the bound's value is 3^y, or its floor when the formula's value is not an integer
                # (LV Thm 4 at d = 3 is 166.4...: the table shows "166 (floor)")
                assert math.floor(3 ** y * (1 + 1e-12)) == b["value"] and 3 ** y < b["value"] + 1
                checked += 1
    assert checked >= 8  # LV Thm 3 and 4 at each depth and width at least


def test_plot_shows_few_styles_by_default_and_the_rest_on_request(rows):
    legend = [t.get_text() for t in rows.plot().axes[0].get_legend().get_texts()]
    everything = [t.get_text() for t in rows.plot(bounds="all").axes[0].get_legend().get_texts()]
    in_regime = {b["id"] for r in rows if r["config"]["seed"] == 1 for b in r["bounds"]
                 if b["in_regime"] and b["kind"] in ("upper", "lower")}
    ids = [t for t in legend if t in in_regime]
    series = [t for t in legend if t.endswith(" measured")]
    assert len(series) == 2 and 1 <= len(ids) and len(series) + len(ids) <= 6
    assert [t for t in legend if not t.endswith(" measured") and not t.startswith(("filled", "clipped"))] == ids
    assert len(everything) > len(legend) and "LV Thm 1 (upper)" in everything  # out of regime, on request
    chosen = rows.plot(bounds=["LV Thm 4", "LV Thm 3"]).axes[0].get_legend().get_texts()
    assert [t.get_text() for t in chosen][2:4] == ["LV Thm 4", "LV Thm 3"]
    assert "LV Thm 3 (d=2 H=1 N=4)" in lines(rows.plot(bounds="LV Thm 3"))
    with pytest.raises(netpoly.InputError, match="no bound of these rows"):
        rows.plot(bounds=["LV Thm 99"])
    with pytest.raises(netpoly.InputError, match="bounds="):
        rows.plot(bounds=5)


def test_plot_draws_the_bound_curves_the_cli_draws(rows, tmp_path):
    # The same sweep through the CLI (--plot p.svg): its legend's bound entries, read from the SVG's text,
    # are Rows.plot()'s, in the same order, by default, with "all" and with a list (one rule, in plot.cpp).
    ids = {b["id"] for r in rows for b in r["bounds"]}
    for extra, bounds in (([], None), (["--bounds", "all"], "all"), (["--bounds", "LV Thm 4,LV Thm 3"],
                                                                    ["LV Thm 4", "LV Thm 3"])):
        svg = tmp_path / "p.svg"
        subprocess.run([CLI, "table", "--arch", "attention", "--layers", "1,2", "--width", "2,3", "--heads", "1",
                        "--tokens", "4", "--seeds", "2", "--plot", str(svg), "-o", str(tmp_path / "t.md"), *extra],
                       check=True, capture_output=True)
        texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg.read_text())]
        cli = [t for t in texts if t in ids]
        legend = [t.get_text() for t in rows.plot(bounds=bounds).axes[0].get_legend().get_texts()]
        assert cli and [t for t in legend if t in ids] == cli, (bounds, cli, legend)


def test_plot_of_a_width_sweep_and_into_given_axes():
    rows = netpoly.table("attention", layers=[1], widths=[2, 3, 4], heads=[1], tokens=[2], progress=False)
    fig = mpl.figure.Figure()
    ax = fig.add_subplot()
    assert rows.plot(ax=ax) is fig
    assert ax.get_xlabel() == "width d"
    assert xy(lines(fig)["L=1 H=1 N=2 measured"][0]) == pytest.approx(
        [(r["config"]["width"], log3(r["lower"])) for r in rows])


def test_plot_of_equal_budgets_is_against_parameters():
    rows = netpoly.table(["attention", "mlp"], param_budget=[8, 16], tokens=[2], max_depth=2, progress=False)
    fig = rows.plot()
    assert fig.axes[0].get_xlabel() == "parameters"
    got = lines(fig)
    for arch in ("attention", "mlp"):
        best = {}
        for r in rows:
            if r["config"]["arch"] == arch and r["lower"] is not None:
                b = best.get(r["budget"])
                if b is None or b[1] < log3(max(r["lower"], 1)):
                    best[r["budget"]] = (r["params"], log3(max(r["lower"], 1)))
        assert xy(got[f"{arch} (best per budget)"][0]) == pytest.approx(sorted(best.values()))


def test_plot_saves_as_pdf_and_svg(rows, tmp_path):
    fig = rows.plot()
    fig.savefig(tmp_path / "p.pdf")
    fig.savefig(tmp_path / "p.svg")
    assert (tmp_path / "p.pdf").read_bytes().startswith(b"%PDF") and "<svg" in (tmp_path / "p.svg").read_text()


def test_plot_without_matplotlib_names_the_package():
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "import netpoly\n"
            "rows = netpoly.table('attention', layers=[1], widths=[2], heads=[1], tokens=[2], progress=False)\n"
            "try:\n"
            "    rows.plot()\n"
            "except netpoly.Error as e:\n"
            "    assert isinstance(e, ImportError)\n"
            "    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert "Rows.plot needs matplotlib" in r.stdout and "python3-matplotlib" in r.stdout


def test_plot_refuses_what_is_no_table_row():
    with pytest.raises(netpoly.InputError, match="row 0"):
        netpoly.Rows([{"config": {}, "bounds": []}]).plot()
    with pytest.raises(netpoly.InputError, match="row 0"):
        netpoly.Rows([{"config": {"arch": "attention", "layers": 1, "width": 2, "heads": 1, "tokens": 2, "seed": 1},
                       "bounds": [], "lower": "3"}]).plot()
