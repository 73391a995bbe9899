// The plot of a sweep: measured log3 sep against depth, one series per shape
// but the depth, with the bound curves of the first seed's rows (the series'
// colour, one dash pattern per bound), in SVG, PDF or PGF. A sweep of one
// depth over several widths is drawn against the width d instead (one series
// per shape but the width), so a width sweep across a transition is a curve,
// not a column of dots. Curves that leave the y range are clipped and named,
// in the plot and on stderr.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <set>

#include "runtime/io.hpp"
#include "netpoly/table.hpp"
#include "plot_frame.hpp"

namespace netpoly {

using namespace tables_detail;

namespace {

double l3(std::size_t v) { return v == 0 ? 0.0 : std::log(static_cast<double>(v)) / std::log(3.0); }

// The series' name: the shape but the x axis's parameter (depth, or width).
std::string series_name(const NetworkShape& p, bool by_width) {
  std::string s = by_width ? "L=" + std::to_string(p.layers) : "d=" + std::to_string(p.width);
  if (p.arch == Arch::attention) s += " H=" + std::to_string(p.heads);
  if (p.arch != Arch::mlp) s += " N=" + std::to_string(p.tokens);
  if (p.arch == Arch::product || (p.arch == Arch::attention && p.block_degree() != 3))
    s += " k=" + std::to_string(p.block_degree());
  return s;
}

struct Pt {
  double x, lo, hi;
  bool exact;
};

// What the plot shows, collected from the rows.
struct DepthData {
  std::map<std::string, std::vector<Pt>> series;
  std::vector<std::string> order;  // the series in sweep order: each one's colour and marker
  std::map<std::string, std::map<std::string, std::vector<std::pair<double, double>>>> curves;  // series -> id -> (x, log3)
  std::vector<std::string> bound_ids;  // one dash pattern each, in this order
  double xmin = 1e9, xmax = -1e9, ymax = 1;
  bool by_width = false;  // the x axis is the width d (one depth, several widths), else the depth L
};

// One depth and several widths among the rows that are drawn.
bool width_sweep(const std::vector<TableRow>& rows) {
  std::set<std::size_t> depths, widths;
  for (const auto& r : rows) {
    if (r.status == BracketStatus::error) continue;
    depths.insert(r.config.params.layers);
    widths.insert(r.config.params.width);
  }
  return depths.size() == 1 && widths.size() > 1;
}

DepthData collect(const std::vector<TableRow>& rows, const TableView& view) {
  DepthData d;
  d.bound_ids = view.bounds;
  d.by_width = width_sweep(rows);
  std::vector<const TableRow*> sorted;
  for (const auto& r : rows) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const TableRow* a, const TableRow* b) { return a->config.index < b->config.index; });
  for (const TableRow* rp : sorted) {
    const TableRow& r = *rp;
    if (r.status == BracketStatus::error) continue;
    const std::string s = series_name(r.config.params, d.by_width);
    if (!d.series.count(s)) d.order.push_back(s);
    const double x = static_cast<double>(d.by_width ? r.config.params.width : r.config.params.layers);
    d.xmin = std::min(d.xmin, x);
    d.xmax = std::max(d.xmax, x);
    const double lo = r.lower.value ? l3(*r.lower.value) : 0.0, hi = r.upper.value ? l3(*r.upper.value) : lo;
    d.series[s].push_back({x, lo, hi, r.status == BracketStatus::exact});
    d.ymax = std::max(d.ymax, lo);
    if (r.config.seed != 1) continue;
    for (const auto& b : r.bounds) {
      if ((b.kind != "upper" && b.kind != "lower") || !b.defined || std::isnan(b.log3)) continue;
      const bool chosen = std::find(d.bound_ids.begin(), d.bound_ids.end(), b.id) != d.bound_ids.end();
      if (!view.bounds.empty() && !chosen) continue;
      if (!chosen) d.bound_ids.push_back(b.id);
      d.curves[s][b.id].push_back({x, b.log3});
    }
  }
  // A chosen bound that is no curve here (an order, a degree, another architecture's) gets no legend entry.
  std::vector<std::string> drawn;
  for (const auto& id : d.bound_ids)
    for (const auto& [name, ids] : d.curves)
      if (ids.count(id) && std::find(drawn.begin(), drawn.end(), id) == drawn.end()) drawn.push_back(id);
  d.bound_ids = drawn;
  if (view.bounds.empty() && !view.all_bounds) {
    // A paper's default (Rows.plot's too): the bounds in regime for some row and above 1 there, the first
    // max(2, 6 - series) of them, so that the figure keeps about six styles; --bounds gives others.
    std::vector<std::string> keep;
    for (const auto& id : d.bound_ids) {
      bool shown = false;
      for (const auto& r : rows)
        for (const auto& b : r.bounds) shown = shown || (b.id == id && b.in_regime && b.defined && b.log3 > 0);
      if (shown && keep.size() < std::max<std::size_t>(2, d.order.size() < 6 ? 6 - d.order.size() : 0))
        keep.push_back(id);
    }
    d.bound_ids = keep;
    for (auto& [name, ids] : d.curves)
      for (auto it = ids.begin(); it != ids.end();)
        it = std::find(keep.begin(), keep.end(), it->first) == keep.end() ? ids.erase(it) : std::next(it);
  }
  if (d.xmin > d.xmax) d.xmin = d.xmax = 1;
  if (d.xmax == d.xmin) {
    d.xmin -= 0.5;
    d.xmax += 0.5;
  }
  return d;
}

}  // namespace

std::vector<std::string> plot_bounds(const std::vector<TableRow>& rows, const TableView& view) {
  return collect(rows, view).bound_ids;
}

Plot render_plot(const std::vector<TableRow>& rows, const std::string& title, PlotFormat f, const TableView& view) {
  if (!rows.empty() && !rows[0].config.budget.empty()) return render_budget_plot(rows, title, f, view);
  const DepthData d = collect(rows, view);
  // Room for the measured values, and for the bound curves up to 3x their
  // height (the comparison is the point; a bound far above is clipped, named).
  double curves_top = 0;
  for (const auto& [name, ids] : d.curves)
    for (const auto& [id, pts] : ids)
      for (const auto& [x, y] : pts)
        if (std::isfinite(y)) curves_top = std::max(curves_top, y);
  const double ytop = std::ceil(std::max(d.ymax * 1.6 + 1, std::min(curves_top, d.ymax * 3 + 1)));
  const std::string ylabel = "log3 sep";
  // What leaves [0, ytop]: bound curves (an infinite value too), and measured brackets' upper ends.
  ClipLog clipped;
  for (const auto& [name, ids] : d.curves)
    for (const auto& [id, pts] : ids)
      for (const auto& [x, y] : pts)
        if (y > ytop || y < 0) clipped.add(id, name, y > ytop);
  for (const auto& [name, pts] : d.series)
    for (const auto& q : pts)
      if (q.hi > ytop)
        clipped.add("the measured bracket of " + name + (d.by_width ? " at d=" : " at L=") +
                        std::to_string(static_cast<long>(q.x)),
                    "", true);
  FrameSpec spec;
  spec.format = f;
  spec.title = title;
  spec.xlabel = d.by_width ? "width d" : "depth L";
  spec.ylabel = ylabel;
  spec.xmin = d.xmin;
  spec.xmax = d.xmax;
  spec.ytop = ytop;
  // Integer ticks, at most about 12: a step of 1, 2, 5, 10, 20, 50, ... (a width sweep can span thousands).
  double step = 1;
  for (double m = 1; (d.xmax - d.xmin) / step > 12; m *= 10)
    for (double f : {1.0, 2.0, 5.0})
      if ((d.xmax - d.xmin) / step > 12) step = f * m;
  for (double x = std::ceil(d.xmin / step) * step; x <= d.xmax + 1e-9; x += step) spec.xticks.push_back(x);
  const PlotStyle st = plot_style(f);
  // The legend lists the series top to bottom as they end on the right (the
  // largest x's lower end, the highest first; ties in sweep order), so that
  // it reads like the plot; each with its colour and marker.
  auto last = [&](const std::string& name) {
    const Pt* best = nullptr;
    for (const auto& q : d.series.at(name))
      if (!best || q.x > best->x || (q.x == best->x && q.lo > best->lo)) best = &q;
    return best ? std::make_pair(best->x, best->lo) : std::make_pair(0.0, 0.0);
  };
  std::vector<std::size_t> legend(d.order.size());
  for (std::size_t k = 0; k < legend.size(); ++k) legend[k] = k;
  std::stable_sort(legend.begin(), legend.end(), [&](std::size_t a, std::size_t b) {
    const auto la = last(d.order[a]), lb = last(d.order[b]);
    return la.second > lb.second + 1e-12;
  });
  for (std::size_t k : legend) {
    spec.legend.push_back({d.order[k] + " measured", styled(st, series_colour(k), 2), k});
  }
  for (std::size_t di = 0; di < d.bound_ids.size(); ++di)
    spec.legend.push_back({d.bound_ids[di], styled(st, {85, 85, 85}, 1, dash_pattern(di))});
  spec.legend.push_back({"filled: exact; open: bracket/probabilistic", std::nullopt});
  if (!clipped.empty()) spec.notes.push_back(clipped.note(ylabel, ytop, d.series.size()));
  PlotFrame frame(spec);
  Canvas& c = frame.canvas();
  for (std::size_t si = 0; si < d.order.size(); ++si) {
    const std::string& name = d.order[si];
    const auto& pts = d.series.at(name);
    const Rgb col = series_colour(si);
    frame.clip_to_plot();
    if (auto it = d.curves.find(name); it != d.curves.end())
      for (const auto& [id, cv] : it->second) {
        const std::size_t di = static_cast<std::size_t>(std::find(d.bound_ids.begin(), d.bound_ids.end(), id) - d.bound_ids.begin());
        auto pts_sorted = cv;
        std::sort(pts_sorted.begin(), pts_sorted.end());
        std::vector<Point> line;
        for (const auto& [x, y] : pts_sorted)
          if (std::isfinite(y)) line.push_back({frame.X(x), frame.Y(y)});
        c.polyline(line, styled(st, col, 1.2, dash_pattern(di)), id + " (" + name + ")");
      }
    // measured: bars for brackets, dots for the lower end, a line through the first seed's lower ends
    std::vector<Pt> p = pts;
    std::stable_sort(p.begin(), p.end(), [](const Pt& a, const Pt& b) { return a.x < b.x; });
    std::map<double, int> seen;
    std::vector<Point> line, dots;
    for (const auto& q : p) {
      const double dx = 4.0 * st.unit * seen[q.x]++;
      if (q.hi > q.lo + 1e-9) c.polyline({{frame.X(q.x) + dx, frame.Y(q.lo)}, {frame.X(q.x) + dx, frame.Y(q.hi)}}, styled(st, col, 2));
      dots.push_back({frame.X(q.x) + dx, frame.Y(q.lo)});
      if (seen[q.x] == 1) line.push_back({frame.X(q.x), frame.Y(q.lo)});
    }
    c.unclip();
    c.polyline(line, styled(st, col, 1.5), name + " measured");
    for (std::size_t k = 0; k < p.size(); ++k)
      c.marker(dots[k], si, 3.5 * st.unit, styled(st, col, 1), p[k].exact ? col : Rgb{255, 255, 255});
  }
  return {frame.finish(), clipped.lines(ylabel, ytop)};
}

void write_plot(const std::string& path, const std::vector<TableRow>& rows, const std::string& title,
                const TableView& view) {
  const Plot p = render_plot(rows, title, plot_format_for(path), view);
  write_file_atomic(path, p.text);
  if (p.clipped.empty()) return;
  std::cerr << "netpoly: plot " << path << ": " << p.clipped.size()
            << " curve(s) leave the y range and are clipped (the plot notes them):\n";
  for (const auto& line : p.clipped) std::cerr << "  " << line << "\n";
}

}  // namespace netpoly
