#!/bin/sh
# table --merge and --resume judge the rows they read (issue 29, item 6): an
# edited measurement is marked, a second draw contradicting its row makes it
# degenerate, and a row that does not belong (inconsistent, in conflict with
# another file's, outside the sweep, of another netpoly build, a broken
# journal line) is refused with exit 2, naming the file and the row; nothing
# is written then. A merge of honest shards is still the unsharded table.
set -eu
np="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sweep="--arch attention --layers 1..2 --width 2 --heads 1 --tokens 2"
"$np" table $sweep -o "$dir/full.md"
"$np" table $sweep -o "$dir/s1.json" --shard 1/2
"$np" table $sweep -o "$dir/s2.json" --shard 2/2
row1="attention L=1 d=2 H=1 N=2 seed=1"

# edit IN OUT CODE: runs CODE (Python) on j (the table) and r (its first row), writes OUT.
edit() {
  python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
r = j["rows"][0]
exec(sys.argv[3])
json.dump(j, open(sys.argv[2], "w"), indent=1)
EOF
}
# sep VALUE: both draws of r measure VALUE exactly.
sep() {
  echo "r['lower'] = r['upper'] = $1; r['second_draw'] = '$1'; r['second_draw_bracket'] = dict(r.get('second_draw_bracket', {}), lower=$1, upper=$1, status='exact')"
}
. "$(dirname "$0")/table_refused.sh"  # fail, refused

# Honest shards, and a table with its own journal (the same rows twice): the unsharded table.
"$np" table --merge "$dir/s1.json" "$dir/s1.json.jsonl" "$dir/s2.json" -o "$dir/merged.md" 2>/dev/null
cmp "$dir/full.md" "$dir/merged.md" || fail "the merge of honest shards is not the unsharded table"

# An edited row, exact sep 100: LV Thm 3 <= 3 is marked VIOLATED, and stderr says so.
edit "$dir/s1.json" "$dir/edited.json" "$(sep 100)"
"$np" table --merge "$dir/edited.json" "$dir/s2.json" -o "$dir/edited.md" 2>"$dir/err"
grep -q "^| 1 | 100 | exact | \*\*3 VIOLATED\*\* |" "$dir/edited.md" ||
  { cat "$dir/edited.md"; fail "edited row: LV Thm 3 is not marked VIOLATED"; }
grep -q "VIOLATED by certified measurements" "$dir/err" || fail "edited row: stderr does not say VIOLATED"

# A second draw contradicting its row: degenerate.
edit "$dir/s1.json" "$dir/second.json" "r['second_draw'] = '7'; r['second_draw_bracket'] = dict(r.get('second_draw_bracket', {}), lower=7, upper=7, status='exact')"
"$np" table --merge "$dir/second.json" "$dir/s2.json" -o "$dir/second.md" 2>/dev/null
grep -qF "7 **degenerate: a second generic draw measures 7, this one 3**" "$dir/second.md" ||
  { cat "$dir/second.md"; fail "a contradicting second draw is not marked degenerate"; }

# Two different measurements of one row: refused, naming both files and the row.
edit "$dir/s1.json" "$dir/conflict.json" "$(sep 4)"
refused conflict "row \"$row1\" differs between $dir/s1.json and $dir/conflict.json" \
  "$dir/s1.json" "$dir/conflict.json" "$dir/s2.json"

# A row outside the sweep (width 3).
edit "$dir/s2.json" "$dir/outside.json" "x = dict(r); x['config'] = dict(r['config'], width=3); x['key'] = 'attention L=2 d=3 H=1 N=2 seed=1'; j['rows'].append(x)"
refused outside "$dir/outside.json: row \"attention L=2 d=3 H=1 N=2 seed=1\" is not in the sweep" \
  "$dir/s1.json" "$dir/outside.json"

# lower > upper (it used to render as "9 | exact").
edit "$dir/s1.json" "$dir/crossed.json" "r['lower'] = 9; r['upper'] = 5"
refused crossed "$dir/crossed.json: row \"$row1\": its lower end 9 is above its upper end 5" \
  "$dir/crossed.json" "$dir/s2.json"

# Rows of another netpoly build, and rows without a version: refused, naming both versions.
edit "$dir/s2.json" "$dir/other.json" "r['netpoly_version'] = '0.0.1 (git 0123456789ab, FLINT 2.9.0)'"
refused version "by netpoly 0.0.1 (git 0123456789ab, FLINT 2.9.0)" "$dir/s1.json" "$dir/other.json"
grep -qF "rows of two netpoly builds: $dir/s1.json: row \"$row1\" was measured by netpoly $("$np" --version | sed 's/^netpoly //')" "$dir/err" ||
  { cat "$dir/err"; fail "version: the message does not name this build's version"; }
edit "$dir/s2.json" "$dir/old.json" "r.pop('netpoly_version', None)"
refused unversioned "$dir/old.json: row \"attention L=2 d=2 H=1 N=2 seed=1\" records no netpoly version" \
  "$dir/s1.json" "$dir/old.json"

# A journal line that is not a row (not the last line, so not a torn end): refused, naming the line.
{ echo '{"not": "a row"'; cat "$dir/s1.json.jsonl"; } >"$dir/broken.jsonl"
refused journal "$dir/broken.jsonl:1: not a JSON line" "$dir/broken.jsonl" "$dir/s2.json"

# --resume judges the journal's rows too: an inconsistent row or another build's is refused, the journal kept.
python3 - "$dir/full.md.jsonl" "$dir/crossed.md.jsonl" "$dir/other.md.jsonl" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
a = [dict(x) for x in rows]; a[0]["lower"], a[0]["upper"] = 9, 5
b = [dict(x) for x in rows]; b[1]["netpoly_version"] = "0.0.1 (git 0123456789ab, FLINT 2.9.0)"
open(sys.argv[2], "w").write("".join(json.dumps(x) + "\n" for x in a))
open(sys.argv[3], "w").write("".join(json.dumps(x) + "\n" for x in b))
EOF
for t in crossed other; do
  cp "$dir/$t.md.jsonl" "$dir/keep.jsonl"
  if "$np" table $sweep -o "$dir/$t.md" --resume 2>"$dir/err"; then fail "--resume took the $t journal"; fi
  cmp "$dir/$t.md.jsonl" "$dir/keep.jsonl" || fail "a refused --resume changed the journal"
done
grep -qF "holds rows of netpoly 0.0.1 (git 0123456789ab, FLINT 2.9.0)" "$dir/err" || { cat "$dir/err"; fail "--resume: another build's rows"; }
echo "merged and resumed rows are judged"
