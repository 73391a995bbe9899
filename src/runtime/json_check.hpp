// Strict reading of the values of a JSON document that netpoly wrote and a
// person may have edited (table shards and journals): every integer is checked
// for type, sign, integrality and range, every string for type and length,
// before it is used or anything is allocated from it. A failure is an
// InputError "SOURCE: PATH: expected ..., got ..." (the model reader's form).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "netpoly/error.hpp"

namespace netpoly {

class JsonCheck {
 public:
  // An empty source leaves the file out of messages (the caller adds it).
  explicit JsonCheck(std::string source) : source_(std::move(source)) {}
  const std::string& source() const { return source_; }

  // The document `text`, parsed strictly: at most max_depth levels of nesting
  // (a deeper one is refused before anything recurses over it), no key twice
  // in one object, nothing after the value. Else an InputError
  // "SOURCE: invalid JSON ...", or "SOURCE: PATH: duplicate key ...". With
  // a `big_int` marker, an integer literal beyond 64 bits is kept as the
  // string marker + its digits (the model reader's big integers).
  nlohmann::json parse(const std::string& text, std::size_t max_depth = 32, const std::string& big_int = "") const;

  [[noreturn]] void fail(const std::string& path, const std::string& what) const;
  // "a float", "the integer -1", "a string", ... for messages.
  static std::string kind(const nlohmann::json& v);
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string idx(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

  // The field `key` of the object at `path` (refused when v is no object or lacks it).
  const nlohmann::json& at(const nlohmann::json& v, const std::string& path, const std::string& key) const;
  // A JSON integer in [lo, hi]: no float (3.5, 3.0), no negative, no string.
  std::uint64_t count(const nlohmann::json& v, const std::string& path, std::uint64_t lo, std::uint64_t hi) const;
  std::int64_t integer(const nlohmann::json& v, const std::string& path, std::int64_t lo, std::int64_t hi) const;
  // A finite JSON number (integer or float) in [lo, hi].
  double number(const nlohmann::json& v, const std::string& path, double lo, double hi) const;
  bool boolean(const nlohmann::json& v, const std::string& path) const;
  // A string of at most max_bytes bytes.
  std::string text(const nlohmann::json& v, const std::string& path, std::size_t max_bytes = 4096) const;
  // A list of at most max_items counts, each in [lo, hi].
  std::vector<std::uint64_t> counts(const nlohmann::json& v, const std::string& path, std::uint64_t lo,
                                    std::uint64_t hi, std::size_t max_items) const;
  // f() (a parser of a name read from the file: an architecture, a method
  // list, ...), its InputError then naming the source and `path`.
  template <class F>
  auto parsed(const std::string& path, F f) const -> decltype(f()) {
    try {
      return f();
    } catch (const InputError& e) {
      fail(path, e.what());
    }
  }
  // A list of at most max_items strings.
  std::vector<std::string> texts(const nlohmann::json& v, const std::string& path, std::size_t max_items,
                                 std::size_t max_bytes = 4096) const;

 private:
  std::string source_;
};

}  // namespace netpoly
