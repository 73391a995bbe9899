// The frame both plots share (plot.cpp, budget_plot.cpp): the page laid out
// for its format (title lines, axes with ticks and labels, the legend on the
// right, notes under the plot), drawn on a canvas, with the maps from data to
// page coordinates. The data is the caller's.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "canvas.hpp"

namespace netpoly::tables_detail {

struct LegendEntry {
  std::string label;
  std::optional<Stroke> line;  // a sample of the curve; none: a note in the small font
  std::optional<std::size_t> marker = std::nullopt;  // the series' marker (marker_shape), filled, on the sample
};

struct FrameSpec {
  PlotFormat format = PlotFormat::svg;
  std::string title, xlabel, ylabel;  // the title is the file's metadata; drawn only with show_title
  bool show_title = false;
  double xmin = 0, xmax = 1, ytop = 1;  // y runs from 0 to ytop
  std::vector<double> xticks;
  std::vector<LegendEntry> legend;
  std::vector<std::string> notes;  // under the plot, wrapped
};

class PlotFrame {
 public:
  explicit PlotFrame(const FrameSpec& spec);
  const PlotStyle& style() const { return st_; }
  Canvas& canvas() { return *canvas_; }
  double X(double x) const;
  double Y(double y) const;  // not clamped: the plot's clip rectangle cuts what leaves it
  void clip_to_plot();       // until canvas().unclip()
  std::string finish() { return canvas_->finish(); }

 private:
  void layout(const FrameSpec& spec);
  void draw_axes(const FrameSpec& spec);
  void draw_legend(const FrameSpec& spec);
  PlotStyle st_;
  double W_ = 0, H_ = 0, L_ = 0, R_ = 0, T_ = 0, B_ = 0, xmin_ = 0, xmax_ = 1, ytop_ = 1;
  std::vector<std::string> title_lines_, note_lines_;
  std::vector<std::vector<std::string>> legend_lines_;  // each entry's label, wrapped
  std::unique_ptr<Canvas> canvas_;
};

// The curves that leave a plot's y range [0, ytop], each named with its series:
// Plot::clipped (one line per curve) and the plot's note (per curve name).
class ClipLog {
 public:
  void add(const std::string& curve, const std::string& series, bool above);
  bool empty() const { return entries_.empty(); }
  std::vector<std::string> lines(const std::string& ylabel, double ytop) const;
  // "Clipped above log3 sep = 14: LV Thm 3 (d=4 H=1 N=4; d=4 H=2 N=4), LV Thm 4
  // (every series). Clipped below 0: ..." (n_series: how many series there are).
  std::string note(const std::string& ylabel, double ytop, std::size_t n_series) const;

 private:
  struct Entry {
    std::string curve, series;
    bool above;
  };
  std::vector<Entry> entries_;
};

// A stroke of `width` and `dash` in units of the style (PlotStyle::unit).
Stroke styled(const PlotStyle& st, Rgb colour, double width, const std::vector<double>& dash = {});

}  // namespace netpoly::tables_detail
