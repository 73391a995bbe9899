// Sums and products over lists, and matrices written as lists of rows
// (numbers or polynomials): matmul, kron, transpose, vec, symbols, identity;
// homogeneous components of a polynomial. What LV Lemma 3 (products of
// multiset coefficients), WS's vec(W X V) = (V^T ⊗ W) vec(X) and LV Lemma 5
// (homogeneous parts) need to be written as claims.
#include "claims/eval/work_limits.hpp"
#include "function.hpp"

namespace netpoly::claims_detail {

// A matrix: a non-empty list of non-empty rows of one length, entries numbers or polynomials.
Matrix need_matrix(const Value& v, const SrcLoc& at, const std::string& what) {
  const std::string want = what + ": expected a matrix (a list of rows of one length, like [[1, 2], [3, 4]])";
  if (v.kind != Value::Kind::list || v.list->empty()) fail(at, want + ", got " + display(v, 60));
  Matrix m;
  for (const auto& r : *v.list) {
    if (r.kind != Value::Kind::list || r.list->empty()) fail(at, want + "; a row is " + display(r, 60));
    if (!m.empty() && r.list->size() != m[0].size())
      fail(at, want + "; rows of " + std::to_string(m[0].size()) + " and " + std::to_string(r.list->size()) +
                   " entries");
    for (const auto& x : *r.list)
      if (x.kind != Value::Kind::number && x.kind != Value::Kind::poly && x.kind != Value::Kind::net &&
          x.kind != Value::Kind::output)
        fail(at, what + ": matrix entries are numbers or polynomials, got a " + std::string(kind_name(x.kind)));
    m.push_back(*r.list);
  }
  return m;
}

Value matrix_value(const Matrix& m) {
  std::vector<Value> rows;
  for (const auto& r : m) rows.push_back(make_list(r));
  return make_list(std::move(rows));
}

namespace {

Value sum_prod(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  Value l = a.arg(0);
  const SrcLoc& at = a.pos[0]->loc;
  if (l.kind != Value::Kind::list) fail(at, e.str + ": expected a list (or BODY for NAME in LIST)");
  const bool sum = e.str == "sum";
  Value r = make_int(sum ? 0 : 1);  // the empty sum and product
  WorkClock clock(ev, e);
  for (const auto& x : *l.list) {
    clock.check();
    r = ev.arith(sum ? '+' : '*', r, x, at);
  }
  return r;
}

Value matmul_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const Matrix A = need_matrix(a.arg(0), a.pos[0]->loc, "matmul"), B = need_matrix(a.arg(1), a.pos[1]->loc, "matmul");
  if (A[0].size() != B.size())
    fail(e.loc, "matmul: a " + std::to_string(A.size()) + " x " + std::to_string(A[0].size()) + " matrix times a " +
                    std::to_string(B.size()) + " x " + std::to_string(B[0].size()) + " one");
  // As kron: at most 10^6 entries; and at most 10^8 products of entries.
  const double entries = static_cast<double>(A.size()) * static_cast<double>(B[0].size()),
               products = entries * static_cast<double>(B.size());
  if (entries > 1e6 || products > 1e8)
    limit_reached(e, std::to_string(A.size()) + " x " + std::to_string(B.size()) + " times " +
                         std::to_string(B.size()) + " x " + std::to_string(B[0].size()) +
                         ": more than 10^6 entries or 10^8 products of entries",
                  "no flag raises it");
  WorkClock clock(ev, e);
  Matrix C(A.size(), Row(B[0].size(), make_int(0)));
  for (std::size_t i = 0; i < A.size(); ++i)
    for (std::size_t j = 0; j < B[0].size(); ++j)
      for (std::size_t k = 0; k < B.size(); ++k) {
        clock.tick();
        C[i][j] = ev.arith('+', C[i][j], ev.arith('*', A[i][k], B[k][j], e.loc), e.loc);
      }
  return matrix_value(C);
}

// kron(A, B)[(i p + r), (j q + s)] = A[i][j] B[r][s] (B is p x q).
Value kron_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const Matrix A = need_matrix(a.arg(0), a.pos[0]->loc, "kron"), B = need_matrix(a.arg(1), a.pos[1]->loc, "kron");
  const std::size_t p = B.size(), q = B[0].size();
  if (static_cast<double>(A.size()) * A[0].size() * p * q > 1e6) fail(e.loc, "kron: more than 10^6 entries");
  WorkClock clock(ev, e);
  Matrix C(A.size() * p, Row(A[0].size() * q));
  for (std::size_t i = 0; i < A.size(); ++i)
    for (std::size_t j = 0; j < A[0].size(); ++j)
      for (std::size_t r = 0; r < p; ++r)
        for (std::size_t s = 0; s < q; ++s) {
          clock.tick();
          C[i * p + r][j * q + s] = ev.arith('*', A[i][j], B[r][s], e.loc);
        }
  return matrix_value(C);
}

Value transpose_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const Matrix A = need_matrix(a.arg(0), a.pos[0]->loc, "transpose");
  Matrix T(A[0].size(), Row(A.size()));
  for (std::size_t i = 0; i < A.size(); ++i)
    for (std::size_t j = 0; j < A[0].size(); ++j) T[j][i] = A[i][j];
  return matrix_value(T);
}

// vec(A): the columns of A stacked, as a column (an (rows * cols) x 1 matrix).
Value vec_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const Matrix A = need_matrix(a.arg(0), a.pos[0]->loc, "vec");
  Matrix v;
  for (std::size_t j = 0; j < A[0].size(); ++j)
    for (std::size_t i = 0; i < A.size(); ++i) v.push_back({A[i][j]});
  return matrix_value(v);
}

// identity(n): the n x n identity matrix.
Value identity_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const std::size_t n = need_size(a.arg(0), a.pos[0]->loc, "identity(n)");
  if (n == 0 || n > 1000) fail(a.pos[0]->loc, "identity(n): n in [1, 1000]");
  Matrix I(n, Row(n, make_int(0)));
  for (std::size_t i = 0; i < n; ++i) I[i][i] = make_int(1);
  return matrix_value(I);
}

// symbols(rows, cols): the matrix of variables x{i cols + j} (row-major), polynomials in rows * cols variables.
Value symbols_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const std::size_t r = need_size(a.arg(0), a.pos[0]->loc, "symbols(rows, cols)"),
                    c = need_size(a.arg(1), a.pos[1]->loc, "symbols(rows, cols)");
  if (r == 0 || c == 0 || r * c > 4096) fail(e.loc, "symbols(rows, cols): 1 to 4096 variables");
  auto C = ev.ctx(r * c);
  Matrix X(r, Row(c));
  for (std::size_t i = 0; i < r; ++i)
    for (std::size_t j = 0; j < c; ++j) {
      auto p = std::make_shared<PolyVal>(FmpqMpoly(C));
      fmpq_mpoly_gen(p->p.get(), static_cast<slong>(i * c + j), C->get());
      p->tokens = r * c;  // r c flat variables x0 .. x{r c - 1}, like poly(..., vars = r c)
      X[i][j] = make_poly(p);
    }
  return matrix_value(X);
}

// homogeneous(f, k): the terms of f of total degree k (LV Lemma 5's components).
Value homogeneous_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  auto f = ev.as_poly(a.arg(0), a.pos[0]->loc);
  const slong k = need_int(a.arg(1), a.pos[1]->loc, "the degree of homogeneous(f, k)");
  auto part = [&](const FmpqMpoly& q) {
    FmpqMpoly r(q.ctx()), t(q.ctx());
    for (slong i = 0; i < q.length(); ++i) {
      fmpq_mpoly_get_term(t.get(), q.get(), i, q.c());
      if (fmpq_mpoly_total_degree_si(t.get(), q.c()) == k) fmpq_mpoly_add(r.get(), r.get(), t.get(), q.c());
    }
    return r;
  };
  auto r = std::make_shared<PolyVal>(part(f->p));
  if (f->im) r->im = part(*f->im);  // over Q(i): both parts
  r->tokens = f->tokens;
  r->width = f->width;
  r->flat = f->flat;
  return make_poly(r);
}

}  // namespace

std::vector<FunctionInfo> matrix_functions() {
  using P = FunctionInfo::Part;
  return {
      {"sum", 1, 1, P::none, {}, {}, "sum of a list of numbers or polynomials: sum(L), sum(BODY for NAME in L)", sum_prod},
      {"prod", 1, 1, P::none, {}, {}, "product of a list: prod(L), prod(BODY for NAME in L)", sum_prod},
      {"matmul", 2, 2, P::none, {}, {}, "matrix product A B (matrices: lists of rows)", matmul_fn},
      {"kron", 2, 2, P::none, {}, {}, "Kronecker product A ⊗ B", kron_fn},
      {"transpose", 1, 1, P::none, {}, {}, "transpose of a matrix", transpose_fn},
      {"vec", 1, 1, P::none, {}, {}, "the columns of a matrix stacked, as a column", vec_fn},
      {"identity", 1, 1, P::none, {}, {}, "the n x n identity matrix", identity_fn},
      {"symbols", 2, 2, P::none, {}, {}, "symbols(r, c): the r x c matrix of variables x{i c + j}", symbols_fn},
      {"homogeneous", 2, 2, P::none, {}, {}, "homogeneous(f, k): the terms of f of total degree k", homogeneous_fn},
  };
}

}  // namespace netpoly::claims_detail
