#!/bin/sh
# Every output is written through what is there (issue 38, item 13): a
# symbolic link keeps pointing at its file, which gets the text; a FIFO and a
# character device are written, never replaced by a regular file; a file the
# run reads (the claim file given to --junit, a shard given to -o) is refused
# with exit 2 and left unchanged.
set -eu
np="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL $*"; exit 1; }
cat >"$dir/c.np" <<'NP'
claim "small"
  for net in attention(layers = 1, width = 2, tokens = 2, seed = 1)
  check sep(net; half) <= bound("LV Thm 3", net)
NP
cp "$dir/c.np" "$dir/keep.np"

# --junit CLAIMS.np: refused, the claim file unchanged (on the main of issue 38 it became the JUnit XML).
set +e
"$np" check "$dir/c.np" --junit "$dir/c.np" >"$dir/out" 2>"$dir/err"
rc=$?
set -e
[ $rc -eq 2 ] || { cat "$dir/err"; fail "check --junit CLAIMS.np: exit $rc, expected 2"; }
cmp -s "$dir/c.np" "$dir/keep.np" || fail "check --junit CLAIMS.np changed the claim file"
grep -qF "the claim file" "$dir/err" || { cat "$dir/err"; fail "the refusal does not name the claim file"; }
# ... and through a symbolic link to it.
ln -s c.np "$dir/report.xml"
if "$np" check "$dir/c.np" --junit "$dir/report.xml" >/dev/null 2>&1; then fail "--junit through a link to the claim file"; fi
cmp -s "$dir/c.np" "$dir/keep.np" || fail "--junit through a link changed the claim file"

sweep="--arch attention --layers 1 --width 2 --heads 1 --tokens 2"
"$np" table $sweep -o "$dir/s.json" 2>/dev/null
# table --merge SHARD -o SHARD: refused, the shard unchanged.
cp "$dir/s.json" "$dir/s.keep"
if "$np" table --merge "$dir/s.json" -o "$dir/s.json" 2>/dev/null; then fail "--merge -o its own shard"; fi
cmp -s "$dir/s.json" "$dir/s.keep" || fail "--merge changed its own shard"

# A symbolic link: it stays a link, its file gets the table.
echo old >"$dir/target.md"
ln -s target.md "$dir/link.md"
"$np" table --merge "$dir/s.json" -o "$dir/link.md" 2>/dev/null
[ -L "$dir/link.md" ] || fail "-o LINK: the link was replaced by a file"
grep -q '^| L |' "$dir/target.md" || fail "-o LINK: the file it names did not get the table"

# A FIFO: a reader gets the table, the FIFO stays.
mkfifo "$dir/pipe.md"
cat "$dir/pipe.md" >"$dir/from-pipe" &
reader=$!
"$np" table --merge "$dir/s.json" -o "$dir/pipe.md" --format md 2>/dev/null
wait $reader
[ -p "$dir/pipe.md" ] || fail "-o FIFO: the FIFO was replaced by a file"
grep -q '^| L |' "$dir/from-pipe" || fail "-o FIFO: the reader got no table"
# A sweep re-renders a file after every row, but writes a FIFO once, at the end: a reader gets the whole table once.
mkfifo "$dir/sweep.md"
cat "$dir/sweep.md" >"$dir/from-sweep" &
reader=$!
"$np" table --arch attention --layers 1..2 --width 2 --heads 1 --tokens 2 -o "$dir/sweep.md" 2>/dev/null
wait $reader
[ -p "$dir/sweep.md" ] || fail "table -o FIFO: the FIFO was replaced by a file"
[ "$(grep -c '^| 1 | \|^| 2 | ' "$dir/from-sweep")" -eq 2 ] || { cat "$dir/from-sweep"; fail "table -o FIFO: not the two rows once"; }

# A character device (as root: a private null device and a full one, never the system's).
if [ "$(id -u)" -eq 0 ] && mknod "$dir/null" c 1 3 2>/dev/null && mknod "$dir/full" c 1 7 2>/dev/null; then
  "$np" check "$dir/c.np" --junit "$dir/null" >/dev/null
  [ -c "$dir/null" ] || fail "--junit DEVICE: the device became a regular file"
  set +e
  "$np" check "$dir/c.np" --junit "$dir/full" >/dev/null 2>"$dir/err"
  rc=$?
  set -e
  [ -c "$dir/full" ] || fail "--junit /dev/full: the device became a regular file"
  [ $rc -eq 3 ] || { cat "$dir/err"; fail "--junit /dev/full: exit $rc, expected 3 (a failed write)"; }
else
  echo "(character devices skipped: not root)"
fi
echo "outputs are written through links, FIFOs and devices; inputs are never overwritten"
