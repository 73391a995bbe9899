// The PDF canvas: a one-page PDF 1.4 file written directly — a catalog, a
// page, Helvetica (one of the 14 standard Type 1 fonts, so nothing is
// embedded), one uncompressed content stream, an info dictionary, and the
// cross-reference table with each object's byte offset.
#include <cstdio>
#include <sstream>

#include "canvas.hpp"

namespace netpoly::tables_detail {

namespace {

// A PDF string literal: ( ) \ escaped; outside printable ASCII, '?' (the
// plots' text is ASCII; WinAnsiEncoding would misread other UTF-8 bytes).
std::string pdf_string(const std::string& s) {
  std::string o = "(";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) == 0x80) continue;  // continuation bytes of a character already replaced
    if (c == '(' || c == ')' || c == '\\') o += std::string("\\") + static_cast<char>(c);
    else if (c >= 32 && c <= 126) o += static_cast<char>(c);
    else o += '?';
  }
  return o + ")";
}

std::string rgb(const Rgb& c) { return fixed2(c.r / 255.0) + " " + fixed2(c.g / 255.0) + " " + fixed2(c.b / 255.0); }

class PdfCanvas : public Canvas {
 public:
  PdfCanvas(double w, double h, const std::string& title) : Canvas(w, h), title_(title) {
    cs_ << "1 1 1 rg 0 0 " << fixed2(w) << " " << fixed2(h) << " re f\n";  // a white page
  }
  void polyline(const std::vector<Point>& pts, const Stroke& s, const std::string&) override {
    if (pts.empty()) return;
    cs_ << "q " << stroke(s);
    for (std::size_t i = 0; i < pts.size(); ++i) cs_ << point(pts[i]) << (i ? " l " : " m ");
    cs_ << "S Q\n";
  }
  void circle(Point c, double r, const Stroke& s, std::optional<Rgb> fill) override {
    // Four cubic Bezier arcs; k = 4 (sqrt 2 - 1) / 3 puts their midpoints on the circle.
    const double k = 0.5522847498 * r, x = c.first, y = h_ - c.second;
    cs_ << "q " << stroke(s) << (fill ? rgb(*fill) + " rg " : "");
    cs_ << fixed2(x + r) << " " << fixed2(y) << " m " << fixed2(x + r) << " " << fixed2(y + k) << " " << fixed2(x + k)
        << " " << fixed2(y + r) << " " << fixed2(x) << " " << fixed2(y + r) << " c " << fixed2(x - k) << " "
        << fixed2(y + r) << " " << fixed2(x - r) << " " << fixed2(y + k) << " " << fixed2(x - r) << " " << fixed2(y)
        << " c " << fixed2(x - r) << " " << fixed2(y - k) << " " << fixed2(x - k) << " " << fixed2(y - r) << " "
        << fixed2(x) << " " << fixed2(y - r) << " c " << fixed2(x + k) << " " << fixed2(y - r) << " " << fixed2(x + r)
        << " " << fixed2(y - k) << " " << fixed2(x + r) << " " << fixed2(y) << " c " << (fill ? "b" : "s") << " Q\n";
  }
  void polygon(const std::vector<Point>& pts, const Stroke& s, std::optional<Rgb> fill) override {
    if (pts.empty()) return;
    cs_ << "q " << stroke(s) << (fill ? rgb(*fill) + " rg " : "");
    for (std::size_t i = 0; i < pts.size(); ++i) cs_ << point(pts[i]) << (i ? " l " : " m ");
    cs_ << (fill ? "b" : "s") << " Q\n";  // b, s: close the path, then fill and stroke, or stroke
  }
  void text(Point at, const std::string& s, double size, Anchor a, bool vertical) override {
    const double shift = a == Anchor::start ? 0 : a == Anchor::middle ? text_width(s, size) / 2 : text_width(s, size);
    const double x = vertical ? at.first : at.first - shift, y = vertical ? h_ - at.second - shift : h_ - at.second;
    cs_ << "BT /F1 " << fixed2(size) << " Tf 0 0 0 rg " << (vertical ? "0 1 -1 0 " : "1 0 0 1 ") << fixed2(x) << " "
        << fixed2(y) << " Tm " << pdf_string(s) << " Tj ET\n";
  }
  void clip(double x, double y, double w, double h) override {
    cs_ << "q " << fixed2(x) << " " << fixed2(h_ - y - h) << " " << fixed2(w) << " " << fixed2(h) << " re W n\n";
  }
  void unclip() override { cs_ << "Q\n"; }
  std::string finish() override;

 private:
  std::string point(Point p) const { return fixed2(p.first) + " " + fixed2(h_ - p.second); }
  static std::string stroke(const Stroke& s) {
    std::string d = "[";
    for (std::size_t i = 0; i < s.dash.size(); ++i) d += (i ? " " : "") + fixed2(s.dash[i]);
    return rgb(s.colour) + " RG " + fixed2(s.width) + " w " + d + "] 0 d ";
  }
  std::string title_;
  std::ostringstream cs_;  // the page's content stream
};

std::string PdfCanvas::finish() {
  const std::string content = cs_.str();
  std::vector<std::string> objects = {
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 " + fixed2(w_) + " " + fixed2(h_) +
          "] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
      "<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "endstream",
      "<< /Title " + pdf_string(title_) + " /Producer (netpoly) >>"};
  std::string out = "%PDF-1.4\n%\xE2\xE3\xCF\xD3\n";  // the binary comment marks the file as binary
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    offsets.push_back(out.size());
    out += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
  }
  const std::size_t xref = out.size();
  out += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
  for (std::size_t off : offsets) {
    char entry[32];
    std::snprintf(entry, sizeof entry, "%010zu 00000 n \n", off);  // 20 bytes, as the format requires
    out += entry;
  }
  out += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R /Info 6 0 R >>\nstartxref\n" +
         std::to_string(xref) + "\n%%EOF\n";
  return out;
}

}  // namespace

std::unique_ptr<Canvas> make_pdf_canvas(double w, double h, const std::string& title) {
  return std::make_unique<PdfCanvas>(w, h, title);
}

}  // namespace netpoly::tables_detail
