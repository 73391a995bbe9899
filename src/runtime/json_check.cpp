#include "runtime/json_check.hpp"

#include <cctype>
#include <cmath>
#include <sstream>

#include "netpoly/error.hpp"

namespace netpoly {

namespace {

// The DOM of a document, refusing depth beyond a limit and duplicate keys;
// with a marker, integer literals beyond 64 bits become marker + digits.
class StrictBuilder : public nlohmann::json_sax<nlohmann::json> {
 public:
  StrictBuilder(std::size_t max_depth, std::string big_int) : max_depth_(max_depth), big_int_(std::move(big_int)) {}
  nlohmann::json root;
  std::string error;

  bool null() override { return put(nullptr); }
  bool boolean(bool v) override { return put(v); }
  bool number_integer(number_integer_t v) override { return put(v); }
  bool number_unsigned(number_unsigned_t v) override { return put(v); }
  bool number_float(number_float_t v, const string_t& s) override {
    bool integral = !big_int_.empty() && !s.empty();  // digits only: an integer beyond 64 bits
    for (std::size_t i = 0; integral && i < s.size(); ++i)
      integral = std::isdigit(static_cast<unsigned char>(s[i])) || (i == 0 && s[i] == '-');
    return integral ? put(big_int_ + s) : put(v);
  }
  bool string(string_t& v) override { return put(v); }
  bool binary(binary_t&) override { return put(nullptr); }
  bool start_object(std::size_t) override { return open(nlohmann::json::object()); }
  bool start_array(std::size_t) override { return open(nlohmann::json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (stack_.back()->contains(k)) {
      error = (path_.back().empty() ? std::string("(top level)") : path_.back()) + ": duplicate key \"" +
              clip(k, 64) + "\"";
      return false;
    }
    key_ = k;
    return true;
  }
  bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& ex) override {
    error = "invalid JSON at byte " + std::to_string(pos) + ": " + clip(ex.what(), 203);
    return false;
  }

 private:
  nlohmann::json* place(nlohmann::json v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    nlohmann::json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    top[key_] = std::move(v);
    return &top[key_];
  }
  bool put(nlohmann::json v) {
    place(std::move(v));
    return true;
  }
  bool open(nlohmann::json v) {
    if (stack_.size() >= max_depth_) {
      error = "invalid JSON: nested deeper than " + std::to_string(max_depth_) + " levels";
      return false;
    }
    std::string path;
    if (!stack_.empty()) {
      const std::string& at = path_.back();
      if (stack_.back()->is_array()) path = at + "[" + std::to_string(stack_.back()->size()) + "]";
      else path = at.empty() ? key_ : at + "." + key_;
    }
    stack_.push_back(place(std::move(v)));
    path_.push_back(std::move(path));
    return true;
  }
  bool close() {
    stack_.pop_back();
    path_.pop_back();
    return true;
  }
  std::size_t max_depth_;
  std::string big_int_;
  std::vector<nlohmann::json*> stack_;
  std::vector<std::string> path_;
  std::string key_;
};

}  // namespace

nlohmann::json JsonCheck::parse(const std::string& text, std::size_t max_depth, const std::string& big_int) const {
  StrictBuilder b(max_depth, big_int);
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(text, &b, nlohmann::json::input_format_t::json, true);
  } catch (const nlohmann::json::exception& e) {  // e.g. a number beyond a double
    b.error = "invalid JSON: " + clip(e.what(), 203);
  }
  if (!ok) {
    // (A partial DOM is at most max_depth deep: its destruction recurses no further.)
    throw InputError((source_.empty() ? std::string() : source_ + ": ") + (b.error.empty() ? "invalid JSON" : b.error));
  }
  return std::move(b.root);
}

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
