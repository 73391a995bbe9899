// SVG plot of measured log3 sep against depth with the bound curves.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "netpoly/table.hpp"

namespace netpoly {

namespace {

const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
const char* kDashes[] = {"6,4", "2,3", "10,3,2,3", "1,2", "8,2", "4,4"};

double l3(std::size_t v) { return v == 0 ? 0.0 : std::log(static_cast<double>(v)) / std::log(3.0); }

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else o += c;
  }
  return o;
}

}  // namespace

std::string render_plot(const std::vector<TableRow>& rows, const std::string& title) {
  if (!rows.empty() && !rows[0].config.budget.empty()) return render_budget_plot(rows, title);
  // Series: every shape but the depth; x = depth; y = log3 sep (the certified
  // bracket as a bar, its lower end as the point; seeds are drawn side by side).
  struct Pt {
    double x, lo, hi;
    bool exact;
  };
  std::map<std::string, std::vector<Pt>> series;
  std::map<std::string, std::map<std::string, std::vector<std::pair<double, double>>>> curves;  // series -> id -> (x, log3)
  std::vector<std::string> bound_ids;
  double xmin = 1e9, xmax = -1e9, ymax = 1;
  for (const auto& r : rows) {
    if (r.status == BracketStatus::error) continue;
    const auto& p = r.config.params;
    std::string s = "d=" + std::to_string(p.width);
    if (p.arch == Arch::attention) s += " H=" + std::to_string(p.heads);
    if (p.arch != Arch::mlp) s += " N=" + std::to_string(p.tokens);
    if (p.arch == Arch::product || (p.arch == Arch::attention && p.block_degree() != 3))
      s += " k=" + std::to_string(p.block_degree());
    const double x = static_cast<double>(p.layers);
    xmin = std::min(xmin, x);
    xmax = std::max(xmax, x);
    double lo = r.lower.value ? l3(*r.lower.value) : 0.0, hi = r.upper.value ? l3(*r.upper.value) : lo;
    series[s].push_back({x, lo, hi, r.status == BracketStatus::exact});
    ymax = std::max(ymax, lo);
    if (r.config.seed != 1) continue;
    for (const auto& b : r.bounds) {
      if ((b.kind != "upper" && b.kind != "lower") || !b.defined || !std::isfinite(b.log3)) continue;
      if (std::find(bound_ids.begin(), bound_ids.end(), b.id) == bound_ids.end()) bound_ids.push_back(b.id);
      curves[s][b.id].push_back({x, b.log3});
    }
  }
  if (xmin > xmax) xmin = xmax = 1;
  if (xmax == xmin) { xmin -= 0.5; xmax += 0.5; }
  const double ytop = std::ceil(ymax * 1.6 + 1);
  const int W = 760, H = 460, L = 70, R = 200, T = 40, B = 50;
  auto X = [&](double x) { return L + (x - xmin) / (xmax - xmin) * (W - L - R); };
  auto Y = [&](double y) { return H - B - std::clamp(y, 0.0, ytop) / ytop * (H - T - B); };
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << " " << H
     << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << "<text x=\"" << W / 2 << "\" y=\"20\" text-anchor=\"middle\" font-size=\"13\">" << esc(title) << "</text>\n";
  // axes and grid
  os << "<g stroke=\"#ccc\" stroke-width=\"0.5\">\n";
  const double ystep = std::max(1.0, std::round(ytop / 8));
  for (double y = 0; y <= ytop + 1e-9; y += ystep)
    os << "<line x1=\"" << L << "\" x2=\"" << W - R << "\" y1=\"" << Y(y) << "\" y2=\"" << Y(y) << "\"/>\n";
  os << "</g>\n<g stroke=\"black\"><line x1=\"" << L << "\" y1=\"" << H - B << "\" x2=\"" << W - R << "\" y2=\"" << H - B
     << "\"/><line x1=\"" << L << "\" y1=\"" << T << "\" x2=\"" << L << "\" y2=\"" << H - B << "\"/></g>\n";
  for (double y = 0; y <= ytop + 1e-9; y += ystep)
    os << "<text x=\"" << L - 6 << "\" y=\"" << Y(y) + 4 << "\" text-anchor=\"end\">" << static_cast<long>(y) << "</text>\n";
  for (double x = std::ceil(xmin); x <= xmax + 1e-9; x += 1)
    os << "<text x=\"" << X(x) << "\" y=\"" << H - B + 16 << "\" text-anchor=\"middle\">" << static_cast<long>(x) << "</text>\n";
  os << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 12 << "\" text-anchor=\"middle\">depth L</text>\n";
  os << "<text transform=\"translate(18," << (T + H - B) / 2 << ") rotate(-90)\" text-anchor=\"middle\">log3 sep</text>\n";
  os << "<clipPath id=\"plot\"><rect x=\"" << L << "\" y=\"" << T << "\" width=\"" << W - L - R << "\" height=\"" << H - T - B
     << "\"/></clipPath>\n";
  // bound curves (dashed, in the series colour; dash pattern per bound)
  int si = 0;
  double legend_y = T + 6;
  for (const auto& [name, pts] : series) {
    const char* col = kColours[si % 8];
    os << "<g clip-path=\"url(#plot)\" fill=\"none\" stroke=\"" << col << "\" stroke-width=\"1.2\">\n";
    for (const auto& [id, cv] : curves[name]) {
      std::size_t di = static_cast<std::size_t>(std::find(bound_ids.begin(), bound_ids.end(), id) - bound_ids.begin());
      auto c = cv;
      std::sort(c.begin(), c.end());
      os << "<polyline stroke-dasharray=\"" << kDashes[di % 6] << "\" points=\"";
      for (const auto& [x, y] : c) os << X(x) << "," << Y(y) << " ";
      os << "\"><title>" << esc(id) << " (" << esc(name) << ")</title></polyline>\n";
    }
    os << "</g>\n";
    // measured: bars for brackets, dots for the lower end, a line through exact values
    std::vector<Pt> p = pts;
    std::sort(p.begin(), p.end(), [](const Pt& a, const Pt& b) { return a.x < b.x; });
    std::map<double, int> seen;
    os << "<g fill=\"" << col << "\" stroke=\"" << col << "\">\n";
    std::vector<std::pair<double, double>> line;
    for (const auto& q : p) {
      const double dx = 4.0 * seen[q.x]++;
      if (q.hi > q.lo + 1e-9)
        os << "<line stroke-width=\"2\" x1=\"" << X(q.x) + dx << "\" x2=\"" << X(q.x) + dx << "\" y1=\"" << Y(q.lo) << "\" y2=\""
           << Y(q.hi) << "\"/>\n";
      os << "<circle r=\"3.5\" cx=\"" << X(q.x) + dx << "\" cy=\"" << Y(q.lo) << "\"" << (q.exact ? "" : " fill=\"white\"")
         << "/>\n";
      if (seen[q.x] == 1) line.push_back({X(q.x), Y(q.lo)});
    }
    os << "<polyline fill=\"none\" stroke-width=\"1.5\" points=\"";
    for (const auto& [x, y] : line) os << x << "," << y << " ";
    os << "\"/>\n</g>\n";
    os << "<g><line x1=\"" << W - R + 12 << "\" x2=\"" << W - R + 32 << "\" y1=\"" << legend_y << "\" y2=\"" << legend_y
       << "\" stroke=\"" << col << "\" stroke-width=\"2\"/><text x=\"" << W - R + 36 << "\" y=\"" << legend_y + 4 << "\">"
       << esc(name) << " measured</text></g>\n";
    legend_y += 16;
    ++si;
  }
  legend_y += 6;
  for (std::size_t di = 0; di < bound_ids.size(); ++di) {
    os << "<g><line x1=\"" << W - R + 12 << "\" x2=\"" << W - R + 32 << "\" y1=\"" << legend_y << "\" y2=\"" << legend_y
       << "\" stroke=\"#555\" stroke-dasharray=\"" << kDashes[di % 6] << "\"/><text x=\"" << W - R + 36 << "\" y=\""
       << legend_y + 4 << "\">" << esc(bound_ids[di]) << "</text></g>\n";
    legend_y += 16;
  }
  os << "<text x=\"" << W - R + 12 << "\" y=\"" << legend_y + 10 << "\" font-size=\"10\">filled: exact; open: bracket/probabilistic</text>\n";
  os << "</svg>\n";
  return os.str();
}

}  // namespace netpoly
