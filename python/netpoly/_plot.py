"""``Rows.plot()``: the plot of ``netpoly table --plot`` (src/tables/plot.cpp, budget_plot.cpp) as a
matplotlib Figure. matplotlib is imported only here, when a plot is asked for.

What it draws, as the CLI does: log3 of the certified lower end against the depth L (against the width d
when the rows have one depth and several widths), one series per shape but that axis (its colour and
marker; filled: exact, open: bracket or probabilistic; a bar up to the upper end of a bracket; a line
through the first seed's lower ends), and the bound curves of the first seed's rows (the series' colour,
one dash pattern per bound). Equal-budget rows are drawn against the parameter count, one colour per
architecture, a line through each budget's best shape and, dashed, its smallest upper bound in regime.
The y axis runs from 0 as the CLI's does; what leaves it is named under the plot."""

from __future__ import annotations

import math
import textwrap

from . import _netpoly
from ._api import _short, json_data, names_arg, optional
from ._netpoly import InputError

# canvas.cpp's series_colour (the first ten), marker_shape and dash_pattern, in matplotlib's terms
_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
            "#3c3c3c"]
_MARKERS = ["o", "s", "^", "D", "v", "p", ">", "<", "h", "8", "*", "H"]
_DASHES = [(6, 3), (2, 2), (10, 3, 2, 3), (1, 3), (12, 4), (6, 2, 1, 2, 1, 2), (3, 5), (14, 3, 3, 3),
           (8, 2, 1, 2, 1, 2, 1, 2), (18, 3)]
_GREY = "#555555"
_WIDTH_PT = 345  # the text width of LaTeX's article, as the CLI's PDF


def _colour(i: int) -> str:
    return _COLOURS[i % len(_COLOURS)]


def _dash(i: int) -> tuple:
    return (0, _DASHES[i] if i < len(_DASHES) else (20 + 2 * (i - len(_DASHES)), 3, 1, 3, 1, 3))


def _l3(v) -> float:
    return 0.0 if not v else math.log(v) / math.log(3)


def _matplotlib():
    optional("matplotlib", "Rows.plot")  # MissingExtra naming netpoly[matplotlib] when it is not installed
    from matplotlib.figure import Figure
    return Figure


def _series_name(c: dict, by_width: bool) -> str:
    """plot.cpp's series_name: the shape but the x axis's parameter."""
    s = f"L={c['layers']}" if by_width else f"d={c['width']}"
    arch, k = c.get("arch"), c.get("degree") or (3 if c.get("arch") == "attention" else 2)
    if arch == "attention":
        s += f" H={c['heads']}"
    if arch != "mlp":
        s += f" N={c['tokens']}"
    if arch == "product" or (arch == "attention" and k != 3):
        s += f" k={k}"
    return s


def _checked(rows) -> list:
    """The rows that are drawn (error rows are not), each checked to be one of netpoly.table's."""
    out = []
    for i, r in enumerate(rows):
        c = r.get("config") if isinstance(r, dict) else None
        ok = isinstance(c, dict) and isinstance(r.get("bounds"), list) and \
            all(_count(c.get(k)) for k in ("layers", "width", "heads", "tokens", "seed")) and \
            all(r.get(k) is None or _count(r[k]) for k in ("lower", "upper", "params")) and \
            all(isinstance(b, dict) and isinstance(b.get("id"), str) for b in r["bounds"]) and \
            isinstance(c.get("arch"), str) and isinstance(r.get("budget", ""), str) and \
            isinstance(r.get("json"), dict) and \
            (c.get("degree") is None or _count(c["degree"]))
        if not ok:
            raise InputError(f"Rows.plot: row {i}: expected a row of netpoly.table (a dict with its 'config', "
                             f"'bounds', its 'json', and 'lower', 'upper' and 'params' whole numbers or None), "
                             f"got {_short(r)}")
        if r.get("status") != "error":
            out.append(r)
    return sorted(out, key=lambda r: r.get("index", 0) if isinstance(r.get("index"), int) else 0)


def _bound_ids(rows, bounds) -> list:
    """The bound curves drawn, in order (one dash pattern each): plot.cpp's choice (plot_bounds), by default
    the bounds in regime and above 1 for some row, at most max(2, 6 - series) of them; ``bounds`` checked
    here first, so that an unknown id is named as ``Rows.plot`` was given it."""
    chosen = None if bounds is None or (isinstance(bounds, str) and bounds == "all") else _chosen(rows, bounds)
    cli_rows = "[" + ",".join(json_data(r["json"], f"Rows.plot: row {i}: its json") for i, r in enumerate(rows)) + "]"
    return _netpoly.plot_bounds(cli_rows, "all" if chosen is None and bounds is not None else chosen)


def _chosen(rows, bounds) -> list:
    """The ids of ``bounds=`` (a list), each a bound of some row (as --bounds checks them)."""
    ids = names_arg(bounds, "Rows.plot: bounds=:", "bound")
    known = list(dict.fromkeys(b.get("id") for r in rows for b in r["bounds"]))
    for i in ids:
        if i not in known:
            raise InputError(f"Rows.plot: bounds=: {i!r} is no bound of these rows (they have: {', '.join(known)})")
    return ids


def _count(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**64  # a size_t, as the library writes


def _finite(v) -> bool:
    return isinstance(v, float) and math.isfinite(v) or \
        isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2**1000


def _figure(ax, Figure):
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=(_WIDTH_PT / 72, _WIDTH_PT / 72 * 0.62), layout="constrained")
    return fig, fig.add_subplot()


def _finish(fig, ax, xlabel: str, ylabel: str, ytop: float, handles, clipped: tuple):
    from matplotlib.lines import Line2D
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.set_ylim(0, ytop)
    ax.tick_params(labelsize=7)
    ax.grid(True, color="#dddddd", linewidth=0.5)
    above, below = clipped
    notes = ([f"clipped above {ytop:g}: {', '.join(above)}"] if above else []) + \
        ([f"clipped below 0: {', '.join(below)}"] if below else [])
    for note in notes:  # in the legend, where no layout puts it over the axes' labels
        handles.append(Line2D([], [], linestyle="none", label=textwrap.fill(note, 44)))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=6.5, frameon=False,
              handlelength=3)
    _show_in_notebook(type(fig))
    return fig


def _show_in_notebook(figure_type) -> None:
    """In Jupyter a Figure made without pyplot (pyplot would show it twice: once as the value, once at the
    cell's end) has no PNG display until the inline backend registers one: register it."""
    from ._progress import _in_notebook
    if not _in_notebook():
        return
    from IPython import get_ipython
    from IPython.core.pylabtools import print_figure
    png = get_ipython().display_formatter.formatters["image/png"]
    try:
        png.lookup_by_type(figure_type)
    except KeyError:
        png.for_type(figure_type, lambda fig: print_figure(fig, "png"))


def plot_rows(rows, bounds, ax):
    if not (bounds is None or bounds == "all" or isinstance(bounds, (str, list, tuple))):
        raise InputError(f"Rows.plot: bounds=: expected None, 'all' or a list of bound ids, got {_short(bounds)}")
    Figure = _matplotlib()
    drawn = _checked(rows)
    if rows and rows[0].get("budget"):  # plot.cpp: the first row says which plot
        return _budget_plot(drawn, bounds, ax, Figure)
    return _depth_plot(drawn, bounds, ax, Figure)


def _depth_plot(rows, bounds, ax, Figure):
    """plot.cpp's render_plot."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator
    from matplotlib.transforms import offset_copy
    by_width = len({r["config"]["layers"] for r in rows}) == 1 and len({r["config"]["width"] for r in rows}) > 1
    series = {}  # name -> [(x, lo, hi, exact, seed-1 row or None)], in sweep order
    for r in rows:
        x = r["config"]["width" if by_width else "layers"]
        lo = _l3(r.get("lower"))
        hi = _l3(r["upper"]) if r.get("upper") is not None else lo
        series.setdefault(_series_name(r["config"], by_width), []).append(
            (x, lo, hi, r.get("status") == "exact", r if r["config"]["seed"] == 1 else None))
    ids = _bound_ids(rows, bounds)
    curves = {name: {i: sorted((p[0], _bound_log3(p[4], i)) for p in pts if _bound_log3(p[4], i) is not None)
                     for i in ids} for name, pts in series.items()}
    ymax = max([1.0] + [p[1] for pts in series.values() for p in pts])
    top = max([0.0] + [y for cs in curves.values() for c in cs.values() for _, y in c if math.isfinite(y)])
    ytop = math.ceil(max(ymax * 1.6 + 1, min(top, ymax * 3 + 1)))
    fig, ax = _figure(ax, Figure)
    clipped = ([], [])  # above ytop, below 0
    for si, (name, pts) in enumerate(series.items()):
        colour, marker = _colour(si), _MARKERS[si % len(_MARKERS)]
        for di, i in enumerate(ids):
            c = [(x, y) for x, y in curves[name][i] if math.isfinite(y)]
            ys = [y for _, y in curves[name][i]]
            for k, out in enumerate((any(y > ytop for y in ys), any(y < 0 for y in ys))):
                if out and i not in clipped[k]:
                    clipped[k].append(i)
            if c:
                ax.plot(*zip(*c), color=colour, linewidth=0.8, linestyle=_dash(di), label=f"{i} ({name})")
        pts = sorted(pts, key=lambda p: p[0])
        seen = {}
        for x, lo, hi, exact, _ in pts:
            k = seen[x] = seen.get(x, -1) + 1  # the k-th seed at x: 4 points to the right, as the CLI's
            at = offset_copy(ax.transData, fig=fig, x=3 * k, units="points")
            if hi > lo + 1e-9:
                ax.plot([x, x], [lo, hi], color=colour, linewidth=1.4, transform=at, label=f"{name} bracket")
            ax.plot([x], [lo], marker=marker, markersize=4, color=colour, linestyle="none", transform=at,
                    markerfacecolor=colour if exact else "white", label=f"{name} point", clip_on=False)
        first = {}  # the line through the first seed's lower ends
        for x, lo, hi, *_ in pts:
            first.setdefault(x, lo)
            if hi > ytop:
                clipped[0].append(f"the measured bracket of {name} at {'d' if by_width else 'L'}={x}")
        ax.plot(list(first), list(first.values()), color=colour, linewidth=1.1, label=f"{name} measured")
    xs = [p[0] for pts in series.values() for p in pts] or [1]
    lo_x, hi_x = (min(xs) - 0.5, max(xs) + 0.5) if min(xs) == max(xs) else (min(xs), max(xs))
    ax.set_xlim(lo_x - 0.02 * (hi_x - lo_x), hi_x + 0.02 * (hi_x - lo_x))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    last = {name: max(pts, key=lambda p: (p[0], p[1]))[1] for name, pts in series.items()}
    order = sorted(range(len(series)), key=lambda k: -last[list(series)[k]])  # as the series end on the right
    handles = [Line2D([], [], color=_colour(k), marker=_MARKERS[k % len(_MARKERS)], markersize=4, linewidth=1.1,
                      label=f"{list(series)[k]} measured") for k in order]
    handles += [Line2D([], [], color=_GREY, linewidth=0.8, linestyle=_dash(di), label=i) for di, i in enumerate(ids)]
    handles.append(Line2D([], [], linestyle="none", label="filled: exact; open: bracket/probabilistic"))
    return _finish(fig, ax, "width d" if by_width else "depth L", "log3 sep", ytop, handles, clipped)


def _bound_log3(row, bound_id):
    """The log3 of a bound of a first-seed row (None for other seeds, and where it is not defined)."""
    if row is None:
        return None
    for b in row["bounds"]:
        if b.get("id") == bound_id and b.get("kind") in ("upper", "lower"):
            lg = b.get("log3")
            if isinstance(lg, str) and lg in ("inf", "-inf"):
                return float(lg)
            return float(lg) if _finite(lg) else None
    return None


def _budget_plot(rows, bounds, ax, Figure):
    """budget_plot.cpp's render_budget_plot: log3 of the lower end against parameters, per architecture."""
    from matplotlib.lines import Line2D
    chosen = None if bounds is None or bounds == "all" else set(_chosen(rows, bounds))
    pts, best, ub = {}, {}, {}  # arch -> [(x, lo, hi, exact)]; arch -> budget -> (x, lo); arch -> budget -> (x, log3)
    for r in rows:
        if r.get("lower") is None or not isinstance(r.get("params"), int):
            continue
        a, budget, x = r["config"]["arch"], r["budget"], r["params"]
        lo = max(0.0, _l3(r["lower"]))
        hi = max(lo, _l3(r["upper"])) if r.get("upper") is not None else lo
        pts.setdefault(a, []).append((x, lo, hi, r.get("status") == "exact"))
        b = best.setdefault(a, {}).get(budget)
        if b is None or b[1] < lo:
            best[a][budget] = (x, lo)
            ups = [b["log3"] for b in r["bounds"] if b.get("kind") == "upper" and b.get("in_regime") and
                   _finite(b.get("log3")) and (chosen is None or b.get("id") in chosen)]
            if ups:
                ub.setdefault(a, {})[budget] = (x, min(ups))
            else:
                ub.get(a, {}).pop(budget, None)
    ymax = max([1.0] + [p[1] for ps in pts.values() for p in ps])
    xmax = max([1] + [p[0] for ps in pts.values() for p in ps]) * 1.05
    ytop = math.ceil(ymax * 1.5 + 1)
    fig, ax = _figure(ax, Figure)
    handles, clipped = [], ([], [])
    for si, a in enumerate(sorted(pts)):
        colour, marker = _colour(si), _MARKERS[si % len(_MARKERS)]
        for x, lo, hi, exact in pts[a]:
            if hi > lo + 1e-9:
                ax.plot([x, x], [lo, hi], color=colour, linewidth=1.4, label=f"{a} bracket")
            ax.plot([x], [lo], marker=marker, markersize=4, color=colour, linestyle="none",
                    markerfacecolor=colour if exact else "white", label=f"{a} point", clip_on=False)
        ax.plot(*zip(*sorted(best[a].values())), color=colour, linewidth=1.1, label=f"{a} (best per budget)")
        handles.append(Line2D([], [], color=colour, marker=marker, markersize=4, label=f"{a} (best per budget)"))
        if ub.get(a):
            ax.plot(*zip(*sorted(ub[a].values())), color=colour, linewidth=0.8, linestyle=_dash(0),
                    label=f"{a}: smallest upper bound")
            handles.append(Line2D([], [], color=colour, linewidth=0.8, linestyle=_dash(0),
                                  label=f"{a}: smallest upper bound"))
            ys = [y for _, y in ub[a].values()]
            for k, out in enumerate((any(y > ytop for y in ys), any(y < 0 for y in ys))):
                if out:
                    clipped[k].append(f"{a}: smallest upper bound")
        clipped[0].extend(f"the measured bracket of {a} at {x} params" for x, lo, hi, _ in pts[a] if hi > ytop)
    ax.set_xlim(0, xmax)
    handles.append(Line2D([], [], linestyle="none", label="filled: exact; open: bracket (bar to the upper end)"))
    return _finish(fig, ax, "parameters", "log3 sep (certified lower end)", ytop, handles, clipped)
