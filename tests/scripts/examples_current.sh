#!/bin/sh
# The committed artefacts under examples/ are in step with the code (issue 40,
# section 4). Two checks, by the first argument:
#
#   short NETPOLY  scripts/regenerate writes the short artefacts into a
#                  temporary directory with this build; each must equal the
#                  committed file: tables and journals row for row, with the
#                  timings and the build id masked; plots and models byte for byte.
#   long NETPOLY   the long artefacts (scripts/regenerate --list) take 4 to 40
#                  minutes each, so a sample of their rows is re-run instead:
#                  the rows of each journal with the least recorded time (up
#                  to SAMPLE_SECONDS, default 8, of it, and at least one) are
#                  re-run by scripts/regenerate --resume with this build, the
#                  other rows carried over; each must equal its committed row,
#                  its timing and build id masked. So an artefact is keyed on
#                  what produced its rows (the command's options, the methods,
#                  and the arithmetic: the rows' FLINT must be this build's),
#                  not on the last commit under src/: a commit that changes no
#                  number passes. A change that moves only the rows that take
#                  longer is caught by scripts/regenerate --long, not here.
#                  Every row's build must be a commit of this repository,
#                  not -dirty. Skipped (exit 77) outside a git checkout. An
#                  artefact listed in examples/stale.txt ("FILE.jsonl reason")
#                  is reported, not failed, while it differs; listed and
#                  current fails (the list must not outlive the staleness).
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
  np=${2:?long NETPOLY}
  git -C "$root" rev-parse --git-dir >/dev/null 2>&1 || {
    echo "SKIPPED: $root is not a git checkout, so the long artefacts' builds cannot be placed in its history"
    exit 77
  }
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  version=$("$np" --version | head -1 | sed 's/^netpoly //')
  sample_py="$root/tests/scripts/examples_sample.py" stale="" declared_any=""
  examples=${EXAMPLES_DIR:-$root/examples}  # another copy of examples/ (the test of this check edits one)
  "$root/scripts/regenerate" --list | awk '$2 == "long"' >"$dir/list"
  while read -r name kind files; do
    # EXAMPLES_ONLY="NAME ...": these artefacts only (the test of this check needs one).
    case " ${EXAMPLES_ONLY:-$name} " in *" $name "*) ;; *) continue ;; esac
    for j in $files; do
      case "$j" in *.jsonl) ;; *) continue ;; esac
      why=""
      # Provenance: every row's build is a commit of this repository, made from a clean tree.
      for b in $(python3 -c 'import json, re, sys
builds = {re.search(r"\(git ([0-9a-f]{4,40}(-dirty)?), |$", json.loads(l).get("netpoly_version", "")).group(1) or "none" for l in open(sys.argv[1])}
print(" ".join(sorted(builds)))' "$examples/$j"); do
        case "$b" in
          none) why="its build records no git commit" ;;
          *-dirty) why="its build $b was made from a tree with uncommitted changes" ;;
          *) git -C "$root" cat-file -e "$b^{commit}" 2>/dev/null || why="its build's commit $b is not in this repository" ;;
        esac
      done
      # The sample: the cheapest rows are re-run, the others carried over by --resume.
      mkdir -p "$dir/$name"
      if sample=$(python3 "$sample_py" pick "$examples/$j" "$dir/$name/$j" "$version" "${SAMPLE_SECONDS:-8}" 2>&1); then
        "$root/scripts/regenerate" --only "$name" --out "$dir/$name" --netpoly "$np" --resume >"$dir/$name.log" 2>&1 ||
          { cat "$dir/$name.log"; fail "scripts/regenerate --only $name --resume"; }
        diff=$(python3 "$sample_py" compare "$examples/$j" "$dir/$name/$j" $sample)
        if [ -n "$diff" ]; then
          why="${why:+$why; }$diff"
        else
          echo "examples/$j: $(echo $sample | wc -w) of $(wc -l <"$examples/$j") rows re-run by this build, equal"
        fi
      else
        why="${why:+$why; }$sample"
      fi
      declared=$(awk -v f="$j" '$1 == f { $1 = ""; sub(/^ +/, ""); print; exit }' "$examples/stale.txt" 2>/dev/null || true)
      if [ -n "$why" ] && [ -n "$declared" ]; then
        echo "examples/$j: $why; declared stale in examples/stale.txt ($declared)"; declared_any=1
      elif [ -n "$why" ]; then
        echo "examples/$j: $why"; stale="$stale $j"
      elif [ -n "$declared" ]; then
        echo "examples/$j: declared stale in examples/stale.txt, but this build reproduces its rows: remove its line"
        stale="$stale $j"
      fi
    done
  done <"$dir/list"
  [ -z "$stale" ] || fail "long artefacts this build does not reproduce:$stale; run scripts/regenerate --long (or --only NAME) and commit them"
  if [ -n "$declared_any" ]; then
    echo "the long artefacts of examples/ are current, apart from those declared stale above"
  else
    echo "the long artefacts of examples/: their sampled rows equal a fresh run of this build"
  fi
  ;;
*) echo "usage: $0 short NETPOLY | long NETPOLY" >&2; exit 2 ;;
esac
