// The SVG canvas: one <svg> element, pixels from the top left.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "canvas.hpp"
#include "runtime/limits.hpp"
#include "render_text.hpp"

namespace netpoly::tables_detail {

namespace {

std::string num(double x) { return format_fixed(std::clamp(x, -1e7, 1e7), 1); }

std::string colour(const Rgb& c) {
  char b[8];
  std::snprintf(b, sizeof b, "#%02x%02x%02x", c.r & 255, c.g & 255, c.b & 255);
  return b;
}

std::string stroke_attrs(const Stroke& s) {
  std::string a = " stroke=\"" + colour(s.colour) + "\" stroke-width=\"" + num(s.width) + "\"";
  if (!s.dash.empty()) {
    std::string d;
    for (double x : s.dash) d.append(d.empty() ? "" : ",").append(num(x));
    a += " stroke-dasharray=\"" + d + "\"";
  }
  return a;
}

class SvgCanvas : public Canvas {
 public:
  SvgCanvas(double w, double h, const std::string& title) : Canvas(w, h) {
    os_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(w) << "\" height=\"" << num(h)
        << "\" viewBox=\"0 0 " << num(w) << " " << num(h) << "\" font-family=\"Helvetica, Arial, sans-serif\">\n"
        << "<title>" << xml_text(title) << "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  }
  void polyline(const std::vector<Point>& pts, const Stroke& s, const std::string& label) override {
    os_ << "<polyline fill=\"none\"" << stroke_attrs(s) << " points=\"";
    for (const auto& [x, y] : pts) os_ << num(x) << "," << num(y) << " ";
    os_ << "\">";
    if (!label.empty()) os_ << "<title>" << xml_text(label) << "</title>";
    os_ << "</polyline>\n";
  }
  void circle(Point c, double r, const Stroke& s, std::optional<Rgb> fill) override {
    os_ << "<circle cx=\"" << num(c.first) << "\" cy=\"" << num(c.second) << "\" r=\"" << num(r) << "\" fill=\""
        << (fill ? colour(*fill) : std::string("none")) << "\"" << stroke_attrs(s) << "/>\n";
  }
  void polygon(const std::vector<Point>& pts, const Stroke& s, std::optional<Rgb> fill) override {
    os_ << "<polygon fill=\"" << (fill ? colour(*fill) : std::string("none")) << "\"" << stroke_attrs(s) << " points=\"";
    for (const auto& [x, y] : pts) os_ << num(x) << "," << num(y) << " ";
    os_ << "\"/>\n";
  }
  void text(Point at, const std::string& s, double size, Anchor a, bool vertical) override {
    const char* anchor = a == Anchor::start ? "start" : a == Anchor::middle ? "middle" : "end";
    os_ << "<text font-size=\"" << num(size) << "\" text-anchor=\"" << anchor << "\"";
    if (vertical) os_ << " transform=\"translate(" << num(at.first) << "," << num(at.second) << ") rotate(-90)\">";
    else os_ << " x=\"" << num(at.first) << "\" y=\"" << num(at.second) << "\">";
    os_ << xml_text(s) << "</text>\n";
  }
  void clip(double x, double y, double w, double h) override {
    const std::string id = "clip" + std::to_string(++clips_);
    os_ << "<clipPath id=\"" << id << "\"><rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(w)
        << "\" height=\"" << num(h) << "\"/></clipPath>\n<g clip-path=\"url(#" << id << ")\">\n";
  }
  void unclip() override { os_ << "</g>\n"; }
  std::string finish() override { return os_.str() + "</svg>\n"; }

 private:
  std::ostringstream os_;
  int clips_ = 0;
};

}  // namespace

std::unique_ptr<Canvas> make_svg_canvas(double w, double h, const std::string& title) {
  return std::make_unique<SvgCanvas>(w, h, title);
}

}  // namespace netpoly::tables_detail
