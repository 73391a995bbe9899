// A page a plot is drawn on: lines, circles, text and a clip rectangle, in
// points (SVG: pixels) from the top left, y downwards. SVG, PGF and PDF each
// implement it in one file (canvas_svg.cpp, canvas_pgf.cpp, canvas_pdf.cpp);
// the plots (plot.cpp, budget_plot.cpp, through plot_frame.hpp) draw on it
// without knowing which.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "netpoly/table.hpp"

namespace netpoly::tables_detail {

struct Rgb {
  int r = 0, g = 0, b = 0;
};
inline bool operator==(const Rgb& a, const Rgb& b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

struct Stroke {
  Rgb colour;
  double width = 1;
  std::vector<double> dash;  // on, off, on, off ... (empty: solid)
};

using Point = std::pair<double, double>;
enum class Anchor { start, middle, end };

class Canvas {
 public:
  Canvas(double w, double h) : w_(w), h_(h) {}
  virtual ~Canvas() = default;
  double width() const { return w_; }
  double height() const { return h_; }
  // `label` names the curve where the format can carry it (SVG's <title>, a PGF comment).
  virtual void polyline(const std::vector<Point>& pts, const Stroke& s, const std::string& label = "") = 0;
  virtual void circle(Point c, double r, const Stroke& s, std::optional<Rgb> fill) = 0;
  // A closed polygon, filled or open.
  virtual void polygon(const std::vector<Point>& pts, const Stroke& s, std::optional<Rgb> fill) = 0;
  // The marker of a series (marker_shape: a circle, a square, triangles, a
  // diamond, ...) about as large as a circle of radius r.
  void marker(Point c, std::size_t shape, double r, const Stroke& s, std::optional<Rgb> fill);
  // Text on its baseline at `at`; vertical: turned 90 degrees counterclockwise.
  virtual void text(Point at, const std::string& s, double size, Anchor a = Anchor::start, bool vertical = false) = 0;
  virtual void clip(double x, double y, double w, double h) = 0;  // until unclip()
  virtual void unclip() = 0;
  virtual std::string finish() = 0;  // the file

 protected:
  double w_, h_;
};

std::unique_ptr<Canvas> make_svg_canvas(double w, double h, const std::string& title);
std::unique_ptr<Canvas> make_pgf_canvas(double w, double h, const std::string& title);
std::unique_ptr<Canvas> make_pdf_canvas(double w, double h, const std::string& title);
std::unique_ptr<Canvas> make_canvas(PlotFormat f, double w, double h, const std::string& title);

// The sizes of a plot in a format: SVG for a screen (760 px wide, 12 px
// text); PDF and PGF for a page (345 pt, the text width of LaTeX's article,
// with 8 pt text).
struct PlotStyle {
  double width, min_height, font, title_font, small_font, line_gap;
  double unit;   // line widths, dash lengths and markers scale with it (SVG 1)
  double slack;  // text may be this much wider than Helvetica's widths (the font a viewer or TeX picks)
};
PlotStyle plot_style(PlotFormat f);

// Helvetica's advance widths (the PDF's font; an estimate for SVG and PGF).
double text_width(const std::string& s, double size);
// Words of `s` in lines at most `width` wide (a longer word gets a line of its own).
std::vector<std::string> wrap_text(const std::string& s, double size, double width);

// Distinct for every index: a curve's colour, a series' marker (0: a circle;
// else the polygon's corners on the unit circle, y downwards) and a bound's
// dash pattern (in units of PlotStyle::unit).
Rgb series_colour(std::size_t i);
std::vector<Point> marker_shape(std::size_t i);
std::vector<double> dash_pattern(std::size_t i);

// A coordinate or length with two decimals ("12.50"), as PDF and PGF write them.
std::string fixed2(double x);

}  // namespace netpoly::tables_detail
