#include "runtime/number_text.hpp"

#include <cstdio>

#include "netpoly/error.hpp"

namespace netpoly {

std::string fmt_g(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", x);
  return b;
}

std::vector<std::uint64_t> parse_list(const std::string& s, const std::string& option) {
  auto bad = [&]() { return InputError(option + " \"" + s + "\": expected values like 1..3 or 2,4 or 1..3,8"); };
  auto num = [&](const std::string& t) {
    if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos) throw bad();
    return static_cast<std::uint64_t>(std::stoull(t));
  };
  std::vector<std::uint64_t> r;
  std::size_t start = 0;
  while (true) {
    auto k = s.find(',', start);
    std::string item = s.substr(start, k == std::string::npos ? std::string::npos : k - start);
    auto dots = item.find("..");
    if (dots == std::string::npos) {
      r.push_back(num(item));
    } else {
      auto a = num(item.substr(0, dots)), b = num(item.substr(dots + 2));
      if (b < a || b - a > 10000) throw bad();
      for (auto v = a; v <= b; ++v) r.push_back(v);
    }
    if (k == std::string::npos) break;
    start = k + 1;
  }
  return r;
}

}  // namespace netpoly
