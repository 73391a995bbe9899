#include "netpoly/flint.hpp"

#include "netpoly/error.hpp"

namespace netpoly {

bool Fmpz::set_str(const std::string& s) {
  if (s.empty()) return false;
  std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return false;
  for (std::size_t k = i; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return false;
  std::string t = s[0] == '+' ? s.substr(1) : s;
  return fmpz_set_str(v_, t.c_str(), 10) == 0;
}

std::string Fmpz::str() const {
  char* c = fmpz_get_str(nullptr, 10, v_);
  std::string s(c);
  flint_free(c);
  return s;
}

std::string Fmpq::str() const {
  char* c = fmpq_get_str(nullptr, 10, v_);
  std::string s(c);
  flint_free(c);
  return s;
}

void require_prime_modulus(ulong p, const std::string& what) {
  if (p < 2 || !n_is_prime(p))
    throw InputError(what + ": modulus " + std::to_string(p) + " is not a prime");
  if (p >= (UWORD(1) << 63))
    throw InputError(what + ": modulus " + std::to_string(p) + " does not fit in 63 bits");
}

}  // namespace netpoly
