// The compiled forward pass's instructions (blackbox/tape.hpp) as plain data,
// and the kernels that run them, one per instruction set
// (blackbox/tape_avx2.cpp, blackbox/tape_avx512.cpp: each compiled for its
// own instruction set alone, so nothing here may be an inline function or a
// template another file also instantiates).
#pragma once
#include <cstddef>
#include <cstdint>

namespace netpoly::methods::tape {

// One instruction: dst (+)= c + sum_k coef[off + k] src[off + k] (k < nlin)
// + sum_k src[off + nlin + 2k] src[off + nlin + 2k + 1] (k < npair), reduced
// mod p; `acc`: added to dst's value instead of replacing it. Without terms
// it sets dst to the constant c.
struct Op {
  bool acc;
  std::uint32_t dst, nlin, npair, off;
  double c;
};

// Points per run of a program: each slot holds kLanes doubles.
constexpr std::size_t kLanes = 64;

// The arithmetic. Every value a slot holds is an integer of magnitude below
// p (an input in [0, p), or a sum reduced to at most p/2 + 2); constants and
// coefficients are centred (at most p/2). A sum starts below 2p in magnitude
// (dst and c) and `every` terms on top of it are exact in doubles before one
// reduction by a rounded quotient. `lazy`: terms are plain products (p below
// about 2^25); otherwise each product is first brought into (-p, p) (mulrem).
struct Arith {
  double p, pinv;
  std::size_t every;
  bool lazy;
};

// Runs ops[0..n) on the slots: slot s is kLanes doubles at slot[s] (64-byte
// aligned where the evaluator owns them; a slot the program only reads may
// point into memory it does not own, side B's values prepared beside the
// columns: the kernels load unaligned).
void run_avx2(const Op* ops, std::size_t n, const std::uint32_t* src, const double* coef, double* const* slot,
              const Arith& a);
void run_avx512(const Op* ops, std::size_t n, const std::uint32_t* src, const double* coef, double* const* slot,
                const Arith& a);

}  // namespace netpoly::methods::tape
