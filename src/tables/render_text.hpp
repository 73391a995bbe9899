// Text helpers the table renderers share (table.cpp, budget.cpp): CSV
// quoting, LaTeX escaping, and log3 of a measured rank.
#pragma once
#include <cmath>
#include <cstddef>
#include <string>

namespace netpoly::tables_detail {

// A CSV field, quoted (quotes doubled) when it holds a comma, quote or newline.
inline std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// LaTeX text: _ & % # $ escaped, ^ as \^{}, < and > in math mode.
inline std::string tex_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '_' || c == '&' || c == '%' || c == '#' || c == '$') o += std::string("\\") + c;
    else if (c == '^') o += "\\^{}";
    else if (c == '<' || c == '>') o += std::string("$") + c + "$";
    else o += c;
  }
  return o;
}

// log3 of a measured rank (-inf for 0).
inline double log3_of(std::size_t v) {
  return v == 0 ? -HUGE_VAL : std::log(static_cast<double>(v)) / std::log(3.0);
}

}  // namespace netpoly::tables_detail
