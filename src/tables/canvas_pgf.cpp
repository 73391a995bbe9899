// The PGF canvas: a pgfpicture in PGF's basic layer (what \usepackage{pgf},
// or tikz, provides), for \input in a LaTeX document. Coordinates in bp from
// the bottom left; text is set by TeX in the document's font.
#include <sstream>

#include "canvas.hpp"
#include "render_text.hpp"

namespace netpoly::tables_detail {

namespace {

class PgfCanvas : public Canvas {
 public:
  PgfCanvas(double w, double h, const std::string& title) : Canvas(w, h) {
    os_ << "% " << tex_comment(title) << "\n"
        << "% netpoly plot (PGF): \\input{this file} in a LaTeX document with \\usepackage{pgf} (or tikz).\n"
        << "\\noindent\\begin{pgfpicture}%\n"
        << "\\pgfpathrectangle{\\pgfqpoint{0bp}{0bp}}{\\pgfqpoint{" << fixed2(w) << "bp}{" << fixed2(h) << "bp}}"
        << "\\pgfusepath{use as bounding box}\n";
  }
  void polyline(const std::vector<Point>& pts, const Stroke& s, const std::string& label) override {
    if (pts.empty()) return;
    if (!label.empty()) os_ << "% " << tex_comment(label) << "\n";
    os_ << "\\begin{pgfscope}" << stroke(s);
    for (std::size_t i = 0; i < pts.size(); ++i)
      os_ << (i ? "\\pgfpathlineto" : "\\pgfpathmoveto") << point(pts[i]);
    os_ << "\\pgfusepath{stroke}\\end{pgfscope}\n";
  }
  void circle(Point c, double r, const Stroke& s, std::optional<Rgb> fill) override {
    os_ << "\\begin{pgfscope}" << stroke(s);
    if (fill) os_ << "\\definecolor{npfill}{RGB}{" << fill->r << "," << fill->g << "," << fill->b << "}\\pgfsetfillcolor{npfill}";
    os_ << "\\pgfpathcircle" << point(c) << "{" << fixed2(r) << "bp}\\pgfusepath{" << (fill ? "fill,stroke" : "stroke")
        << "}\\end{pgfscope}\n";
  }
  void polygon(const std::vector<Point>& pts, const Stroke& s, std::optional<Rgb> fill) override {
    if (pts.empty()) return;
    os_ << "\\begin{pgfscope}" << stroke(s);
    if (fill) os_ << "\\definecolor{npfill}{RGB}{" << fill->r << "," << fill->g << "," << fill->b << "}\\pgfsetfillcolor{npfill}";
    for (std::size_t i = 0; i < pts.size(); ++i)
      os_ << (i ? "\\pgfpathlineto" : "\\pgfpathmoveto") << point(pts[i]);
    os_ << "\\pgfpathclose\\pgfusepath{" << (fill ? "fill,stroke" : "stroke") << "}\\end{pgfscope}\n";
  }
  void text(Point at, const std::string& s, double size, Anchor a, bool vertical) override {
    // at= first: PGF applies the options in order, and a rotation before it would turn the shift too.
    const char* anchor = a == Anchor::start ? "left," : a == Anchor::end ? "right," : "";
    os_ << "\\pgftext[at=" << point(at) << "," << anchor << "base" << (vertical ? ",rotate=90" : "") << "]{\\fontsize{"
        << fixed2(size) << "}{" << fixed2(size * 1.2) << "}\\selectfont " << tex_escape(s) << "}\n";
  }
  void clip(double x, double y, double w, double h) override {
    os_ << "\\begin{pgfscope}\\pgfpathrectangle{\\pgfqpoint{" << fixed2(x) << "bp}{" << fixed2(h_ - y - h)
        << "bp}}{\\pgfqpoint{" << fixed2(w) << "bp}{" << fixed2(h) << "bp}}\\pgfusepath{clip}\n";
  }
  void unclip() override { os_ << "\\end{pgfscope}\n"; }
  // Each line ends in % where it would give a space: \input in a paragraph (or an \hbox) sets the
  // picture at \linewidth exactly, with no interword space after it.
  std::string finish() override { return os_.str() + "\\end{pgfpicture}%\n"; }

 private:
  std::string point(Point p) const {
    return "{\\pgfqpoint{" + fixed2(p.first) + "bp}{" + fixed2(h_ - p.second) + "bp}}";
  }
  static std::string stroke(const Stroke& s) {
    std::string o = "\\definecolor{npstroke}{RGB}{" + std::to_string(s.colour.r) + "," + std::to_string(s.colour.g) +
                    "," + std::to_string(s.colour.b) + "}\\pgfsetstrokecolor{npstroke}\\pgfsetlinewidth{" +
                    fixed2(s.width) + "bp}\\pgfsetdash{";
    for (double d : s.dash) o.append("{").append(fixed2(d)).append("bp}");
    return o + "}{0bp}";
  }
  std::ostringstream os_;
};

}  // namespace

std::unique_ptr<Canvas> make_pgf_canvas(double w, double h, const std::string& title) {
  return std::make_unique<PgfCanvas>(w, h, title);
}

}  // namespace netpoly::tables_detail
