#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "netpoly/error.hpp"
#include "model/forward.hpp"
#include "model/gauss.hpp"
#include "runtime/io.hpp"
#include "netpoly/model.hpp"

#include "runtime/json_check.hpp"

namespace netpoly {

using json = nlohmann::json;

namespace {

// SAX front end that builds a DOM but keeps the raw text of numbers that do
// not fit 64 bits: an integer literal too large for int64 becomes a string
// of its digits (a big integer), a true float stays a float (rejected later).
// An integer literal too large for a 64-bit word is kept as a string holding
// its digits behind this marker (a control character cannot appear in a JSON
// string unescaped), so the reader can tell it from a quoted "p/q".
const std::string kBigInt = std::string("\x01") + "int:";

bool is_big_int(const json& v) { return v.is_string() && v.get_ref<const std::string&>().rfind(kBigInt, 0) == 0; }

std::string big_int_digits(const json& v) { return v.get<std::string>().substr(kBigInt.size()); }

// Long digit strings in messages: "123456789012...(5000 digits)".
std::string abbreviate_digits(const std::string& d) {
  return d.size() <= 30 ? d : d.substr(0, 12) + "...(" + std::to_string(d.size()) + " digits)";
}

// Integer literals beyond a double's range (about 1.8e308) overflow in the
// JSON lexer before any SAX call: they are quoted with the marker first.
// Byte offsets in later syntax errors shift by the quotes added.
std::string quote_huge_integers(const std::string& text) {
  std::string out;
  bool in_string = false, changed = false;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') in_string = false;
      ++i;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      ++i;
      continue;
    }
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i + (c == '-');
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      const bool integer = j == text.size() || (text[j] != '.' && text[j] != 'e' && text[j] != 'E');
      if (integer && j - i > 300) {
        out += "\"\\u0001int:" + text.substr(i, j - i) + "\"";
        changed = true;
      } else {
        out.append(text, i, j - i);
      }
      i = j == i ? i + 1 : j;
      continue;
    }
    out += c;
    ++i;
  }
  return changed ? out : text;
}

// Walks the document with the current JSON path, throwing InputErrors.
class Reader {
 public:
  // imag: the pass that reads the imaginary parts of Gaussian weights.
  explicit Reader(std::string source, bool imag = false) : source_(std::move(source)), imag_(imag) {}
  bool gaussian() const { return gaussian_; }

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw InputError(source_ + ": " + (path.empty() ? std::string("(top level)") : path) + ": " + what);
  }

  static std::string kind(const json& v) {
    if (v.is_null()) return "null";
    if (v.is_boolean()) return "a boolean";
    if (v.is_number_float()) return "a float";
    if (v.is_number()) return "an integer";
    if (is_big_int(v)) return "the integer " + abbreviate_digits(big_int_digits(v));
    if (v.is_string()) return "a string";
    if (v.is_array()) return "a list of " + std::to_string(v.size());
    return "an object";
  }

  void keys(const json& o, const std::string& path, const std::set<std::string>& allowed,
            const std::set<std::string>& required) const {
    if (!o.is_object()) fail(path, "expected an object, got " + kind(o));
    for (auto it = o.begin(); it != o.end(); ++it)
      if (!allowed.count(it.key())) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(join(path, it.key()), "unknown field (allowed here: " + list + ")");
      }
    for (const auto& r : required)
      if (!o.contains(r)) fail(path, "missing required field \"" + r + "\"");
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string idx(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

  std::size_t count(const json& v, const std::string& path, std::size_t lo, std::size_t hi) const {
    std::string want = "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (is_big_int(v)) fail(path, want + ", got " + abbreviate_digits(big_int_digits(v)));
    if (!v.is_number_integer()) fail(path, want + ", got " + kind(v));
    if (v.is_number_unsigned()) {
      auto u = v.get<std::uint64_t>();
      if (u < lo || u > hi) fail(path, want + ", got " + std::to_string(u));
      return u;
    }
    auto s = v.get<std::int64_t>();
    if (s < 0 || static_cast<std::uint64_t>(s) < lo || static_cast<std::uint64_t>(s) > hi)
      fail(path, want + ", got " + std::to_string(s));
    return static_cast<std::size_t>(s);
  }

  // A weight; in the imaginary pass, its imaginary part (0 unless "a+bi").
  Fmpq number(const json& v, const std::string& path) const {
    Fmpq re, im;
    number_parts(v, path, re, im);
    return imag_ ? im : re;
  }

  void number_parts(const json& v, const std::string& path, Fmpq& re, Fmpq& im) const {
    if (v.is_string() && !is_big_int(v) && parse_gaussian(v.get<std::string>(), re, im)) {
      if (!im.is_zero()) gaussian_ = true;
      return;
    }
    re = number_real(v, path);
  }

  Fmpq number_real(const json& v, const std::string& path) const {
    Fmpq q;
    if (v.is_number_integer()) {
      if (v.is_number_unsigned()) {
        Fmpz z;
        fmpz_set_ui(z.get(), v.get<std::uint64_t>());
        return Fmpq(z);
      }
      return Fmpq(static_cast<slong>(v.get<std::int64_t>()));
    }
    if (is_big_int(v)) {
      Fmpz z;
      if (z.set_str(big_int_digits(v))) return Fmpq(z);
    }
    if (v.is_string()) {
      if (parse_rational(v.get<std::string>(), q)) return q;
      fail(path, "expected an integer, a rational \"p/q\" with q > 0 or a Gaussian rational \"a+bi\", got \"" +
                     v.get<std::string>() + "\"");
    }
    if (v.is_number_float()) fail(path, "expected an exact number (integer or \"p/q\"); floats are rejected");
    fail(path, "expected an integer or a rational \"p/q\", got " + kind(v));
  }

  Mat<Fmpq> matrix(const json& v, const std::string& path, std::size_t rows, std::size_t cols,
                   const std::string& what) const {
    std::string shape = what + ": a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix";
    if (!v.is_array()) fail(path, "expected " + shape + " (a list of rows), got " + kind(v));
    if (v.size() != rows) fail(path, "expected " + shape + ", got " + std::to_string(v.size()) + " rows");
    // Every row's shape first: rows x cols is only allocated once the file
    // holds that many numbers (a few bytes of "[[],[]]" must not ask for GiBs).
    for (std::size_t i = 0; i < rows; ++i)
      if (!v[i].is_array() || v[i].size() != cols)
        fail(idx(path, i), "expected a row of " + std::to_string(cols) + " numbers (" + shape + "), got " + kind(v[i]));
    Mat<Fmpq> m(rows, cols);
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) m(i, j) = number(v[i][j], idx(idx(path, i), j));
    return m;
  }

  // A vector of n numbers (a bias), as an n x 1 column.
  Mat<Fmpq> vector(const json& v, const std::string& path, std::size_t n, const std::string& what) const {
    const std::string shape = what + ": a list of " + std::to_string(n) + " numbers";
    if (!v.is_array()) fail(path, "expected " + shape + ", got " + kind(v));
    if (v.size() != n) fail(path, "expected " + shape + ", got " + std::to_string(v.size()));
    Mat<Fmpq> m(n, 1);
    for (std::size_t i = 0; i < n; ++i) m(i, 0) = number(v[i], idx(path, i));
    return m;
  }

  // The optional bias o[key] of n entries (docs/model-format.md, "Biases").
  Bias<Fmpq> bias(const json& o, const std::string& path, const std::string& key, std::size_t n,
                  const std::string& what) const {
    if (!o.contains(key)) return std::nullopt;
    return vector(o[key], join(path, key), n, what);
  }

  // Rows of a matrix whose row count is free (the layer chooses it).
  std::size_t row_count(const json& v, const std::string& path) const {
    if (!v.is_array() || v.empty()) fail(path, "expected a non-empty matrix (a list of rows), got " + kind(v));
    if (v.size() > kMaxDim) fail(path, "matrix has more than " + std::to_string(kMaxDim) + " rows");
    return v.size();
  }

  Activation activation(const json& o, const std::string& path) const {
    if (!o.contains("activation")) return Activation::none;
    const json& a = o["activation"];
    std::string p = join(path, "activation");
    if (a == "none") return Activation::none;
    if (a == "square") return Activation::square;
    fail(p, "expected \"none\" or \"square\", got " + a.dump());
  }

  // A list of layers starting at width d (a model's, or a branch's); d
  // becomes the width at its end.
  std::vector<Layer<Fmpq>> layers(const json& v, const std::string& path, std::size_t N, std::size_t& d) const;

  static constexpr std::size_t kMaxDim = 1 << 16;

  const std::string source_;
  const bool imag_ = false;
  mutable bool gaussian_ = false;  // a weight with a nonzero imaginary part was read
};

// The layer whose "type" is o["type"], read by its kind (layers/*.hpp);
// false for an unknown type.
template <std::size_t I = 0>
bool read_layer_kind(const Reader& r, const json& o, const std::string& lp, std::size_t N, std::size_t d,
                     LayerOp<Fmpq>& op) {
  if constexpr (I == std::variant_size_v<LayerOp<Fmpq>>) {
    return false;
  } else {
    using K = std::variant_alternative_t<I, LayerOp<Fmpq>>;
    if (o["type"] != K::kind) return read_layer_kind<I + 1>(r, o, lp, N, d, op);
    op = K::read(r, o, lp, N, d);
    return true;
  }
}

// "attention, token_mix, channel_mix, product, permute or branches"
std::string kind_list() {
  const auto names = layer_kind_names();
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

std::vector<Layer<Fmpq>> Reader::layers(const json& v, const std::string& path, std::size_t N, std::size_t& d) const {
  if (!v.is_array()) fail(path, "expected a list of layers, got " + kind(v));
  std::vector<Layer<Fmpq>> out;
  for (std::size_t l = 0; l < v.size(); ++l) {
    const json& o = v[l];
    const std::string lp = idx(path, l);
    if (!o.is_object()) fail(lp, "expected a layer object, got " + kind(o));
    if (!o.contains("type")) fail(lp, "missing required field \"type\"");
    const json& t = o["type"];
    Layer<Fmpq> layer;
    if (!read_layer_kind(*this, o, lp, N, d, layer.op))
      fail(join(lp, "type"), "unknown layer type " + t.dump() + " (expected " + kind_list() + ")");
    if (o.contains("residual")) {
      if (!o["residual"].is_boolean())
        fail(join(lp, "residual"), "expected true or false, got " + kind(o["residual"]));
      layer.residual = o["residual"].get<bool>();
    }
    std::size_t dout = layer.out_width(d);
    if (layer.residual && dout != d)
      fail(lp, "a residual layer must keep the width: input width " + std::to_string(d) + ", output width " +
                   std::to_string(dout));
    d = dout;
    out.push_back(std::move(layer));
  }
  return out;
}

}  // namespace

bool parse_rational(const std::string& s, Fmpq& out) {
  auto slash = s.find('/');
  Fmpz num, den(1);
  if (!num.set_str(s.substr(0, slash))) return false;
  if (slash != std::string::npos) {
    std::string d = s.substr(slash + 1);
    if (d.empty() || d[0] == '-' || d[0] == '+' || !den.set_str(d) || den.is_zero()) return false;
  }
  fmpq_set_fmpz_frac(out.get(), num.get(), den.get());  // canonicalises
  return true;
}

Model parse_model(const std::string& text, const std::string& source) {
  // At most 64 levels (deeper documents are never models, and printing one
  // in a message would recurse once per level), no key twice, big integers
  // kept as digits (JsonCheck::parse).
  const json j = JsonCheck(source).parse(quote_huge_integers(text), 64, kBigInt);
  Reader r(source);
  r.keys(j, "", {"format", "name", "input", "layers", "output"}, {"format", "input", "layers"});
  if (j["format"] != "netpoly-model/1")
    r.fail("format", "expected \"netpoly-model/1\", got " + j["format"].dump());
  Model m;
  if (j.contains("name")) {
    if (!j["name"].is_string() || is_big_int(j["name"]))
      r.fail("name", "expected a string, got " + Reader::kind(j["name"]));
    m.name = j["name"].get<std::string>();
  }
  r.keys(j["input"], "input", {"tokens", "width"}, {"tokens", "width"});
  m.tokens = r.count(j["input"]["tokens"], "input.tokens", 1, Reader::kMaxDim);
  m.width = r.count(j["input"]["width"], "input.width", 1, Reader::kMaxDim);
  if (m.tokens * m.width > (1u << 20)) r.fail("input", "tokens x width exceeds 2^20 input variables");
  const std::size_t N = m.tokens;
  std::size_t d = m.width;
  m.layers = r.layers(j["layers"], "layers", N, d);
  if (r.gaussian()) {
    // Gaussian weights: a second pass reads the imaginary parts, layer for layer.
    std::size_t d2 = m.width;
    m.imag = Reader(source, true).layers(j["layers"], "layers", N, d2);
  }
  if (j.contains("output")) {
    r.keys(j["output"], "output", {"token", "channel"}, {"token", "channel"});
    Entry e;
    e.token = r.count(j["output"]["token"], "output.token", 0, N - 1);
    e.channel = r.count(j["output"]["channel"], "output.channel", 0, d - 1);
    m.output = e;
  }
  return m;
}

Model read_model(const std::string& path) {
  const std::string text = read_text_file(path, "the model file");
  return parse_model(text, path == "-" ? "<stdin>" : path);
}

void validate_model(const Model& m, const std::string& source) {
  // Round-trip through the reader: one set of shape rules, one set of messages.
  parse_model(write_model(m), source);
}

namespace {

void put_number(std::ostringstream& os, const Fmpq& q) {
  if (q.is_integer() && fmpz_fits_si(q.num()))
    os << q.str();
  else
    os << '"' << q.str() << '"';
}

// A weight of a Gaussian model as written: "a+bi" (quoted) or, when b = 0, as a real weight.
struct GaussWeight {
  Fmpq re, im;
  bool operator==(const GaussWeight&) const = default;
};

void put_number(std::ostringstream& os, const GaussWeight& w) {
  if (w.im.is_zero()) put_number(os, w.re);
  else os << '"' << gaussian_text(w.re, w.im) << '"';
}

template <class S>
void put_matrix(std::ostringstream& os, const Mat<S>& m, const std::string& indent) {
  os << "[";
  for (std::size_t i = 0; i < m.rows; ++i) {
    os << (i ? ",\n" + indent + " " : "") << "[";
    for (std::size_t j = 0; j < m.cols; ++j) {
      if (j) os << ", ";
      put_number(os, m(i, j));
    }
    os << "]";
  }
  os << "]";
}

template <class S>
void put_vector(std::ostringstream& os, const Mat<S>& m) {
  os << "[";
  for (std::size_t i = 0; i < m.rows; ++i) {
    if (i) os << ", ";
    put_number(os, m(i, 0));
  }
  os << "]";
}

template <class S>
void write_layers(std::ostringstream& os, const std::vector<Layer<S>>& layers, const std::string& ind);

// What a layer's write() is given: the stream, the indentation of its
// fields, and the formats of a matrix, an activation and a list of layers.
template <class S>
struct LayerWriter {
  std::ostringstream& os;
  const std::string& in;
  void matrix(const Mat<S>& m, const std::string& indent) { put_matrix(os, m, indent); }
  void vector(const Mat<S>& b) { put_vector(os, b); }
  // A bias field on a line of its own: `,\n<indent>"name": [...]`.
  void bias(const char* name, const Mat<S>& b, const std::string& indent) {
    os << ",\n" << indent << "\"" << name << "\": ";
    put_vector(os, b);
  }
  void bias(const char* name, const Mat<S>& b) { bias(name, b, in); }
  void activation(Activation a) {
    os << ",\n" << in << "\"activation\": \"" << (a == Activation::square ? "square" : "none") << "\"";
  }
  void layers(const std::vector<Layer<S>>& ls, const std::string& indent) { write_layers(os, ls, indent); }
};

// "[" then one layer a line at indentation `ind`, its fields two deeper, then
// "]" on a line of its own two shallower (a model's list: ind = four spaces).
template <class S>
void write_layers(std::ostringstream& os, const std::vector<Layer<S>>& layers, const std::string& ind) {
  os << "[";
  const std::string in = ind + "  ";
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const auto& layer = layers[l];
    os << (l ? ",\n" : "\n") << ind << "{\"type\": \"" << layer.kind() << "\"";
    if (layer.residual) os << ", \"residual\": true";
    LayerWriter<S> w{os, in};
    std::visit([&](const auto& op) { op.write(w); }, layer.op);
    os << "}";
  }
  os << (layers.empty() ? "]" : "\n" + ind.substr(0, ind.size() >= 2 ? ind.size() - 2 : 0) + "]");
}

// The layers of a Gaussian model with each weight's two parts together (the
// real and the imaginary network visited in the same order).
std::vector<Layer<GaussWeight>> gaussian_layers(const Model& m) {
  return zip_parts(m, [](const Fmpq& re, const Fmpq& im) { return GaussWeight{re, im}; }).layers;
}

}  // namespace

std::string write_model(const Model& m) {
  std::ostringstream os;
  os << "{\n  \"format\": \"netpoly-model/1\",\n";
  if (!m.name.empty()) os << "  \"name\": " << json(m.name).dump() << ",\n";
  os << "  \"input\": {\"tokens\": " << m.tokens << ", \"width\": " << m.width << "},\n";
  os << "  \"layers\": ";
  if (m.gaussian()) write_layers(os, gaussian_layers(m), "    ");
  else write_layers(os, m.layers, "    ");
  if (m.output) os << ",\n  \"output\": {\"token\": " << m.output->token << ", \"channel\": " << m.output->channel << "}";
  os << "\n}\n";
  return os.str();
}


}  // namespace netpoly
