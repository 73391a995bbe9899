#include "netpoly/poly_text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

#include "netpoly/error.hpp"
#include "runtime/number_text.hpp"

namespace netpoly {

namespace {

constexpr int kMaxNesting = 200;           // parentheses and unary signs (the checker recurses)
constexpr double kMaxCoefficientBits = 1 << 24;  // 2 MB a coefficient: 2^(10^9) is refused, not computed
constexpr double kMaxBytes = 1 << 30;            // the coefficients together: (x + 1)^100000 is refused

std::string g3(double x) { return fmt_g(x); }

// What a subexpression can expand to, as upper bounds: its terms, its total
// degree and log2 of its coefficients (numerators and denominators).
struct Size {
  double terms = 1, degree = 0, bits = 0;
};

// log2 of a whole number written in decimal (an upper bound).
double log2_of(const std::string& digits) {
  if (digits.size() <= 15) return std::log2(std::max(1.0, std::stod(digits)));
  return 3.33 * static_cast<double>(digits.size());
}

// A recursive-descent reading of the grammar FLINT's parser takes, computing
// sizes only (FLINT builds the polynomial afterwards).
class Checker {
 public:
  Checker(const std::string& t, const std::vector<std::string>& names, double max_terms)
      : s_(t), names_(names.begin(), names.end()), max_terms_(max_terms) {}

  void run() {
    sum(0);
    skip();
    if (i_ < s_.size()) fail("an operator or the end of the polynomial");
  }

 private:
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool at(char c) {
    skip();
    return i_ < s_.size() && s_[i_] == c;
  }
  [[noreturn]] void fail(const std::string& expected) const {
    const std::string got = i_ < s_.size() ? "'" + clip(s_.substr(i_, 20), 20) + "'" : "the end";
    throw InputError("polynomial text, character " + std::to_string(i_ + 1) + ": expected " + expected + ", got " +
                     got);
  }
  Size checked(Size z, std::size_t from) const {
    if (z.degree > static_cast<double>(kMaxPolyExponent))
      throw InputError("polynomial text, character " + std::to_string(from + 1) + ": a degree of about " +
                       g3(z.degree) + "; exponents and degrees of 2^62 or more are refused");
    if (z.terms > max_terms_)
      throw LimitError("polynomial text, character " + std::to_string(from + 1) + ": its expansion could have " +
                       g3(z.terms) + " terms, more than max_terms " + g3(max_terms_));
    if (z.bits > kMaxCoefficientBits)
      throw LimitError("polynomial text, character " + std::to_string(from + 1) + ": coefficients of about " +
                       g3(z.bits) + " bits; more than 2^24 bits is refused");
    if (z.terms * (z.bits / 8 + 16) > kMaxBytes)
      throw LimitError("polynomial text, character " + std::to_string(from + 1) + ": its expansion could take " +
                       g3(z.terms * (z.bits / 8 + 16)) + " bytes (" + g3(z.terms) + " terms with coefficients of " +
                       g3(z.bits) + " bits); more than 2^30 bytes is refused");
    return z;
  }
  std::string digits() {
    skip();
    const std::size_t b = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    return s_.substr(b, i_ - b);
  }

  Size sum(int depth) {
    const std::size_t from = i_;
    Size z = product(depth);
    while (at('+') || at('-')) {
      ++i_;
      const Size y = product(depth);
      z = checked({z.terms + y.terms, std::max(z.degree, y.degree), std::max(z.bits, y.bits) + 1}, from);
    }
    return z;
  }

  Size product(int depth) {
    const std::size_t from = i_;
    Size z = signed_power(depth);
    while (at('*') || at('/')) {
      if (s_[i_++] == '*') {
        const Size y = signed_power(depth);
        z = checked({z.terms * y.terms, z.degree + y.degree,
                     z.bits + y.bits + std::log2(std::max(1.0, std::min(z.terms, y.terms)))},
                    from);
        continue;
      }
      // FLINT divides by any polynomial and aborts on a zero divisor ("1/0",
      // "1/(x0 - x0)"): only a nonzero whole number divides.
      const std::size_t at_slash = i_ - 1;
      const std::string d = digits();
      if (d.empty() || d.find_first_not_of('0') == std::string::npos) {
        i_ = at_slash;
        fail("'/' and a nonzero whole number (division is by a nonzero whole number only: p/q coefficients)");
      }
      if (at('^')) fail("a divisor without '^' (write the number)");
      z = checked({z.terms, z.degree, z.bits + log2_of(d)}, from);
    }
    return z;
  }

  Size signed_power(int depth) {
    if (at('-') || at('+')) {
      if (depth >= kMaxNesting) fail("at most " + std::to_string(kMaxNesting) + " nested signs and parentheses");
      ++i_;
      return signed_power(depth + 1);
    }
    const std::size_t from = i_;
    Size z = atom(depth);
    if (!at('^')) return z;
    ++i_;
    const std::size_t at_exp = i_;
    const std::string e = digits();
    if (e.empty()) fail("a whole number after '^'");
    const std::size_t nz = std::min(e.find_first_not_of('0'), e.size());
    const std::string en = e.substr(nz);
    if (en.size() > 19 || (en.size() == 19 && en > std::to_string(kMaxPolyExponent))) {
      i_ = at_exp;
      skip();
      throw InputError("polynomial text, character " + std::to_string(i_ + 1) + ": the exponent " + clip(e, 30) +
                       " is 2^62 or more (exponents of at most 2^62 - 1 are taken)");
    }
    if (at('^')) fail("one exponent (x^2^3 is ambiguous: write (x^2)^3 or x^8)");
    const double n = en.empty() ? 0 : std::stod(en);
    double terms = 1;
    if (z.terms > 1 && n > 0)  // a sum of t monomials to the n: at most binom(n + t - 1, t - 1) monomials
      terms = std::exp(std::lgamma(n + z.terms) - std::lgamma(n + 1) - std::lgamma(z.terms));
    return checked({terms, z.degree * n, n * (z.bits + std::log2(std::max(1.0, z.terms)))}, from);
  }

  Size atom(int depth) {
    skip();
    if (i_ >= s_.size()) fail("a number, a variable or '('");
    const unsigned char c = static_cast<unsigned char>(s_[i_]);
    if (c == '(') {
      if (depth >= kMaxNesting) fail("at most " + std::to_string(kMaxNesting) + " nested signs and parentheses");
      ++i_;
      const Size z = sum(depth + 1);
      if (!at(')')) fail("')'");
      ++i_;
      return z;
    }
    if (std::isdigit(c)) {
      const std::string d = digits();
      return {1, 0, log2_of(d)};
    }
    if (std::isalpha(c) || c == '_') {
      const std::size_t b = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
      const std::string name = s_.substr(b, i_ - b);
      if (!names_.count(name)) {
        i_ = b;
        fail("a variable of the polynomial");
      }
      return {1, 1, 0};
    }
    fail("a number, a variable or '('");
  }

  const std::string& s_;
  std::set<std::string> names_;
  double max_terms_;
  std::size_t i_ = 0;
};

}  // namespace

FmpqMpoly parse_poly_text(const std::string& text, const std::vector<std::string>& names, double max_terms) {
  if (names.size() > 100000) throw InputError("a polynomial in more than 100,000 variables is refused");
  if (text.size() > 10000000) throw InputError("a polynomial text of more than 10^7 characters is refused");
  Checker(text, names, max_terms).run();
  auto ctx = std::make_shared<FmpqMpolyCtx>(static_cast<slong>(std::max<std::size_t>(names.size(), 1)));
  FmpqMpoly p(ctx);
  std::vector<const char*> v;
  for (const auto& n : names) v.push_back(n.c_str());
  if (names.empty()) v.push_back("x_unused");
  if (fmpq_mpoly_set_str_pretty(p.get(), text.c_str(), v.data(), p.c()) != 0)
    throw InputError("polynomial text: expected a polynomial in " + std::to_string(names.size()) +
                     " variables with rational coefficients (numbers, names, + - * ^ and parentheses)");
  return p;
}

}  // namespace netpoly
