// The values of a network at points (netpoly/evaluate.hpp): the forward
// pass over RationalRing, GaussRing<RationalRing> or ModpRing.
#include "netpoly/evaluate.hpp"

#include <nlohmann/json.hpp>

#include "model/forward.hpp"
#include "model/gauss.hpp"
#include "netpoly/error.hpp"
#include "netpoly/rings.hpp"

namespace netpoly {
namespace {

void check_sizes(const Model& m, const std::vector<Point>& points) {
  for (std::size_t k = 0; k < points.size(); ++k)
    if (points[k].size() != m.num_inputs())
      throw InputError("point " + std::to_string(k) + ": expected " + std::to_string(m.tokens) + " x " +
                       std::to_string(m.width) + " = " + std::to_string(m.num_inputs()) + " entries (tokens x width), got " +
                       std::to_string(points[k].size()));
}

bool any_gaussian(const std::vector<Point>& points) {
  for (const auto& p : points)
    for (const auto& x : p)
      if (!x.im.is_zero()) return true;
  return false;
}

}  // namespace

bool parse_exact(const std::string& text, Exact& out) {
  if (parse_rational(text, out.re)) {
    out.im = Fmpq();
    return true;
  }
  return parse_gaussian(text, out.re, out.im);
}

std::string exact_text(const Exact& x) { return x.im.is_zero() ? x.re.str() : gaussian_text(x.re, x.im); }

std::vector<Point> evaluate(const Model& m, const std::vector<Point>& points) {
  check_sizes(m, points);
  std::vector<Point> out;
  if (!m.gaussian() && !any_gaussian(points)) {
    const RationalRing R;
    const auto net = prepare(R, m);
    for (const auto& p : points) {
      std::vector<Fmpq> X;
      for (const auto& x : p) X.push_back(x.re);
      Point y;
      for (auto& v : forward(R, net, std::move(X))) y.push_back({std::move(v), Fmpq()});
      out.push_back(std::move(y));
    }
    return out;
  }
  const GaussRing<RationalRing> R{RationalRing{}};
  const auto net = prepare(R, m);
  for (const auto& p : points) {
    std::vector<GaussRing<RationalRing>::Elem> X;
    for (const auto& x : p) X.push_back({x.re, x.im});
    Point y;
    for (auto& v : forward(R, net, std::move(X))) y.push_back({std::move(v.re), std::move(v.im)});
    out.push_back(std::move(y));
  }
  return out;
}

ModValues evaluate_mod(const Model& m, const std::vector<Point>& points, ulong p, const std::string& what) {
  require_prime_modulus(p, what);
  check_sizes(m, points);
  const bool gauss = m.gaussian() || any_gaussian(points);
  const ModpRing R = gauss ? ModpRing::gaussian(p) : ModpRing(p);
  const auto net = prepare(R, m);
  ModValues r{p, R.sqrt_m1, {}};
  for (std::size_t k = 0; k < points.size(); ++k) {
    std::vector<ulong> X;
    for (std::size_t v = 0; v < points[k].size(); ++v) {
      const Exact& x = points[k][v];
      for (const Fmpq* q : {&x.re, &x.im})
        if (fmpz_fdiv_ui(q->den(), p) == 0)
          throw DomainError("point " + std::to_string(k) + ", entry x" + std::to_string(v / m.width) + "_" +
                            std::to_string(v % m.width) + " = " + exact_text(x) + ": its denominator is divisible by " +
                            what + " " + std::to_string(p) + "; choose another prime");
      X.push_back(R.scalar_gauss(x.re, x.im));
    }
    r.values.push_back(forward(R, net, std::move(X)));
  }
  return r;
}

std::vector<Point> parse_points(const std::string& text, const std::string& source, const Model& m) {
  using json = nlohmann::json;
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(source + ": not JSON (" + e.what() + ")");
  }
  std::string path = "$";
  if (j.is_object()) {
    for (const auto& [k, v] : j.items())
      if (k != "points") throw InputError(source + ": " + path + "." + k + ": unknown key (expected \"points\")");
    if (!j.contains("points")) throw InputError(source + ": " + path + ": expected \"points\": a list of N x d matrices");
    j = json(j["points"]);
    path += ".points";
  }
  if (!j.is_array()) throw InputError(source + ": " + path + ": expected a list of N x d matrices");
  const std::string shape = std::to_string(m.tokens) + " x " + std::to_string(m.width);
  std::vector<Point> points;
  for (std::size_t k = 0; k < j.size(); ++k) {
    const std::string pk = path + "[" + std::to_string(k) + "]";
    const json& X = j[k];
    if (!X.is_array() || X.size() != m.tokens)
      throw InputError(source + ": " + pk + ": expected a " + shape + " matrix (a list of " + std::to_string(m.tokens) +
                       " rows)");
    Point p;
    for (std::size_t i = 0; i < m.tokens; ++i) {
      const std::string pi = pk + "[" + std::to_string(i) + "]";
      if (!X[i].is_array() || X[i].size() != m.width)
        throw InputError(source + ": " + pi + ": expected a row of " + std::to_string(m.width) + " numbers");
      for (std::size_t c = 0; c < m.width; ++c) {
        const json& v = X[i][c];
        Exact x;
        const bool ok = v.is_number_integer() ? parse_exact(v.dump(), x) : v.is_string() && parse_exact(v.get<std::string>(), x);
        if (!ok)
          throw InputError(source + ": " + pi + "[" + std::to_string(c) + "]: expected an exact number (an integer, \"p/q\" "
                           "or \"a+bi\"; floats are not exact), got " + v.dump());
        p.push_back(std::move(x));
      }
    }
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace netpoly
