#!/bin/sh
# A deliberately false "for every weight" claim (proofs/README.md, *Weight
# quantifiers*): weights_counterexample.sh NETPOLY SCENARIO prints "OK
# SCENARIO" when netpoly behaves as documented, "FAIL SCENARIO: why" otherwise.
#   every_false     the claim fails (exit 1), names and writes the drawn
#                   network under --counterexamples DIR, and `netpoly seprank`
#                   on that file certifies a lower bound above the claim's bound
#   every_default   without --counterexamples the file goes to
#                   ./netpoly-counterexamples (the working directory)
#   json            --json carries the quantifier and the counterexample path
# The shape: attention L = 2, d = 2, H = 1, N = 4, output y0_1, A = tokens
# {0, 1}. Its drawn network (seed 1, small weights) has y0_1 = 0 (sep 0), so
# only the shape's generic sep (18, docs: tests/test_generic.cpp) can refute
# "sep <= 5 for every weight".
set -u
np="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
what="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL $what: $*"; for f in out err; do [ -s "$dir/$f" ] && { echo "--- $f:"; head -c 3000 "$dir/$f"; }; done; exit 1; }
run() { "$np" "$@" >"$dir/out" 2>"$dir/err"; rc=$?; }
"$np" make attention --layers 2 --width 2 --heads 1 --tokens 4 --seed 1 --weights small -o "$dir/att.json" || fail "make"
cat >"$dir/every-false.np" <<'NP'
claim "sep <= 5 for every weight assignment (false: gsep = 18)"
  let net = model("att.json")
  for every weight
  check sep(net[0, 1]; A = tokens 0, 1) <= 5
NP
# the bound the claim states, and the file it must write
bound=5
file=every-false-line4-weights.json
# lower_above FILE: seprank's certified lower end of FILE's output for A = {0, 1} exceeds the bound
lower_above() {
  run seprank "$1" --partition A=0,1 --json
  [ "$rc" -eq 0 ] || fail "seprank $1: exit code $rc"
  python3 - "$dir/out" "$bound" <<'PY' || fail "seprank $1: certified lower end not above $bound"
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["quantity"] == "sep of this network", r["quantity"]
assert r["output"] == {"token": 0, "channel": 1}, r["output"]
assert r["lower"]["value"] > int(sys.argv[2]), r["lower"]
PY
}
case "$what" in
  every_false)
    run check "$dir/every-false.np" --counterexamples "$dir/cex"
    [ "$rc" -eq 1 ] || fail "exit code $rc, expected 1"
    grep -qF "FAIL  sep <= 5 for every weight" "$dir/out" || fail "no FAIL line"
    grep -qF "written: $dir/cex/$file" "$dir/out" || fail "the file is not named"
    grep -qF "re-check: netpoly seprank $dir/cex/$file --partition A=0,1" "$dir/out" || fail "no re-check command"
    [ -f "$dir/cex/$file" ] || fail "$dir/cex/$file not written"
    lower_above "$dir/cex/$file"
    ;;
  every_default)
    (cd "$dir" && "$np" check every-false.np >out 2>err); rc=$?
    [ "$rc" -eq 1 ] || fail "exit code $rc, expected 1"
    [ -f "$dir/netpoly-counterexamples/$file" ] || fail "netpoly-counterexamples/$file not written"
    lower_above "$dir/netpoly-counterexamples/$file"
    ;;
  json)
    run check "$dir/every-false.np" --counterexamples "$dir/cex" --json
    [ "$rc" -eq 1 ] || fail "exit code $rc, expected 1"
    python3 - "$dir/out" "$dir/cex/$file" <<'PY' || fail "JSON"
import json, sys
c = json.load(open(sys.argv[1]))["claims"][0]
assert c["verdict"] == "FAIL", c["verdict"]
ch = c["report"]["checks"][0]
assert ch["weights"] == "every weight", ch
assert ch["counterexample"] == sys.argv[2], ch
assert sys.argv[2] in c["report"]["files"], c["report"]["files"]
PY
    ;;
  *) fail "unknown scenario" ;;
esac
echo "OK $what"
