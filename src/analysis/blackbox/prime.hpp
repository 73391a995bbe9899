// The black-box's prime and what its rank says about sep (docs/guide/numbers.md,
// "What the black-box probability is over"). Unless --prime fixes one, the prime is drawn
// uniformly at random among the primes in [2^49, 2^50) from the black-box seed,
// so that no model can be built against it; the failure bound of a block of
// rank r then covers both the random points and the prime dividing a minor.
#pragma once
#include <cstdint>
#include <string>

#include "netpoly/model.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly {

struct BlackboxPrime {
  ulong p = 0;
  bool fixed = false;      // --prime: no probability over the prime
  // Gaussian weights (a+bi): p = 1 mod 4, drawn among those primes, and i maps
  // to a square root of -1 mod p (a reduction of Z[i] modulo a prime ideal
  // over p: the rank mod p is a certified lower bound on the rank over C).
  bool gauss = false;
  std::uint64_t seed = 0;  // the black-box seed (points, and the prime when drawn)
  // The generic separation rank (generic.hpp): the weights are drawn at random
  // mod p too, and the statement is about the shape's generic sep.
  bool generic = false;
};

// Draws the prime from `seed` (rejection sampling: uniform odd numbers of the
// range until one is prime, skipping primes that divide a weight's
// denominator; LimitError after 2^20 candidates), or takes `fixed_prime` when
// it is nonzero.
BlackboxPrime draw_blackbox_prime(const Model& m, std::uint64_t seed, ulong fixed_prime);

// The black-box's first phase (methods/blackbox.cpp): a prime = 1 mod 120
// (1 mod 4 for Gaussian weights; m-th roots of unity for every m | 120)
// drawn uniformly from [2^22, 2^23) with `seed`, dividing no weight's
// denominator. Its ranks are certified lower bounds (as for any prime); it is
// small so that FFLAS-FFPACK eliminates (rank/fflas.hpp), and it carries no
// probability statement: what it proves, it proves by meeting an upper bound.
// 0 when no such prime divides no denominator (a model built against the
// range): the phase is then skipped.
ulong draw_small_prime(const Model& m, std::uint64_t seed);
// "q = ..., a prime = 1 mod 120 drawn at random from [2^22, 2^23) with seed S".
std::string small_prime_text(ulong q, std::uint64_t seed);

// A certified lower bound on the number of primes in [2^49, 2^50) (Dusart).
double blackbox_prime_count();
// ... and on those = 1 mod 4 (Bennett, Martin, O'Bryant, Rechnitzer 2018).
double blackbox_prime_count_1mod4();

// One block's failure bound: 2 (r+1) D / 2^49 (the points, Schwartz-Zippel)
// + (r+1) (h + log2(r+1)/2) / (49 n) (the prime divides a nonzero (r+1)-minor
// of the integral coefficient matrix, entries below 2^h). With a fixed prime
// only the points' part 2 (r+1) D / p, which speaks of rank(C mod p).
// Gaussian weights: the minor is a Gaussian integer α, and the prime ideal
// over p divides it only if p divides its norm |α|^2, which has twice the
// bits: the prime's part doubles, over the primes = 1 mod 4.
double blackbox_block_eps(std::size_t rank, double degree, double height_log2, const BlackboxPrime& bp);

// "p = ..., a prime drawn at random from [2^49, 2^50) with seed S" or "the fixed prime p = ... (--prime)".
std::string blackbox_prime_text(const BlackboxPrime& bp);

// prime, prime_source, seed and height_bits_bound in a method's details.
void blackbox_prime_details(nlohmann::json& details, const BlackboxPrime& bp, double height_log2);

// For a black-box rank whose points did not saturate, with failure bound
// `eps` (summed over blocks): the probability statement (details'
// failure_probability, appended to `how`), or the note saying why none is made.
void state_blackbox_probability(MethodRun& r, double eps, double degree, const BlackboxPrime& bp);

}  // namespace netpoly
