// What every canvas shares: the choice of backend, the sizes per format, text
// metrics (Helvetica's), and the colours and dash patterns of curves.
#include "canvas.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "netpoly/error.hpp"
#include "runtime/limits.hpp"

namespace netpoly {

PlotFormat plot_format_for(const std::string& path) {
  const auto dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  if (ext == "svg") return PlotFormat::svg;
  if (ext == "pdf") return PlotFormat::pdf;
  if (ext == "pgf") return PlotFormat::pgf;
  throw InputError("--plot " + path + ": expected a file ending in .svg, .pdf or .pgf");
}

namespace tables_detail {

std::unique_ptr<Canvas> make_canvas(PlotFormat f, double w, double h, const std::string& title) {
  switch (f) {
    case PlotFormat::pdf: return make_pdf_canvas(w, h, title);
    case PlotFormat::pgf: return make_pgf_canvas(w, h, title);
    case PlotFormat::svg: break;
  }
  return make_svg_canvas(w, h, title);
}

PlotStyle plot_style(PlotFormat f) {
  if (f == PlotFormat::svg) return {760, 460, 12, 13, 10, 16, 1, 1.15};
  // 345 TeX points (article's \textwidth) = 343.71 big points, the unit of PDF and of the PGF canvas:
  // a page of 345 bp was 346.3 pt, 1.29 pt wider than \linewidth (an overfull box).
  return {345 * 72.0 / 72.27, 230, 8, 9, 7, 10, 0.6, f == PlotFormat::pgf ? 1.1 : 1.0};
}

namespace {

// Helvetica (Adobe's AFM), characters 32..126, in 1/1000 of the font size.
const short kHelvetica[95] = {
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,  // space .. /
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,  // 0 .. ?
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,  // @ .. O
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,   // P .. _
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,   // ` .. o
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584};       // p .. ~

}  // namespace

double text_width(const std::string& s, double size) {
  double w = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) == 0x80) continue;  // a UTF-8 continuation byte: counted with its lead
    w += c >= 32 && c <= 126 ? kHelvetica[c - 32] : 556;
  }
  return w * size / 1000.0;
}

std::vector<std::string> wrap_text(const std::string& s, double size, double width) {
  std::vector<std::string> lines;
  std::string line, word;
  auto flush_word = [&]() {
    if (word.empty()) return;
    if (!line.empty() && text_width(line + " " + word, size) > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    word.clear();
  };
  for (char c : s) {
    if (c == ' ') flush_word();
    else word += c;
  }
  flush_word();
  if (!line.empty()) lines.push_back(line);
  return lines;
}

Rgb series_colour(std::size_t i) {
  static const Rgb kPalette[] = {{31, 119, 180}, {214, 39, 40},  {44, 160, 44},  {148, 103, 189}, {255, 127, 14},
                                 {140, 86, 75},  {227, 119, 194}, {23, 190, 207}, {188, 189, 34},  {60, 60, 60}};
  if (i < 10) return kPalette[i];
  // Beyond the palette: hues spread by the golden angle, lightness alternating.
  const double h = std::fmod(0.13 + 0.618033988749895 * static_cast<double>(i), 1.0) * 6;
  const double v = i % 2 ? 0.55 : 0.8, c = v * 0.85, x = c * (1 - std::fabs(std::fmod(h, 2.0) - 1)), m = v - c;
  double r = 0, g = 0, b = 0;
  switch (static_cast<int>(h)) {
    case 0: r = c, g = x; break;
    case 1: r = x, g = c; break;
    case 2: g = c, b = x; break;
    case 3: g = x, b = c; break;
    case 4: r = x, b = c; break;
    default: r = c, b = x; break;
  }
  return {static_cast<int>((r + m) * 255), static_cast<int>((g + m) * 255), static_cast<int>((b + m) * 255)};
}

std::vector<Point> marker_shape(std::size_t i) {
  if (i == 0) return {};
  // (corners, angle of the first corner in degrees, radius): a square, a triangle up, a diamond, a triangle
  // down, a pentagon, triangles right and left, a hexagon; beyond the list, polygons of ever more corners.
  struct Poly {
    int n;
    double angle, radius;
  };
  static const Poly kPolys[] = {{4, 45, 1.25}, {3, 90, 1.35}, {4, 0, 1.35}, {3, -90, 1.35},
                                {5, 90, 1.15}, {3, 0, 1.35},  {3, 180, 1.35}, {6, 0, 1.1}};
  const std::size_t listed = sizeof kPolys / sizeof kPolys[0];
  const Poly p = i <= listed ? kPolys[i - 1] : Poly{static_cast<int>(i - listed) + 6, 90, 1.1};
  std::vector<Point> pts;
  for (int k = 0; k < p.n; ++k) {
    const double a = (p.angle + 360.0 * k / p.n) * M_PI / 180;
    pts.push_back({p.radius * std::cos(a), -p.radius * std::sin(a)});
  }
  return pts;
}

void Canvas::marker(Point c, std::size_t shape, double r, const Stroke& s, std::optional<Rgb> fill) {
  const auto unit = marker_shape(shape);
  if (unit.empty()) return circle(c, r, s, fill);
  std::vector<Point> pts;
  for (const auto& [x, y] : unit) pts.push_back({c.first + r * x, c.second + r * y});
  polygon(pts, s, fill);
}

std::vector<double> dash_pattern(std::size_t i) {
  static const std::vector<std::vector<double>> kDashes = {
      {6, 3}, {2, 2}, {10, 3, 2, 3}, {1, 3}, {12, 4}, {6, 2, 1, 2, 1, 2}, {3, 5}, {14, 3, 3, 3},
      {8, 2, 1, 2, 1, 2, 1, 2}, {18, 3}};
  if (i < kDashes.size()) return kDashes[i];
  // Beyond the list: a long dash of its own length (longer than every listed
  // first dash), then two dots.
  return {20 + 2 * static_cast<double>(i - kDashes.size()), 3, 1, 3, 1, 3};
}

std::string fixed2(double x) {
  // PDF and PGF take no exponents: a coordinate far off any page is clamped, never written cut or as 1e+20.
  return format_fixed(std::clamp(x, -1e7, 1e7), 2);
}

}  // namespace tables_detail
}  // namespace netpoly
