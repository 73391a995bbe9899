#include <flint/flint.h>

#include <cmath>
#include <thread>

#include "commands/commands.hpp"
#include "netpoly/error.hpp"
#include "netpoly/options.hpp"
#include "netpoly/parallel.hpp"

namespace netpoly::cli {

Entry parse_entry(const std::string& s, const std::string& option) {
  auto comma = s.find(',');
  auto bad = [&]() { return InputError(option + " \"" + s + "\": expected TOKEN,CHANNEL (e.g. 0,1)"); };
  if (comma == std::string::npos) throw bad();
  Entry e;
  try {
    std::size_t p1 = 0, p2 = 0;
    std::string a = s.substr(0, comma), b = s.substr(comma + 1);
    // Digits only: stoul alone would also take " 1", "+1" and "-1" (as 2^64 - 1).
    const char* digits = "0123456789";
    if (a.empty() || b.empty() || a.find_first_not_of(digits) != std::string::npos ||
        b.find_first_not_of(digits) != std::string::npos)
      throw bad();
    e.token = std::stoul(a, &p1);
    e.channel = std::stoul(b, &p2);
    if (p1 != a.size() || p2 != b.size()) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  return e;
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

double limit_option(double v, const std::string& flag, bool zero_ok) {
  if (std::isnan(v)) throw InputError(flag + ": expected a number, got nan");
  if (v < 0 || (v == 0 && !zero_ok))
    throw InputError(flag + ": must be " + (zero_ok ? "0 (no limit) or positive" : "positive") + ", got " +
                     std::to_string(v));
  return v;
}

std::uint64_t parse_u64(const std::string& s, const std::string& flag, std::uint64_t lo, std::uint64_t hi) {
  auto range = [&] { return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]"; };
  if (s.empty() || s.size() > 40 || s.find_first_not_of("0123456789") != std::string::npos)
    throw InputError(flag + " \"" + clip(s, 40) + "\": expected a whole number in " + range());
  std::uint64_t v = 0;
  for (char c : s) {
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) throw InputError(flag + " " + s + ": out of range " + range());
    v = v * 10 + d;
  }
  if (v < lo || v > hi) throw InputError(flag + " " + s + ": out of range " + range());
  return v;
}

void set_options_from_text(SepOptions& sep, const std::vector<std::pair<std::string, std::string>>& given) {
  for (const auto& [name, text] : given) {
    const OptionSpec* spec = find_option(name);
    if (!spec) throw InternalError("a flag of no option: " + name);
    set_option(sep, *spec, option_from_text(*spec, text), Spelling::cli);
  }
}

void set_threads(unsigned n) {
  if (n > 256) throw InputError("--threads: at most 256");
  set_thread_count(n);
}

}  // namespace netpoly::cli
