#!/usr/bin/env bash
# Shards are data: seprank --merge refuses a modulus that is not a prime (a
# rank mod a composite bounds nothing) and a shard without its model's name
# (exit 2, naming the file and field, not an internal error), and shows a
# name carrying terminal escapes escaped. Forged from a real shard of mixer
# (2,2,2), sep 9 (caps 3 + 3 + 3, support 9). A shard whose upper bound and
# one cap are lowered by one (its block's rank and points with them) merges
# alone as a false "sep 8 (exact)": given the model, the merge recomputes the
# layout and refuses it (exit 2, naming the field), refuses the shard against
# another model (sha256), and accepts the real shard. Without the model no
# merge says `exact` (issue 49 §3): the lowered shard merges as "sep 8 (stated
# by the shards, not certified by this run)", and so does a shard whose ranks
# were raised to caps raised with them (sep 20 stated for a network of sep 9).
# A forged share count of 2^20 is refused from the shard alone, at once.
# Usage: shard_forged.sh NETPOLY WORKDIR
set -u
np=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
"$np" make mixer --layers 2 --tokens 2 --width 2 --seed 1 -o m.json || exit 1
"$np" seprank m.json --seed 1 --blocks 1/1 -o s.json >/dev/null 2>&1 || { echo "FAIL shard_forged: no shard"; exit 1; }
python3 - <<'PY' || exit 1
import json
j = json.load(open("s.json"))
a = json.loads(json.dumps(j)); a["prime"] = 4194303  # 2^22 - 1 = 3 * 23 * 89 * 683
json.dump(a, open("composite.json", "w"))
b = json.loads(json.dumps(j)); del b["model"]["name"]
json.dump(b, open("noname.json", "w"))
c = json.loads(json.dumps(j)); c["model"]["name"] = "evil\x1b[31mred"
json.dump(c, open("esc.json", "w"))
d = json.loads(json.dumps(j)); assert d["upper"]["value"] == 9 and d["layout"][2]["cap"] == 3
d["upper"]["value"] = 8; d["layout"][2]["cap"] = 2
d["blocks"][2].update(cap=2, rank=2, points=2)
json.dump(d, open("lowered.json", "w"))
e = json.loads(json.dumps(j)); e["layout"][1]["cap"] = 2; e["blocks"][1].update(cap=2, rank=2, points=2)
json.dump(e, open("cap.json", "w"))
t = json.dumps(j)  # 200,000 levels of nesting once crashed the merge (a recursion per level)
open("deep.json", "w").write(t.replace('"upper": {', '"x": ' + "[" * 200000 + "]" * 200000 + ', "upper": {', 1))
open("dup.json", "w").write(t.replace('"seed": 1', '"seed": 99, "seed": 1', 1))
f = json.loads(t)  # caps summing past 2^64 wrapped into a false "exact"
for k, c in ((0, 2**63), (1, 2**63 + 10)):
    f["layout"][k]["cap"] = c; f["blocks"][k].update(cap=c, reached_cap=False)
f["upper"] = None
json.dump(f, open("over.json", "w"))
g = json.loads(t); g["model"]["name"] = "bogus"; json.dump(g, open("name.json", "w"))
h = json.loads(t); h["share"] = {"index": 1, "count": 2}; json.dump(h, open("share.json", "w"))
r = json.loads(t); r["upper"] = None  # every cap and rank raised: the sum is any value the forger wants
for k, c in ((0, 7), (1, 7), (2, 6)):
    r["layout"][k]["cap"] = c; r["blocks"][k].update(cap=c, rank=c, points=c, reached_cap=True)
json.dump(r, open("raised.json", "w"))
n = json.loads(t); n["share"] = {"index": 1, "count": 1048576}; json.dump(n, open("count.json", "w"))
PY
cp s.json "$(printf 's\377.json')" || exit 1
"$np" make mixer --layers 2 --tokens 2 --width 2 --seed 2 -o other.json || exit 1
fail() { echo "FAIL shard_forged: $*"; exit 1; }
out=$("$np" seprank --merge composite.json 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"composite.json: prime: 4194303 is not a prime"* ]] || fail "composite: exit $rc: $out"
out=$("$np" seprank --merge noname.json 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"noname.json: model: missing required field \"name\""* ]] || fail "no name: exit $rc: $out"
out=$("$np" seprank --merge esc.json 2>&1); rc=$?
[ $rc -eq 0 ] && [[ $out == *"model 'evil\\x1b[31mred'"* ]] && [[ $out != *$'\x1b'* ]] || fail "escape: exit $rc: $out"
out=$("$np" seprank --merge lowered.json 2>&1); rc=$?
[ $rc -eq 0 ] && [[ $out == *"sep 8 (stated by the shards, not certified by this run)"* ]] && [[ $out != *"exact"* ]] &&
  [[ $out == *"as the shards state them"* ]] || fail "lowered, no model: exit $rc: $out"
out=$("$np" seprank --merge raised.json 2>&1); rc=$?
[ $rc -eq 0 ] && [[ $out == *"sep 20 (stated by the shards, not certified by this run)"* ]] && [[ $out != *"exact"* ]] ||
  fail "raised, no model: exit $rc: $out"
out=$("$np" seprank --merge raised.json --json 2>&1); rc=$?
[ $rc -eq 0 ] && [[ $out == *'"status": "stated"'* ]] && [[ $out == *'"certified": false'* ]] || fail "raised, --json: exit $rc: $out"
out=$(timeout 10 "$np" seprank m.json --merge count.json 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"count.json: share.count: 1048576 shares of 5 block(s)"* ]] || fail "share count: exit $rc: $out"
out=$("$np" seprank m.json --merge lowered.json 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"lowered.json: upper: states"* ]] && [[ $out == *"but m.json gives"* ]] || fail "lowered, model: exit $rc: $out"
out=$("$np" seprank m.json --merge cap.json 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"cap.json: layout[1].cap: states 2, but m.json gives 3"* ]] || fail "cap, model: exit $rc: $out"
out=$("$np" seprank other.json --merge s.json 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"s.json: model.sha256:"*"another model"* ]] || fail "other model: exit $rc: $out"
out=$("$np" seprank m.json --merge s.json --seed 3 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"--seed differs from the shards' (1)"* ]] || fail "--seed: exit $rc: $out"
out=$("$np" seprank m.json --merge s.json 2>&1); rc=$?
[ $rc -eq 0 ] && [[ $out == *"sep 9 (exact)"* ]] && [[ $out == *"recomputed from m.json"* ]] || fail "model: exit $rc: $out"
out=$("$np" seprank --merge deep.json 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"deep.json: invalid JSON: nested deeper than 32 levels"* ]] || fail "deep: exit $rc: $out"
out=$("$np" seprank --merge dup.json 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"dup.json: (top level): duplicate key \"seed\""* ]] || fail "duplicate key: exit $rc: $out"
out=$("$np" seprank --merge over.json 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"caps sum past 2^64"* ]] || fail "caps overflow: exit $rc: $out"
out=$("$np" seprank m.json --merge name.json 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"name.json: model.name: is 'bogus'"* ]] || fail "model name: exit $rc: $out"
out=$("$np" seprank m.json --merge share.json 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"share.json: blocks: holds units [0,1,2], but share 1/2"* ]] || fail "share: exit $rc: $out"
out=$("$np" seprank m.json --merge "$(printf 's\377.json')" --json 2>&1); rc=$?
[ $rc -eq 0 ] && [[ $out == *'"merged": ['*'s\\xff.json'* ]] || fail "non-UTF-8 path: exit $rc: $out"
echo "OK shard_forged"
