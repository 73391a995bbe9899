# Sourced by the table_*.sh tests that check refused merges; needs $np and $dir.
fail() { echo "FAIL $*"; exit 1; }
# refused NAME TEXT FILES...: the merge exits 2, says TEXT, and writes nothing.
refused() {
  name=$1 want=$2
  shift 2
  set +e
  "$np" table --merge "$@" -o "$dir/$name.md" 2>"$dir/err"
  rc=$?
  set -e
  [ $rc -eq 2 ] || { cat "$dir/err"; fail "$name: exit $rc, expected 2"; }
  grep -qF -- "$want" "$dir/err" || { cat "$dir/err"; fail "$name: the message does not say: $want"; }
  [ ! -e "$dir/$name.md" ] || fail "$name: a refused merge wrote its table"
}
