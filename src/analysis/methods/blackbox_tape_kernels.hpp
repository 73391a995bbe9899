// The kernels of the compiled forward pass (blackbox_tape_ops.hpp), written
// once over a vector type V and included by one file per instruction set,
// each inside its own anonymous namespace (nothing here is shared between
// files compiled for different instruction sets).
//
// Reduction: x (an integer, |x| < 2^53) minus q p with q = round(x pinv).
// x pinv is within 2/p of x / p (two roundings of relative error 2^-53 on a
// quotient below 2^53 / p), so |x - q p| <= p/2 + 2, and x - q p is computed
// exactly (fnmadd: one rounding of a representable integer). mulrem: a b = h
// + l exactly (h = fl(a b), l = fmsub(a, b, h)), then (h - q p) + l with q =
// round(h pinv), exact and in (-p, p) for |a|, |b| < p.

// One instruction over kLanes lanes, four vectors of lanes at a time (four
// independent sums, so the additions do not wait on each other).
template <class V, bool Lazy>
static inline void sum_kernel(double* const* slot, const Op& o, const std::uint32_t* src, const double* coef, const Arith& ar) {
  using T = typename V::T;
  constexpr std::size_t W = V::W, S = 4 * W;
  const T p = V::set1(ar.p), pinv = V::set1(ar.pinv), c0 = V::set1(o.c);
  const auto reduce = [&](T x) { return V::fnmadd(V::round(V::mul(x, pinv)), p, x); };
  const auto mulrem = [&](T a, T b) {
    const T h = V::mul(a, b), l = V::fmsub(a, b, h);
    return V::add(V::fnmadd(V::round(V::mul(h, pinv)), p, h), l);
  };
  double* r = slot[o.dst];
  const std::uint32_t* pairs = src + o.nlin;
  for (std::size_t i = 0; i < kLanes; i += S) {
    T a0 = c0, a1 = c0, a2 = c0, a3 = c0;
    if (o.acc) {
      a0 = V::add(a0, V::load(r + i)), a1 = V::add(a1, V::load(r + i + W));
      a2 = V::add(a2, V::load(r + i + 2 * W)), a3 = V::add(a3, V::load(r + i + 3 * W));
    }
    std::size_t c = 0;
    for (std::uint32_t k = 0; k < o.nlin; ++k) {
      const double* x = slot[src[k]] + i;
      const T y = V::set1(coef[k]);
      if constexpr (Lazy) {
        a0 = V::fma(V::load(x), y, a0), a1 = V::fma(V::load(x + W), y, a1);
        a2 = V::fma(V::load(x + 2 * W), y, a2), a3 = V::fma(V::load(x + 3 * W), y, a3);
      } else {
        a0 = V::add(a0, mulrem(V::load(x), y)), a1 = V::add(a1, mulrem(V::load(x + W), y));
        a2 = V::add(a2, mulrem(V::load(x + 2 * W), y)), a3 = V::add(a3, mulrem(V::load(x + 3 * W), y));
      }
      if (++c == ar.every) {
        a0 = reduce(a0), a1 = reduce(a1), a2 = reduce(a2), a3 = reduce(a3);
        c = 0;
      }
    }
    for (std::uint32_t k = 0; k < o.npair; ++k) {
      const double* x = slot[pairs[2 * k]] + i;
      const double* y = slot[pairs[2 * k + 1]] + i;
      if constexpr (Lazy) {
        a0 = V::fma(V::load(x), V::load(y), a0), a1 = V::fma(V::load(x + W), V::load(y + W), a1);
        a2 = V::fma(V::load(x + 2 * W), V::load(y + 2 * W), a2), a3 = V::fma(V::load(x + 3 * W), V::load(y + 3 * W), a3);
      } else {
        a0 = V::add(a0, mulrem(V::load(x), V::load(y))), a1 = V::add(a1, mulrem(V::load(x + W), V::load(y + W)));
        a2 = V::add(a2, mulrem(V::load(x + 2 * W), V::load(y + 2 * W)));
        a3 = V::add(a3, mulrem(V::load(x + 3 * W), V::load(y + 3 * W)));
      }
      if (++c == ar.every) {
        a0 = reduce(a0), a1 = reduce(a1), a2 = reduce(a2), a3 = reduce(a3);
        c = 0;
      }
    }
    V::store(r + i, reduce(a0)), V::store(r + i + W, reduce(a1));
    V::store(r + i + 2 * W, reduce(a2)), V::store(r + i + 3 * W, reduce(a3));
  }
}

template <class V>
static inline void run_any(const Op* ops, std::size_t n, const std::uint32_t* src, const double* coef,
                           double* const* slot, const Arith& ar) {
  if (ar.lazy) {
    for (std::size_t j = 0; j < n; ++j) sum_kernel<V, true>(slot, ops[j], src + ops[j].off, coef + ops[j].off, ar);
  } else {
    for (std::size_t j = 0; j < n; ++j) sum_kernel<V, false>(slot, ops[j], src + ops[j].off, coef + ops[j].off, ar);
  }
}
