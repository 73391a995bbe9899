// Gaussian rationals in the model format: "a+bi" text (gauss.hpp).
#include "model/gauss.hpp"

#include "netpoly/model.hpp"

namespace netpoly {

bool parse_gaussian(const std::string& s, Fmpq& re, Fmpq& im) {
  if (s.empty() || s.back() != 'i') return false;
  const std::string body = s.substr(0, s.size() - 1);
  // The imaginary part starts at the last sign after the first character
  // ("1/2-3i": "-3"); without one the whole body is it ("-3i", "i").
  std::size_t k = body.find_last_of("+-");
  if (k == 0 || k == std::string::npos) k = 0;
  const std::string a = body.substr(0, k), b = body.substr(k);
  if (a.empty()) {
    re = Fmpq();
  } else if (!parse_rational(a, re)) {
    return false;
  }
  if (b.empty() || b == "+") {
    im = Fmpq(1);
  } else if (b == "-") {
    im = Fmpq(-1);
  } else {
    const std::string digits = b[0] == '+' ? b.substr(1) : b;
    if (digits.empty() || digits[0] == '+' || !parse_rational(digits, im)) return false;
  }
  // "1+-2i", "+-i" and the like are refused: a sign follows no sign.
  if (!a.empty() && (a.back() == '+' || a.back() == '-')) return false;
  return true;
}

std::string gaussian_text(const Fmpq& re, const Fmpq& im) {
  if (im.is_zero()) return re.str();
  std::string b;
  if (im == Fmpq(1)) b = "i";
  else if (im == Fmpq(-1)) b = "-i";
  else b = im.str() + "i";
  if (re.is_zero()) return b;
  return re.str() + (b[0] == '-' ? "" : "+") + b;
}

}  // namespace netpoly
