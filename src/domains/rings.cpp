#include "netpoly/rings.hpp"

namespace netpoly {

ModpRing::Scalar ModpRing::scalar(const Fmpq& w) const {
  ulong den = fmpz_fdiv_ui(w.den(), mod.n);
  if (den == 0)
    throw DomainError("weight " + w.str() + " has a denominator divisible by the modulus " +
                      std::to_string(mod.n) + "; choose another prime");
  ulong num = fmpz_fdiv_ui(w.num(), mod.n);
  return nmod_mul(num, n_invmod(den, mod.n), mod);
}

}  // namespace netpoly
