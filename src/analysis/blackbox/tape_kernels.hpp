// The kernels of the compiled forward pass (blackbox/tape_ops.hpp), written
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

// One instruction over kLanes lanes, U vectors of lanes at a time (U
// independent sums, so the additions do not wait on each other, and the
// operands' addresses and coefficients are read once per U vectors).
template <class V, bool Lazy>
static inline void sum_kernel(double* const* slot, const Op& o, const std::uint32_t* src, const double* coef, const Arith& ar) {
  using T = typename V::T;
  constexpr std::size_t W = V::W, U = V::U, S = U * W;
  static_assert(kLanes % S == 0);
  const T p = V::set1(ar.p), pinv = V::set1(ar.pinv), c0 = V::set1(o.c);
  const auto reduce = [&](T x) { return V::fnmadd(V::round(V::mul(x, pinv)), p, x); };
  const auto mulrem = [&](T a, T b) {
    const T h = V::mul(a, b), l = V::fmsub(a, b, h);
    return V::add(V::fnmadd(V::round(V::mul(h, pinv)), p, h), l);
  };
  double* r = slot[o.dst];
  const std::uint32_t* pairs = src + o.nlin;
  for (std::size_t i = 0; i < kLanes; i += S) {
    T a[U];
#pragma GCC unroll 16
    for (std::size_t u = 0; u < U; ++u) a[u] = o.acc ? V::add(c0, V::load(r + i + u * W)) : c0;
    std::size_t c = 0;
    for (std::uint32_t k = 0; k < o.nlin; ++k) {
      const double* x = slot[src[k]] + i;
      const T y = V::set1(coef[k]);
#pragma GCC unroll 16
      for (std::size_t u = 0; u < U; ++u)
        a[u] = Lazy ? V::fma(V::load(x + u * W), y, a[u]) : V::add(a[u], mulrem(V::load(x + u * W), y));
      if (++c == ar.every) {
#pragma GCC unroll 16
        for (std::size_t u = 0; u < U; ++u) a[u] = reduce(a[u]);
        c = 0;
      }
    }
    for (std::uint32_t k = 0; k < o.npair; ++k) {
      const double* x = slot[pairs[2 * k]] + i;
      const double* y = slot[pairs[2 * k + 1]] + i;
#pragma GCC unroll 16
      for (std::size_t u = 0; u < U; ++u)
        a[u] = Lazy ? V::fma(V::load(x + u * W), V::load(y + u * W), a[u])
                    : V::add(a[u], mulrem(V::load(x + u * W), V::load(y + u * W)));
      if (++c == ar.every) {
#pragma GCC unroll 16
        for (std::size_t u = 0; u < U; ++u) a[u] = reduce(a[u]);
        c = 0;
      }
    }
#pragma GCC unroll 16
    for (std::size_t u = 0; u < U; ++u) V::store(r + i + u * W, reduce(a[u]));
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
