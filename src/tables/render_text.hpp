// Text helpers the table renderers share (render.cpp, budget.cpp): CSV
// quoting, LaTeX escaping and numbers as siunitx reads them, log3 of a
// measured rank, and the bound columns of a table.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "netpoly/table.hpp"
#include "runtime/text_escape.hpp"

namespace netpoly::tables_detail {

// One escaping function per output format, for every string a table or plot
// writes (titles, method names, messages, ids: many come from a shard or a
// journal, which are input): csv_quote, md_escape, tex_escape and
// tex_comment, xml_text (SVG; text_escape.hpp, shared with JUnit), pdf_string
// (canvas_pdf.cpp). Each starts from printable() (text_escape.hpp): control
// characters, invalid UTF-8 and the noncharacters shown as escapes, on one line.

// A CSV field: a text that a spreadsheet would run as a formula (a first
// character = + - @, tab or CR; OWASP's list) is prefixed with ' unless it is
// a number (-3 stays -3); quoted (quotes doubled) when it holds a comma,
// quote, CR or newline.
inline bool is_decimal(const std::string& s);
inline std::string csv_quote(const std::string& in) {
  std::string s = in;
  const bool number = is_decimal(s) || s == "-inf" || s == "+inf";
  if (!s.empty() && std::string("=+-@\t\r").find(s[0]) != std::string::npos && !number) s = "'" + s;
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// Markdown text (a table cell, a bold title): control characters visible, and
// \ ` * _ < > | escaped with a backslash, and the ( of "](", so a string can
// neither end its cell nor become emphasis, HTML, an autolink or an inline
// link or image ("y[0][0]" stays as it is).
inline std::string md_escape(const std::string& s) {
  std::string o;
  for (char c : printable(s)) {
    if (std::string("\\`*_<>|").find(c) != std::string::npos || (c == '(' && !o.empty() && o.back() == ']')) o += '\\';
    o += c;
  }
  return o;
}

// LaTeX text: control characters visible (a newline would end a comment or
// a row), invalid UTF-8 as \xff (printable()), _ & % # $ { } escaped, ^ and ~ as accents' text
// forms, \ as \textbackslash{}, < and > in math mode.
inline std::string tex_escape(const std::string& s) {
  std::string o;
  for (char c : printable(s)) {  // a byte that is not UTF-8 would stop a LaTeX run: shown as \xff
    if (c == '_' || c == '&' || c == '%' || c == '#' || c == '$' || c == '{' || c == '}') o += std::string("\\") + c;
    else if (c == '^') o += "\\^{}";
    else if (c == '~') o += "\\~{}";
    else if (c == '\\') o += "\\textbackslash{}";
    else if (c == '<' || c == '>') o += std::string("\\(") + c + "\\)";
    else o += c;
  }
  return o;
}

// The text of a LaTeX or PGF comment line ("% " + this): one line, whatever
// s holds, so nothing of it is read as TeX.
inline std::string tex_comment(const std::string& s) { return printable(s); }

// A bound's four CSV fields (value, log3, in_regime, violated); empty when
// the row has no cell for it.
inline void append_bound_csv(std::vector<std::string>& v, const BoundCell* b) {
  std::string l3;
  if (b && b->defined) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", b->log3);
    l3 = buf;
  }
  v.push_back(b ? (b->exact ? *b->exact : b->value) : "");
  v.push_back(l3);
  v.push_back(b ? (b->in_regime ? "true" : "false") : "");
  v.push_back(b ? (b->violated ? "true" : "false") : "");
}

// A decimal number: [-]digits[.digits][e[+-]digits].
inline bool is_decimal(const std::string& s) {
  std::size_t i = 0, n = s.size();
  auto digits = [&]() {
    const std::size_t start = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (i < n && (s[i] == '-' || s[i] == '+')) ++i;
  if (!digits()) return false;
  if (i < n && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '-' || s[i] == '+')) ++i;
    if (!digits()) return false;
  }
  return i == n;
}

// A number for LaTeX: \num{...} (siunitx) when it is one, escaped text otherwise.
inline std::string tex_num(const std::string& s) { return is_decimal(s) ? "\\num{" + s + "}" : tex_escape(s); }

// A bound's display value (format_value) for LaTeX: "1594323" -> \num{1594323};
// "3^6.52372" -> \(3^{\num{6.52372}}\) ("3^inf" -> \(3^{\infty}\)); "1.23457e20
// (21 digits)" -> \num{1.23457e20} (21 digits); "undefined" as text.
inline std::string tex_bound_value(const std::string& v) {
  if (v.rfind("3^", 0) == 0) {
    const std::string x = v.substr(2);
    const std::string e = is_decimal(x) ? "\\num{" + x + "}" : x == "inf" ? "\\infty" : x == "-inf" ? "-\\infty" : "\\mbox{" + tex_escape(x) + "}";
    return "\\(3^{" + e + "}\\)";
  }
  const auto sp = v.find(' ');
  const std::string head = v.substr(0, sp), rest = sp == std::string::npos ? "" : v.substr(sp);
  return is_decimal(head) ? "\\num{" + head + "}" + tex_escape(rest) : tex_escape(v);
}

// A bracket's table text for LaTeX: \num{5}, \num{5} (prob.), [\num{3}, \num{7}], error.
inline std::string tex_bracket(const Bracket& b) {
  auto end = [](const std::optional<std::size_t>& v, const char* none) {
    return v ? "\\num{" + std::to_string(*v) + "}" : std::string(none);
  };
  switch (b.status) {
    case BracketStatus::exact: return end(b.lower.value, "?");
    case BracketStatus::probabilistic: return end(b.lower.value, "?") + " (prob.)";
    case BracketStatus::error: return "error";
    case BracketStatus::bracket: break;
  }
  return "{[}" + end(b.lower.value, "\\num{0}") + ", " + end(b.upper.value, "\\(\\infty\\)") + "{]}";
}

// log3 of a measured rank (-inf for 0).
inline double log3_of(std::size_t v) {
  return v == 0 ? -HUGE_VAL : std::log(static_cast<double>(v)) / std::log(3.0);
}

// The bound columns of a table: the view's ids in its order, or every id of
// the rows in order of appearance; each with its kind ("" if no row has it).
struct BoundColumns {
  std::vector<std::string> ids, kinds;
};
inline BoundColumns bound_columns(const std::vector<TableRow>& rows, const TableView& view) {
  BoundColumns c;
  auto kind_of = [&](const std::string& id) {
    for (const auto& r : rows)
      for (const auto& b : r.bounds)
        if (b.id == id) return b.kind;
    return std::string();
  };
  if (!view.bounds.empty()) {
    c.ids = view.bounds;
  } else {
    // Every bound (--bounds all), else a paper's: the upper and lower bounds on
    // sep in regime for some row (not the degree, not AO's Theta), and every
    // bound a certified measurement contradicts.
    for (const auto& r : rows)
      for (const auto& b : r.bounds)
        if ((view.all_bounds || b.violated || ((b.kind == "upper" || b.kind == "lower") && b.in_regime)) &&
            std::find(c.ids.begin(), c.ids.end(), b.id) == c.ids.end())
          c.ids.push_back(b.id);
    if (!view.all_bounds) {  // in the registry's order, as --bounds all shows them
      std::vector<std::string> ordered;
      for (const auto& r : rows)
        for (const auto& b : r.bounds)
          if (std::find(c.ids.begin(), c.ids.end(), b.id) != c.ids.end() &&
              std::find(ordered.begin(), ordered.end(), b.id) == ordered.end())
            ordered.push_back(b.id);
      c.ids = ordered;
    }
  }
  for (const auto& id : c.ids) c.kinds.push_back(kind_of(id));
  return c;
}

// A row's cell for a bound id (nullptr when the bound does not apply to it).
inline const BoundCell* cell_for(const TableRow& r, const std::string& id) {
  for (const auto& b : r.bounds)
    if (b.id == id) return &b;
  return nullptr;
}

// A LaTeX tabular that fits the text width: set in a box, and shrunk to
// \linewidth (\resizebox, graphicx) only when it is wider, so a narrow table
// keeps its size and a wide one (12 columns are about 510 pt, an article's
// text 345 pt) no longer runs into the margin. Without graphicx the table
// keeps its natural width, as before. A fitted table starts its line (no
// paragraph indent: it is \linewidth wide). Between tex_fit_begin() and
// tex_fit_end(): the tabular.
inline std::string tex_fit_begin() {
  return "\\ifdefined\\netpolytablebox\\else\\newsavebox\\netpolytablebox\\fi\n\\sbox\\netpolytablebox{%\n";
}
inline std::string tex_fit_end() {
  return "}%\n\\ifdefined\\resizebox\\ifdim\\wd\\netpolytablebox>\\linewidth"
         "\\noindent\\resizebox{\\linewidth}{!}{\\usebox\\netpolytablebox}\\else\\usebox\\netpolytablebox\\fi"
         "\\else\\usebox\\netpolytablebox\\fi\n";
}
inline constexpr const char* kTexNeeds = "needs \\usepackage{booktabs,siunitx}; with graphicx it is shrunk to \\linewidth when wider";

// The netpoly builds that measured the rows, in order of appearance, joined by "; ".
inline std::string row_versions(const std::vector<TableRow>& rows) {
  std::vector<std::string> vs;
  for (const auto& r : rows)
    if (!r.version.empty() && std::find(vs.begin(), vs.end(), r.version) == vs.end()) vs.push_back(r.version);
  std::string s;
  for (const auto& v : vs) s += (s.empty() ? "" : "; ") + v;
  return s;
}

}  // namespace netpoly::tables_detail
