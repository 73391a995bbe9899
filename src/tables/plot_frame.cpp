#include "plot_frame.hpp"

#include <algorithm>
#include <cmath>

namespace netpoly::tables_detail {

Stroke styled(const PlotStyle& st, Rgb colour, double width, const std::vector<double>& dash) {
  Stroke s{colour, width * st.unit, dash};
  for (double& d : s.dash) d *= st.unit;
  return s;
}

PlotFrame::PlotFrame(const FrameSpec& spec) : st_(plot_style(spec.format)) {
  layout(spec);
  canvas_ = make_canvas(spec.format, W_, H_, spec.title);
  draw_axes(spec);
  draw_legend(spec);
}

void PlotFrame::layout(const FrameSpec& spec) {
  const double u = st_.unit;  // margins scale with the style
  W_ = st_.width;
  xmin_ = spec.xmin;
  xmax_ = spec.xmax > spec.xmin ? spec.xmax : spec.xmin + 1;
  ytop_ = spec.ytop > 0 ? spec.ytop : 1;
  // The legend: its widest label decides its width, up to 40% of the page
  // (longer labels wrap).
  const double sample = 2 * st_.font, lead = 12 * u + sample + 4 * u;
  double widest = 0;
  for (const auto& e : spec.legend)
    widest = std::max(widest, st_.slack * text_width(e.label, e.line ? st_.font : st_.small_font));
  R_ = std::min(lead + widest + 8 * u, 0.4 * W_);
  double legend_h = 6 * u;
  for (const auto& e : spec.legend) {
    const double size = e.line ? st_.font : st_.small_font;
    legend_lines_.push_back(wrap_text(e.label, size, (R_ - lead - 4 * u) / st_.slack));
    legend_h += (e.line ? st_.line_gap : st_.small_font * 1.3) * static_cast<double>(legend_lines_.back().size()) +
                (e.line ? 0 : 4 * u);
  }
  // A paper's figure has its caption: no title is drawn unless asked for (the file's metadata keeps it).
  if (spec.show_title) title_lines_ = wrap_text(spec.title, st_.title_font, (W_ - 20 * u) / st_.slack);
  for (const auto& n : spec.notes)
    for (const auto& line : wrap_text(n, st_.small_font, (W_ - 20 * u) / st_.slack)) note_lines_.push_back(line);
  L_ = 4.5 * st_.font + 16 * u;
  T_ = 8 * u + st_.title_font * 1.25 * static_cast<double>(title_lines_.size()) + 10 * u;
  B_ = st_.font * 3.4 + 8 * u + st_.small_font * 1.3 * static_cast<double>(note_lines_.size());
  H_ = std::max(st_.min_height, T_ + B_ + std::max(0.55 * st_.min_height, legend_h));
}

double PlotFrame::X(double x) const { return L_ + (x - xmin_) / (xmax_ - xmin_) * (W_ - L_ - R_); }
double PlotFrame::Y(double y) const { return H_ - B_ - y / ytop_ * (H_ - T_ - B_); }

void PlotFrame::clip_to_plot() { canvas_->clip(L_, T_, W_ - L_ - R_, H_ - T_ - B_); }

void PlotFrame::draw_axes(const FrameSpec& spec) {
  Canvas& c = *canvas_;
  const double u = st_.unit;
  double y = 8 * u + st_.title_font;
  for (const auto& line : title_lines_) {
    c.text({W_ / 2, y}, line, st_.title_font, Anchor::middle);
    y += st_.title_font * 1.25;
  }
  const Stroke grid = styled(st_, {204, 204, 204}, 0.5), axis = styled(st_, {0, 0, 0}, 1);
  const double ystep = std::max(1.0, std::round(ytop_ / 8));
  for (double t = 0; t <= ytop_ + 1e-9; t += ystep) {
    c.polyline({{L_, Y(t)}, {W_ - R_, Y(t)}}, grid);
    c.text({L_ - 6 * u, Y(t) + st_.font / 3}, std::to_string(static_cast<long>(t)), st_.font, Anchor::end);
  }
  c.polyline({{L_, H_ - B_}, {W_ - R_, H_ - B_}}, axis);
  c.polyline({{L_, T_}, {L_, H_ - B_}}, axis);
  for (double t : spec.xticks) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", t);
    c.text({X(t), H_ - B_ + st_.font * 1.35}, b, st_.font, Anchor::middle);
  }
  c.text({(L_ + W_ - R_) / 2, H_ - B_ + st_.font * 2.9}, spec.xlabel, st_.font, Anchor::middle);
  c.text({st_.font * 1.5, (T_ + H_ - B_) / 2}, spec.ylabel, st_.font, Anchor::middle, true);
  double ny = H_ - B_ + st_.font * 3.4 + 4 * u + st_.small_font;
  for (const auto& line : note_lines_) {
    c.text({10 * u, ny}, line, st_.small_font);
    ny += st_.small_font * 1.3;
  }
}

void PlotFrame::draw_legend(const FrameSpec& spec) {
  Canvas& c = *canvas_;
  const double u = st_.unit, sample = 2 * st_.font, x0 = W_ - R_ + 12 * u;
  double y = T_ + 6 * u;
  for (std::size_t i = 0; i < spec.legend.size(); ++i) {
    const auto& e = spec.legend[i];
    if (e.line) {
      c.polyline({{x0, y}, {x0 + sample, y}}, *e.line);
      if (e.marker) c.marker({x0 + sample / 2, y}, *e.marker, 3.5 * u, *e.line, e.line->colour);
      for (const auto& line : legend_lines_[i]) {
        c.text({x0 + sample + 4 * u, y + st_.font / 3}, line, st_.font);
        y += st_.line_gap;
      }
    } else {
      y += 4 * u;
      for (const auto& line : legend_lines_[i]) {
        c.text({x0, y + st_.small_font / 3}, line, st_.small_font);
        y += st_.small_font * 1.3;
      }
    }
  }
}

void ClipLog::add(const std::string& curve, const std::string& series, bool above) {
  for (const auto& e : entries_)
    if (e.curve == curve && e.series == series && e.above == above) return;
  entries_.push_back({curve, series, above});
}

namespace {

std::string range_end(const std::string& ylabel, double ytop, bool above) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", above ? ytop : 0.0);
  return (above ? "above " : "below ") + ylabel + " = " + b;
}

}  // namespace

std::vector<std::string> ClipLog::lines(const std::string& ylabel, double ytop) const {
  std::vector<std::string> out;
  for (const auto& e : entries_)
    out.push_back(e.curve + (e.series.empty() ? "" : " (" + e.series + ")") + ": " + range_end(ylabel, ytop, e.above));
  return out;
}

std::string ClipLog::note(const std::string& ylabel, double ytop, std::size_t n_series) const {
  std::string out;
  for (bool above : {true, false}) {
    std::vector<std::string> curves;  // in order of appearance
    for (const auto& e : entries_)
      if (e.above == above && std::find(curves.begin(), curves.end(), e.curve) == curves.end()) curves.push_back(e.curve);
    if (curves.empty()) continue;
    std::string part;
    for (const auto& c : curves) {
      std::vector<std::string> series;
      for (const auto& e : entries_)
        if (e.above == above && e.curve == c && !e.series.empty()) series.push_back(e.series);
      std::string s;
      for (const auto& x : series) s += (s.empty() ? "" : "; ") + x;
      if (n_series > 1 && series.size() == n_series) s = "every series";
      part += (part.empty() ? "" : ", ") + c + (s.empty() ? "" : " (" + s + ")");
    }
    out += (out.empty() ? "" : " ") + std::string("Clipped ") + range_end(ylabel, ytop, above) + ": " + part + ".";
  }
  return out;
}

}  // namespace netpoly::tables_detail
