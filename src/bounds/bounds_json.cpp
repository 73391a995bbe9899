// The bounds' JSON (`netpoly bounds --json`, Python's netpoly.bounds, table
// rows read it back): written here only. Exact values are decimal strings;
// log3 keeps its 20 significant digits (null when undefined or infinite).
#include <cstdio>
#include <sstream>

#include "netpoly/bounds.hpp"

namespace netpoly {

namespace {

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o + "\"";
}

// A JSON number for log3: null when undefined or infinite (JSON has no inf).
std::string json_log3(const Bound& b) {
  if (!b.defined || b.log3_text == "nan" || b.log3_text == "inf" || b.log3_text == "-inf") return "null";
  return b.log3_text;
}

}  // namespace

std::string bounds_json(const NetworkShape& p, const Fmpz& params, const std::vector<Bound>& bs) {
  std::ostringstream os;
  os << "{\"params\":{\"arch\":\"" << arch_name(p.arch) << "\",\"layers\":" << p.layers << ",\"width\":" << p.width
     << ",\"heads\":" << p.heads << ",\"tokens\":" << (p.arch == Arch::mlp ? 1 : p.tokens);
  if (p.arch == Arch::product || (p.arch == Arch::attention && p.block_degree() != 3))
    os << ",\"degree\":" << p.block_degree();
  os << ",\"residual\":" << (p.residual ? "true" : "false") << ",\"parameters\":" << params.str() << "},\"bounds\":[";
  for (std::size_t i = 0; i < bs.size(); ++i) {
    const Bound& b = bs[i];
    os << (i ? "," : "") << "\n{\"id\":" << json_string(b.id) << ",\"source\":" << json_string(b.source)
       << ",\"applies_to\":" << json_string(b.applies_to) << ",\"kind\":" << json_string(bound_kind_name(b.kind))
       << ",\"formula\":" << json_string(b.formula) << ",\"value\":"
       << (b.defined && b.exact ? json_string(b.exact->str()) : "null")
       << ",\"value_kind\":" << json_string(value_kind_name(b.value_kind))
       << ",\"floored\":" << (b.floored ? "true" : "false") << ",\"log3\":" << json_log3(b)
       << ",\"defined\":" << (b.defined ? "true" : "false") << ",\"condition\":" << json_string(b.condition)
       << ",\"in_regime\":" << (b.in_regime ? "true" : "false") << ",\"note\":" << json_string(b.note) << "}";
  }
  os << "\n]}\n";
  return os.str();
}


}  // namespace netpoly
