#!/bin/sh
# expand --estimate (issue 30 §1): the estimate without the expansion,
# compared with what the expansion then measures (expand --stats --all).
# expand_estimate.sh NETPOLY DATA_DIR SCENARIO prints "OK SCENARIO" or
# "FAIL SCENARIO: why".
set -u
np="$1"
data="$2"
what="$3"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL $what: $*"; for f in out err; do [ -s "$dir/$f" ] && { echo "--- $f:"; head -c 3000 "$dir/$f"; }; done; exit 1; }
run() { "$np" "$@" >"$dir/out" 2>"$dir/err"; rc=$?; }

# bound MODEL [EXACT]: the estimate's terms and degree bound every output
# entry's measured terms and degree (estimate_expansion promises an upper
# bound); with EXACT, the estimate and the largest measured count are both
# EXACT (a count derived by hand below).
bound() {
  run expand "$1" --estimate --json
  [ "$rc" -eq 0 ] || fail "--estimate exit $rc on $1"
  cp "$dir/out" "$dir/est.json"
  run expand "$1" --stats --all --json
  [ "$rc" -eq 0 ] || fail "--stats exit $rc on $1"
  python3 - "$dir/est.json" "$dir/out" "${2:-}" <<'PY' || fail "on $1"
import json, sys
est = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
assert est["estimate_only"] is True and "polynomial" not in json.dumps(est), est
e = est["estimate"]
terms = max(o["terms"] for o in got["outputs"])
degree = max(o["degree"] for o in got["outputs"])
assert e["terms"] >= terms, f"estimate {e['terms']} terms < measured {terms}"
assert e["degree"] >= degree, f"estimate degree {e['degree']} < measured {degree}"
# the same estimate as the expansion's own JSON reports
assert got["estimate"] == e, (got["estimate"], e)
if sys.argv[3]:
    want = int(sys.argv[3])
    assert e["terms"] == want and terms == want, f"expected {want}: estimate {e['terms']}, measured {terms}"
PY
}

case "$what" in
  exact_attention)
    # attention-example.json (N=2, d=2, one head): y_i = sum_j (x_i Q K^T x_j^T) (x_j V), degree 3.
    # The token-degree vectors are (3,0) and (1,2) for y_0: C(3+1,3) = 4 monomials of degree 3 in
    # token 0's two variables, and 2 * C(2+1,2) = 6 with degree 1 in token 0 and 2 in token 1:
    # 10 (the expansion measures 10, tests/cli_tests.cmake cli_expand_stats).
    bound "$data/attention-example.json" 10 ;;
  exact_mlp)
    # mlp L=2 d=3: one token, (x^2)^2, degree 4 in 3 variables: every monomial, C(4+2,2) = 15.
    "$np" make mlp --layers 2 --width 3 --seed 1 -o "$dir/mlp.json" || fail make
    bound "$dir/mlp.json" 15 ;;
  upper)
    # Residual, permuted, Gaussian and hidden-width models: an upper bound.
    for m in mixed.json branches.json gaussian.json token-mix-hidden.json product-rect.json; do
      bound "$data/$m"
    done
    "$np" make mixer --layers 2 --width 2 --tokens 3 --residual --seed 1 -o "$dir/mix.json" || fail make
    bound "$dir/mix.json" ;;
  text)
    # The text form says it is an estimate, has the JSON's numbers, and prints no polynomial.
    run expand "$data/attention-example.json" --estimate
    [ "$rc" -eq 0 ] || fail "exit $rc"
    grep -q "^estimate (no expansion done)" "$dir/out" || fail "no estimate header"
    grep -q "terms   <= 10 per output entry" "$dir/out" || fail "terms line"
    grep -q "degree  <= 3 (homogeneous" "$dir/out" || fail "degree line"
    grep -q "expand  would start" "$dir/out" || fail "verdict line"
    grep -q "x0_0" "$dir/out" && fail "a polynomial was printed"
    : ;;
  refused)
    # An expansion expand refuses (estimated beyond --max-terms): --estimate
    # exits 0 and quotes the refusal, and expand itself then exits 3 with it.
    "$np" make attention --layers 3 --width 8 --heads 2 --tokens 4 --seed 1 -o "$dir/big.json" || fail make
    run expand "$dir/big.json" --estimate
    [ "$rc" -eq 0 ] || fail "exit $rc"
    grep -q "expand  would refuse: refusing to expand: up to .* exceeds --max-terms" "$dir/out" || fail "no refusal"
    run expand "$dir/big.json" --stats
    [ "$rc" -eq 3 ] || fail "expand exit $rc, expected 3"
    grep -q "refusing to expand: up to" "$dir/err" || fail "expand's refusal differs" ;;
  *) fail "unknown scenario" ;;
esac
echo "OK $what"
