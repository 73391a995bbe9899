#!/bin/sh
# The committed artefacts under examples/ are in step with the code (issue 40,
# section 4). Two checks, by the first argument:
#
#   short NETPOLY  scripts/regenerate writes the short artefacts into a
#                  temporary directory with this build; each must equal the
#                  committed file: tables and journals row for row, with the
#                  timings and the build id masked; plots and models byte for byte.
#   long           the long artefacts (scripts/regenerate --list) are not
#                  re-run (4 to 40 minutes each); instead the build that made
#                  them must contain the last commit that changed the code
#                  their rows come from: the rule is
#                    git merge-base --is-ancestor $(git log -1 --format=%H -- src include) BUILD
#                  for the commit BUILD of every row's "netpoly_version"
#                  ("git 4bf024c05d10"); a build marked -dirty (its tree
#                  differed from its commit) or without a commit fails.
#                  Skipped (exit 77) outside a git checkout. An artefact
#                  listed in examples/stale.txt ("FILE.jsonl reason") is
#                  reported, not failed, while it is stale; listed and current
#                  fails (the list must not outlive the staleness).
# Either way a failure names the files and says how to refresh them.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL $*"; exit 1; }
case "${1:-}" in
short)
  np=${2:?short NETPOLY}
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  "$root/scripts/regenerate" --out "$dir" --netpoly "$np" >"$dir/log" 2>&1 || { cat "$dir/log"; fail "scripts/regenerate"; }
  stale=""
  for f in $("$root/scripts/regenerate" --list | awk '$2 == "short" { for (i = 3; i <= NF; i++) print $i }'); do
    [ -e "$dir/$f" ] || fail "scripts/regenerate made no $f"
    [ -e "$root/examples/$f" ] || { stale="$stale $f"; echo "examples/$f: not committed"; continue; }
    python3 - "$root/examples/$f" "$dir/$f" <<'EOF' || stale="$stale $f"
import json, re, sys
committed, fresh = sys.argv[1], sys.argv[2]
build = re.compile(r"git [0-9a-f]{4,40}(-dirty)?")
def rows(path):  # a journal: its rows without their timings, the build id masked
    out = []
    for line in open(path):
        r = json.loads(line)
        r.pop("seconds", None)
        r["netpoly_version"] = build.sub("git X", r.get("netpoly_version", ""))
        out.append(r)
    return out
if committed.endswith(".jsonl"):
    a, b = rows(committed), rows(fresh)
    if a != b:
        diff = [(x.get("key"), y.get("key")) for x, y in zip(a, b) if x != y]
        for x, y in zip(a, b):
            if x != y:
                keys = [k for k in x if x.get(k) != y.get(k)]
                print(f"{committed}: row {x.get('key')}: {', '.join(f'{k}: {x.get(k)} committed, {y.get(k)} fresh' for k in keys[:3])}")
                break
        sys.exit(f"{committed}: {len(a)} rows committed, {len(b)} fresh, {len(diff)} differ")
elif committed.endswith((".md", ".tex")):
    a = build.sub("git X", open(committed).read()).splitlines()
    b = build.sub("git X", open(fresh).read()).splitlines()
    if a != b:
        for k, (x, y) in enumerate(zip(a + [""] * len(b), b + [""] * len(a))):
            if x != y:
                sys.exit(f"{committed}: line {k + 1} differs:\n  committed: {x[:200]}\n  fresh:     {y[:200]}")
elif open(committed, "rb").read() != open(fresh, "rb").read():
    sys.exit(f"{committed}: differs from a fresh run (compared byte for byte)")
EOF
  done
  [ -z "$stale" ] || fail "stale artefacts:$stale; run scripts/regenerate (it rewrites them in examples/) and commit them"
  echo "the short artefacts of examples/ match a fresh run"
  ;;
long)
  git -C "$root" rev-parse --git-dir >/dev/null 2>&1 || {
    echo "SKIPPED: $root is not a git checkout, so the long artefacts' builds cannot be placed in its history"
    exit 77
  }
  code=$(git -C "$root" log -1 --format=%H -- src include)
  [ -n "$code" ] || { echo "SKIPPED: no commit changes src or include (a shallow clone?)"; exit 77; }
  stale="" declared_any=""
  for j in $("$root/scripts/regenerate" --list | awk '$2 == "long" { for (i = 3; i <= NF; i++) if ($i ~ /\.jsonl$/) print $i }'); do
    for b in $(python3 -c 'import json, re, sys
builds = {re.search(r"\(git ([0-9a-f]{4,40}(-dirty)?), |$", json.loads(l).get("netpoly_version", "")).group(1) or "none" for l in open(sys.argv[1])}
print(" ".join(sorted(builds)))' "$root/examples/$j"); do
      why=""
      case "$b" in
        none) why="its build records no git commit" ;;
        *-dirty) why="its build $b was made from a tree with uncommitted changes" ;;
        *) if ! git -C "$root" cat-file -e "$b^{commit}" 2>/dev/null; then
             why="its build's commit $b is not in this repository"
           elif ! git -C "$root" merge-base --is-ancestor "$code" "$b"; then
             why="its build $b predates the last code change $(git -C "$root" log -1 --format='%h (%cs)' "$code") ($(git -C "$root" rev-list --count "$b..$code" -- src include) commits to src/ or include/ since)"
           fi ;;
      esac
      declared=$(awk -v f="$j" '$1 == f { $1 = ""; sub(/^ +/, ""); print; exit }' "$root/examples/stale.txt" 2>/dev/null || true)
      if [ -n "$why" ] && [ -n "$declared" ]; then
        echo "examples/$j: $why; declared stale in examples/stale.txt ($declared)"; declared_any=1
      elif [ -n "$why" ]; then
        echo "examples/$j: $why"; stale="$stale $j"
      elif [ -n "$declared" ]; then
        echo "examples/$j: declared stale in examples/stale.txt, but its build $b has the last code change: remove its line"
        stale="$stale $j"
      fi
    done
  done
  [ -z "$stale" ] || fail "long artefacts older than the code:$stale; run scripts/regenerate --long (or --only NAME) with a build of HEAD and commit them"
  if [ -n "$declared_any" ]; then
    echo "the long artefacts of examples/ are current, apart from those declared stale above"
  else
    echo "the long artefacts of examples/ were made by a build with the last code change"
  fi
  ;;
*) echo "usage: $0 short NETPOLY | long" >&2; exit 2 ;;
esac
