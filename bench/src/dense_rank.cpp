// Dense rank mod p of random n x n matrices: FLINT 2.9's nmod_mat_rank (at a
// prime near 2^49, the black-box's large primes, and near 2^22, its small
// ones) against FFLAS-FFPACK's PLUQ over ModularBalanced<double> at the small
// prime, 1 and 2 OpenBLAS threads (each on its own random matrix, full rank
// with probability about 1 - 1/p). Built and run by
// bench/dense-rank.
#include <flint/nmod_mat.h>
#include <flint/ulong_extras.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fflas-ffpack/fflas-ffpack.h>
#include <givaro/modular-balanced.h>

extern "C" void openblas_set_num_threads(int);
extern "C" char* openblas_get_corename();

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
double cpu() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

void fill(nmod_mat_t A, ulong p, flint_rand_t st) {
  for (slong i = 0; i < A->r; ++i)
    for (slong j = 0; j < A->c; ++j) nmod_mat_entry(A, i, j) = n_randint(st, p);
}

}  // namespace

int main(int argc, char** argv) {
  const ulong big = 564156461550613UL, small = 6251881UL;  // seed 1's primes
  std::printf("OpenBLAS kernels: %s\n", openblas_get_corename());
  std::printf("%7s  %-30s %9s %9s %7s\n", "n", "method", "wall s", "CPU s", "rank");
  for (int a = 1; a < argc; ++a) {
    const slong n = std::atol(argv[a]);
    flint_rand_t st;
    flint_randinit(st);
    slong ranks[2];
    int k = 0;
    for (ulong p : {big, small}) {
      nmod_mat_t A;
      nmod_mat_init(A, n, n, p);
      fill(A, p, st);
      const double w0 = now(), c0 = cpu();
      ranks[k++] = nmod_mat_rank(A);
      std::printf("%7ld  FLINT nmod_mat_rank, p ~ 2^%-3d %9.2f %9.2f %7ld\n", n, p == big ? 49 : 22, now() - w0,
                  cpu() - c0, ranks[k - 1]);
      nmod_mat_clear(A);
    }
    for (int threads : {1, 2}) {
      Givaro::ModularBalanced<double> F(static_cast<double>(small));
      nmod_mat_t A;
      nmod_mat_init(A, n, n, small);
      fill(A, small, st);
      double* D = FFLAS::fflas_new<double>(static_cast<std::size_t>(n * n));
      for (slong i = 0; i < n; ++i)
        for (slong j = 0; j < n; ++j) F.init(D[i * n + j], static_cast<std::uint64_t>(nmod_mat_entry(A, i, j)));
      openblas_set_num_threads(threads);
      const double w0 = now(), c0 = cpu();
      const std::size_t r = FFPACK::Rank(F, static_cast<std::size_t>(n), static_cast<std::size_t>(n), D,
                                         static_cast<std::size_t>(n));
      std::printf("%7ld  FFLAS Rank, p ~ 2^22, %d thread%s  %9.2f %9.2f %7zu\n", n, threads, threads > 1 ? "s" : " ",
                  now() - w0, cpu() - c0, r);
      // Random matrices: full rank but with probability about 1/p; a smaller
      // rank from both libraries at once would be a coincidence worth seeing.
      if (r != static_cast<std::size_t>(n) || ranks[0] != n || ranks[1] != n)
        std::fprintf(stderr, "dense-rank: a rank below n (FLINT %ld, %ld; FFLAS %zu)\n", ranks[0], ranks[1], r);
      FFLAS::fflas_delete(D);
      nmod_mat_clear(A);
    }
    flint_randclear(st);
  }
  return 0;
}
