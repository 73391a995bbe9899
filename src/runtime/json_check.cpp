#include "runtime/json_check.hpp"

#include <cmath>
#include <sstream>

#include "netpoly/error.hpp"

namespace netpoly {

using json = nlohmann::json;

void JsonCheck::fail(const std::string& path, const std::string& what) const {
  throw InputError((source_.empty() ? std::string() : source_ + ": ") + (path.empty() ? std::string("(top level)") : path) + ": " + what);
}

std::string JsonCheck::kind(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_float()) {
    std::ostringstream s;
    s << "the float " << v.get<double>();
    return s.str();
  }
  if (v.is_number_unsigned()) return "the integer " + std::to_string(v.get<std::uint64_t>());
  if (v.is_number_integer()) return "the integer " + std::to_string(v.get<std::int64_t>());
  if (v.is_string()) return "a string";
  if (v.is_array()) return "a list of " + std::to_string(v.size());
  return "an object";
}

const json& JsonCheck::at(const json& v, const std::string& path, const std::string& key) const {
  if (!v.is_object()) fail(path, "expected an object, got " + kind(v));
  auto it = v.find(key);
  if (it == v.end()) fail(path, "missing required field \"" + key + "\"");
  return *it;
}

std::uint64_t JsonCheck::count(const json& v, const std::string& path, std::uint64_t lo, std::uint64_t hi) const {
  const std::string want = "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got ";
  if (!v.is_number_integer()) fail(path, want + kind(v));
  if (!v.is_number_unsigned() && v.get<std::int64_t>() < 0) fail(path, want + kind(v));
  const std::uint64_t u = v.get<std::uint64_t>();
  if (u < lo || u > hi) fail(path, want + kind(v));
  return u;
}

std::int64_t JsonCheck::integer(const json& v, const std::string& path, std::int64_t lo, std::int64_t hi) const {
  const std::string want = "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got ";
  if (!v.is_number_integer()) fail(path, want + kind(v));
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) fail(path, want + kind(v));
  const std::int64_t s = v.get<std::int64_t>();
  if (s < lo || s > hi) fail(path, want + kind(v));
  return s;
}

double JsonCheck::number(const json& v, const std::string& path, double lo, double hi) const {
  std::ostringstream want;
  want << "expected a number in [" << lo << ", " << hi << "], got ";
  if (!v.is_number()) fail(path, want.str() + kind(v));
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi) fail(path, want.str() + kind(v));
  return x;
}

bool JsonCheck::boolean(const json& v, const std::string& path) const {
  if (!v.is_boolean()) fail(path, "expected true or false, got " + kind(v));
  return v.get<bool>();
}

std::string JsonCheck::text(const json& v, const std::string& path, std::size_t max_bytes) const {
  if (!v.is_string()) fail(path, "expected a string, got " + kind(v));
  const auto& s = v.get_ref<const std::string&>();
  if (s.size() > max_bytes)
    fail(path, "expected a string of at most " + std::to_string(max_bytes) + " bytes, got " +
                   std::to_string(s.size()));
  return s;
}

std::vector<std::uint64_t> JsonCheck::counts(const json& v, const std::string& path, std::uint64_t lo,
                                             std::uint64_t hi, std::size_t max_items) const {
  if (!v.is_array() || v.empty() || v.size() > max_items)
    fail(path, "expected a list of 1 to " + std::to_string(max_items) + " integers, got " + kind(v));
  std::vector<std::uint64_t> r;
  for (std::size_t i = 0; i < v.size(); ++i) r.push_back(count(v[i], idx(path, i), lo, hi));
  return r;
}

std::vector<std::string> JsonCheck::texts(const json& v, const std::string& path, std::size_t max_items,
                                          std::size_t max_bytes) const {
  if (!v.is_array() || v.size() > max_items)
    fail(path, "expected a list of at most " + std::to_string(max_items) + " strings, got " + kind(v));
  std::vector<std::string> r;
  for (std::size_t i = 0; i < v.size(); ++i) r.push_back(text(v[i], idx(path, i), max_bytes));
  return r;
}

}  // namespace netpoly
