#!/bin/sh
# table --merge of different sweeps of one family (issue 40, section 5): two
# sweeps of attention with other depths and widths merge into one table with
# the union of their rows, each row as a sweep of all of them measures it (the
# rows are deterministic: seeds 1); a row both sweeps have is kept once. Refused
# with exit 2 and nothing written: sweeps of another family (other options,
# another architecture), a shared row the two files measure differently
# (naming both files), and a sweep with rows missing from every file.
set -eu
np="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/table_refused.sh"  # fail, refused
base="--arch attention --heads 1 --tokens 2"
"$np" table $base --layers 1..2 --width 2 -o "$dir/a.json" 2>/dev/null
"$np" table $base --layers 1 --width 2,3 -o "$dir/b.json" 2>/dev/null
# The independent reference: one sweep over both ranges (it has L=2 d=3 too, which neither has).
"$np" table $base --layers 1..2 --width 2,3 -o "$dir/all.md" --columns all --bounds all 2>/dev/null

"$np" table --merge "$dir/b.json" "$dir/a.json" -o "$dir/u.md" --columns all --bounds all 2>"$dir/err" || { cat "$dir/err"; fail "the merge of two sweeps was refused"; }
grep -q "merged 3 rows" "$dir/err" || { cat "$dir/err"; fail "expected 3 rows (L=1 d=2 shared)"; }
# The union's rows, in ascending order of depth and width, are the reference's rows (L=2 d=3 apart);
# the title and the header are the reference's.
grep -v "^| 2 | 3 |" "$dir/all.md" >"$dir/want.md"
cmp "$dir/want.md" "$dir/u.md" || { diff "$dir/want.md" "$dir/u.md"; fail "the union is not the reference's rows"; }
# The merged journal (rows of two sweeps) merges again into the same table.
"$np" table --merge "$dir/u.md.jsonl" -o "$dir/again.md" --columns all --bounds all 2>/dev/null
cmp "$dir/u.md" "$dir/again.md" || fail "the merged journal does not merge into the same table"

# Another family: other options (--partition), another architecture.
"$np" table $base --layers 1 --width 4 --partition A=0 -o "$dir/p.json" 2>/dev/null
refused partition "$dir/p.json: rows of another sweep than $dir/a.json (--partition half there, A=0 here)" \
  "$dir/a.json" "$dir/p.json"
"$np" table --arch mixer --layers 1 --width 2 --tokens 2 -o "$dir/m.json" 2>/dev/null
refused arch "$dir/m.json: rows of another sweep than $dir/a.json (--arch \"attention\" there, \"mixer\" here)" \
  "$dir/a.json" "$dir/m.json"
# The shared row L=1 d=2 measured differently in b.json: refused, naming both files.
python3 - "$dir/b.json" "$dir/b-edited.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
r = next(r for r in j["rows"] if r["config"]["layers"] == 1 and r["config"]["width"] == 2)
r["lower"] = r["upper"] = 2
r["second_draw"] = "2"
r["second_draw_bracket"] = dict(r["second_draw_bracket"], lower=2, upper=2)
json.dump(j, open(sys.argv[2], "w"))
EOF
refused conflict "row \"attention L=1 d=2 H=1 N=2 seed=1\" differs between $dir/a.json and $dir/b-edited.json" \
  "$dir/a.json" "$dir/b-edited.json"
# A shard of another sweep alone (d = 2 and 4 of 2..4): its row d = 3 is in no file, and the message names
# its file (its row d = 2 is a.json's: a row of the union counts wherever it is).
"$np" table $base --layers 1 --width 2..4 --shard 1/2 -o "$dir/b2.json" 2>/dev/null
refused missing "(the sweep of $dir/b2.json): a shard is missing" "$dir/a.json" "$dir/b2.json"
echo "sweeps of one family merge into their union; other families and conflicts are refused"
