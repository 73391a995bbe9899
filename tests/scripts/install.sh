#!/usr/bin/env bash
# Installing netpoly into a Python environment of one's own (pyproject.toml,
# python/backend/netpoly_build.py): install.sh SOURCE BUILD prints
# "OK install" when it works, "FAIL install: why" otherwise.
#
# For each CPython whose extension suffix matches the one BUILD holds (the
# python3 on PATH, e.g. pyenv's, and Debian's /usr/bin/python3), in a fresh
# venv (python3 -m venv, no system site-packages) and without a network
# (pip --no-index):
#   - the first interpreter installs from the source tree (pip install .),
#     each other builds a wheel (pip wheel .) and installs that file; a single
#     interpreter does both, in two venvs. The backend packs BUILD's objects
#     (-C build-dir=BUILD -C pack-only=1: it packs what is built there, never
#     rebuilding it under the other tests; a plain pip install . would pack
#     SOURCE/build when it matches, or build from scratch;
#     install.sh --from-scratch SOURCE builds from scratch (reuse=no), in
#     about as long as scripts/setup's first build);
#   - the wheel's RECORD matches its files (hash and size);
#   - `import netpoly` comes from the venv and imports no NumPy/SymPy/torch;
#   - `netpoly --version` and `python -m netpoly --version` print what
#     BUILD/netpoly prints; the same model, the same analysis (support and
#     black-box, fixed seed) from the installed CLI and from Python as from
#     BUILD/netpoly; stdin, exit codes, SIGPIPE and SIGINT pass through,
#     and the console script execs the executable (same process);
#   - nothing installed refers to the build or source tree: ldd of the
#     executable and the extension, and the files the loader opens during
#     the analysis (LD_DEBUG=files for the CLI, /proc/self/maps in Python):
#     libnetpoly_fflas.so is the venv's own copy (on a CPU with AVX2 and FMA;
#     else FLINT, and the details say "flint");
#   - pip uninstall removes the package and the command;
#   - the install prints the command that registers the venv's Python as a
#     Jupyter kernel (seen with pip -v; on a terminal without it).
#
# install.sh --cmake SOURCE BUILD: the C++ library instead (ctest
# cmake_consumer). `cmake --install BUILD --prefix TMP` (BUILD built), then
# examples/cmake-consumer, a CMake project of its own, is configured against
# TMP alone (find_package(netpoly)), built and run; prints "OK cmake install"
# when
#   - TMP/include/netpoly holds exactly SOURCE/include/netpoly's headers (the
#     public ones; nothing of src/), and the example's compile and link lines
#     name nothing of SOURCE or BUILD;
#   - the example runs against TMP's libnetpoly.so and prints the bracket
#     BUILD/netpoly seprank --seed 1 --json gives for the same network.
set -u
scratch=0
cmake_mode=0
if [ "${1:-}" = "--from-scratch" ]; then scratch=1; shift; fi
if [ "${1:-}" = "--cmake" ]; then cmake_mode=1; shift; fi
src=$(cd "$1" && pwd)
build=${2:+$(cd "$2" && pwd)}
what=install
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL $what: $*"; for f in out err; do [ -s "$dir/$f" ] && { echo "--- $f:"; tail -c 3000 "$dir/$f"; }; done; exit 1; }
# The environment of a user's shell, not of the suite: no PYTHONPATH, no pip
# configuration, no cache, no index.
unset PYTHONPATH PYTHONHOME PYTHONSTARTUP VIRTUAL_ENV
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_NO_INDEX=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

if [ $scratch -eq 1 ]; then
  # pip install . as a user runs it: a temporary build tree, deleted after.
  py=$(python3 -c 'import sys; print(sys.executable)') || fail "no python3"
  "$py" -m venv "$dir/venv" >"$dir/out" 2>"$dir/err" || fail "$py -m venv"
  # reuse=no: not the clone's build/ (the backend packs a matching one)
  "$dir/venv/bin/python" -m pip install --config-settings reuse=no "$src" >"$dir/out" 2>"$dir/err" || fail "pip install $src"
  ls "$dir/venv/lib/"python3*/site-packages/netpoly/netpoly >/dev/null || fail "no executable installed"
  ls /tmp | grep -q '^netpoly-wheel-' && echo "note: a netpoly-wheel-* directory is left in /tmp (another build?)"
  "$dir/venv/bin/netpoly" --version || fail "netpoly --version"
  "$dir/venv/bin/python" -c 'import netpoly; print(netpoly.__version__, netpoly.__file__)' || fail "import netpoly"
  for f in "$dir/venv/lib/"python3*/site-packages/netpoly/{netpoly,_netpoly*.so}; do
    ldd "$f" | grep -q "not found" && fail "ldd $f: a library not found"
    strings "$f" | grep -q "netpoly-wheel-" && fail "$f names its temporary build tree"
  done
  echo "OK $what (from scratch)"
  exit 0
fi

if [ $cmake_mode -eq 1 ]; then
  what="cmake install"
  [ -x "$build/netpoly" ] || fail "no $build/netpoly"
  prefix=$dir/prefix
  cmake --install "$build" --prefix "$prefix" >"$dir/out" 2>"$dir/err" || fail "cmake --install $build"
  want=$(cd "$src/include" && find netpoly -type f | sort)
  got=$(cd "$prefix/include" && find netpoly -type f | sort)
  [ "$want" = "$got" ] || fail "installed headers differ from $src/include: $(diff <(echo "$want") <(echo "$got") | tr '\n' ' ')"
  ls "$prefix"/lib*/libnetpoly.so >/dev/null 2>&1 || fail "no libnetpoly.so in $prefix"
  ls "$prefix"/lib*/cmake/netpoly/netpoly-config.cmake >/dev/null 2>&1 || fail "no netpoly-config.cmake in $prefix"
  cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
  cmake -S "$src/examples/cmake-consumer" -B "$dir/example" -DCMAKE_PREFIX_PATH="$prefix" \
        ${cxx:+-DCMAKE_CXX_COMPILER="$cxx"} -DCMAKE_BUILD_TYPE=Release >"$dir/out" 2>"$dir/err" \
    || fail "configuring examples/cmake-consumer against $prefix"
  cmake --build "$dir/example" >"$dir/out" 2>"$dir/err" || fail "building examples/cmake-consumer"
  grep -rlF -e "$src/" -e "$build/" "$dir/example/CMakeFiles" --include=flags.make --include=link.txt >"$dir/out" \
    && fail "the example's compile or link line names the source or build tree: $(cat "$dir/out")"
  ldd "$dir/example/sep_of_attention" | grep -q "libnetpoly.so.* => $prefix/" || fail "the example does not load $prefix's libnetpoly.so"
  "$dir/example/sep_of_attention" >"$dir/got" 2>"$dir/err" || fail "the example exits $?"
  "$build/netpoly" make attention --layers 1 --width 2 --heads 1 --tokens 4 --seed 1 -o "$dir/m.json" >/dev/null || fail "make"
  "$build/netpoly" seprank "$dir/m.json" --seed 1 --json >"$dir/ref.json" 2>"$dir/err" || fail "$build/netpoly seprank"
  want=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
v = lambda e: "-" if e["value"] is None else str(e["value"])
print("lower", v(r["lower"]), "upper", v(r["upper"]), r["status"])' "$dir/ref.json") || fail "reading $dir/ref.json"
  got=$(sed -n 's/^lower \(.*\)$/lower \1/p' "$dir/got")" "$(sed -n 's/.*(\([a-z]*\))$/\1/p' "$dir/got")
  [ "$got" = "$want" ] || fail "the example prints '$got', $build/netpoly seprank '$want'"
  cat "$dir/got"
  echo "OK $what"
  exit 0
fi

[ -x "$build/netpoly" ] || fail "no $build/netpoly"
ext=$(cd "$build/python/netpoly" && ls _netpoly*.so 2>/dev/null | head -1)
[ -n "$ext" ] || fail "no extension in $build/python/netpoly"
suffix=${ext#_netpoly}
version=$("$build/netpoly" --version) || fail "$build/netpoly --version"
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then dense=fflas-ffpack; else dense=flint; fi

# ---- the interpreters: python3 on PATH and Debian's, once each, ABI of BUILD
pys=()
for cand in python3 /usr/bin/python3; do
  exe=$("$cand" -c 'import sys; print(sys.executable)' 2>/dev/null) || continue
  s=$("$exe" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null) || continue
  if [ "$s" != "$suffix" ]; then
    echo "note: $cand ($exe) has extension suffix $s, $build holds $ext: not tested here"
    continue
  fi
  dup=0
  for p in "${pys[@]}"; do [ "$(realpath "$p")" = "$(realpath "$exe")" ] && dup=1; done
  [ $dup -eq 0 ] && pys+=("$exe")
done
[ ${#pys[@]} -ge 1 ] || fail "no CPython with extension suffix $suffix (python3 on PATH, /usr/bin/python3)"
[ ${#pys[@]} -eq 1 ] && pys+=("${pys[0]}")

# ---- the reference: BUILD/netpoly on a small attention network
"$build/netpoly" make attention --layers 1 --width 2 --heads 1 --tokens 4 --seed 1 -o "$dir/m.json" || fail "make"
"$build/netpoly" seprank "$dir/m.json" --methods support,blackbox --seed 1 --json >"$dir/ref.json" 2>"$dir/err" \
  || fail "$build/netpoly seprank"
"$build/netpoly" make attention --layers 2 --width 3 --heads 1 --tokens 4 --seed 1 -o "$dir/big.json" || fail "make"
# the analysis without its timings, sorted: what must match
canon() {
  python3 -c '
import json, sys
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k != "timings"}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
print(json.dumps(strip(json.load(open(sys.argv[1]))), sort_keys=True))' "$1"
}
canon "$dir/ref.json" >"$dir/ref.canon" || fail "reference JSON"
grep -q "\"dense_rank\": \"$dense\"" "$dir/ref.canon" || fail "$build/netpoly: dense_rank is not $dense"
# claims slow enough to interrupt (about 0.15 s each)
for k in $(seq 1 40); do
  printf 'claim "slow %s"\n  for f in random_poly(vars = 16, terms = 48..48, seed = %s..%s)\n  check sep(f * f * f; half) <= sep(f; half)^3\n\n' \
    "$k" "$((k * 100))" "$((k * 100))" >>"$dir/slow.np"
done

# check_venv V: every check on the netpoly installed in venv V
check_venv() {
  local v=$1 vpy=$1/bin/python np=$1/bin/netpoly
  local site
  site=$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])') || fail "$vpy"
  local pkg=$site/netpoly
  [ -x "$np" ] || fail "$v: no netpoly command in bin/"
  [ -x "$pkg/netpoly" ] || fail "$v: no executable in the package"
  local f
  for f in $(cd "$src/python/netpoly" && find . -name '*.py' -o -name py.typed); do
    [ -f "$pkg/$f" ] || fail "$v: python/netpoly/${f#./} is not installed (subpackages included)"
  done
  # nothing outside the system's libraries, nothing in the build or source tree
  for f in "$pkg/netpoly" "$pkg/$ext" "$pkg/libnetpoly_fflas.so"; do
    ldd "$f" >"$dir/out" 2>&1 || fail "ldd $f"
    grep -q "not found" "$dir/out" && fail "ldd $f: a library is not found"
    grep -qF -e "$build" -e "$src" "$dir/out" && fail "ldd $f: a library of the build or source tree"
  done
  # the command
  [ "$("$np" --version)" = "$version" ] || fail "$v: netpoly --version prints '$("$np" --version)', $build/netpoly '$version'"
  [ "$("$vpy" -m netpoly --version)" = "$version" ] || fail "$v: python -m netpoly --version"
  (cd "$dir" && "$np" make attention --layers 1 --width 2 --heads 1 --tokens 4 --seed 1 -o "$dir/m2.json") \
    || fail "$v: netpoly make"
  cmp -s "$dir/m.json" "$dir/m2.json" || fail "$v: netpoly make wrote another model than $build/netpoly"
  LD_DEBUG=files "$np" seprank "$dir/m.json" --methods support,blackbox --seed 1 --json >"$dir/out" 2>"$dir/err" \
    || fail "$v: netpoly seprank"
  [ "$(canon "$dir/out")" = "$(cat "$dir/ref.canon")" ] || fail "$v: netpoly seprank differs from $build/netpoly"
  grep "file=" "$dir/err" | grep -F -e "$build" -e "$src" >"$dir/out" && fail "$v: the CLI loaded from the build tree: $(cat "$dir/out")"
  if [ $dense = fflas-ffpack ]; then
    grep -q "file=$pkg/libnetpoly_fflas.so " "$dir/err" || fail "$v: the CLI did not load $pkg/libnetpoly_fflas.so"
  fi
  "$np" seprank - --methods support,blackbox --seed 1 --json <"$dir/m.json" >"$dir/out" 2>"$dir/err" \
    || fail "$v: netpoly seprank - (stdin)"
  [ "$(canon "$dir/out")" = "$(cat "$dir/ref.canon")" ] || fail "$v: netpoly seprank - differs"
  # exit codes and messages
  "$build/netpoly" seprank "$dir/missing.json" >/dev/null 2>"$dir/want"; local want=$?
  "$np" seprank "$dir/missing.json" >"$dir/out" 2>"$dir/err"; local rc=$?
  [ $rc -eq 2 ] && [ $want -eq 2 ] || fail "$v: a missing file: exit $rc, $build/netpoly $want, expected 2"
  cmp -s "$dir/want" "$dir/err" || fail "$v: a missing file: another message than $build/netpoly's"
  # SIGPIPE: a closed pipe ends both the same way (141 = 128 + SIGPIPE)
  "$build/netpoly" expand "$dir/big.json" 2>/dev/null | head -c 10 >/dev/null; want=${PIPESTATUS[0]}
  "$np" expand "$dir/big.json" 2>"$dir/err" | head -c 10 >/dev/null; rc=${PIPESTATUS[0]}
  [ $rc -eq $want ] || fail "$v: expand | head: exit $rc, $build/netpoly $want"
  # execv: the script's process becomes the executable; SIGINT reaches it (130)
  "$np" check "$dir/slow.np" >"$dir/out" 2>"$dir/err" &
  local pid=$! i=0 exe=""
  while [ $i -lt 200 ]; do
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || break
    [ "$exe" = "$pkg/netpoly" ] && break
    sleep 0.02; i=$((i + 1))
  done
  [ "$exe" = "$pkg/netpoly" ] || { kill $pid 2>/dev/null; fail "$v: process $pid runs '$exe', not $pkg/netpoly"; }
  sleep 0.3
  kill -INT $pid
  wait $pid; rc=$?
  if [ $rc -eq 0 ]; then echo "warning: $v: the claims finished before the interruption"
  else [ $rc -eq 130 ] && grep -q "interrupted" "$dir/err" || fail "$v: SIGINT: exit $rc, expected 130"
  fi
  # Python: the venv's package, the same analysis, the same loaded files
  "$vpy" - "$v" "$build" "$src" "$dir/ref.json" "$dense" "$version" >"$dir/out" 2>"$dir/err" <<'EOF' || fail "$v: Python"
import json, os, sys
v, build, src, ref, dense, version = sys.argv[1:]
import netpoly
assert netpoly.__file__.startswith(os.path.realpath(v) + "/") or netpoly.__file__.startswith(v + "/"), netpoly.__file__
assert version.startswith(f"netpoly {netpoly.__version__} ("), (version, netpoly.__version__)
net = netpoly.make("attention", layers=1, width=2, heads=1, tokens=4, seed=1)
with open(os.path.join(os.path.dirname(ref), "m.json")) as f:
    assert json.loads(net.to_json()) == json.load(f), "the model differs from the CLI's"
r = net.seprank(methods=["support", "blackbox"], seed=1)
want = json.load(open(ref))["results"][0]
assert (r.lower, r.upper, r.status) == (want["lower"]["value"], want["upper"]["value"], want["status"]), (r, want)
got = {m["method"]: (m["value"], m["details"]) for m in r.methods}
for m in want["methods"]:
    assert got[m["method"]] == (m["value"], m["details"]), (m["method"], got[m["method"]], m)
assert got["blackbox"][1]["dense_rank"] == dense
maps = {line.split()[-1] for line in open("/proc/self/maps") if "/" in line}
bad = [p for p in maps if p.startswith((build + "/", src + "/"))]
assert not bad, f"loaded from the build or source tree: {bad}"
if dense == "fflas-ffpack":
    fflas = [p for p in maps if p.endswith("/libnetpoly_fflas.so")]
    assert fflas == [os.path.join(os.path.dirname(netpoly.__file__), "libnetpoly_fflas.so")], fflas
for heavy in ("numpy", "sympy", "torch"):
    assert heavy not in sys.modules, f"the core imported {heavy}"
print("python ok")
EOF
  # uninstall: RECORD lists every file
  "$vpy" -m pip uninstall -y netpoly >"$dir/out" 2>"$dir/err" || fail "$v: pip uninstall"
  [ -e "$np" ] && fail "$v: pip uninstall left bin/netpoly"
  [ -e "$pkg" ] && [ -n "$(find "$pkg" -type f ! -name '*.pyc')" ] && fail "$v: pip uninstall left files in $pkg"
  return 0
}

# check_record WHEEL: RECORD names every file once with its sha256 and size
check_record() {
  python3 - "$1" <<'EOF' >"$dir/out" 2>"$dir/err" || fail "$1: RECORD"
import base64, hashlib, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
rec = [n for n in names if n.endswith(".dist-info/RECORD")]
assert len(rec) == 1, rec
rows = {}
for line in z.read(rec[0]).decode().splitlines():
    path, h, size = line.rsplit(",", 2)
    rows[path] = (h, size)
assert set(rows) == set(names), set(rows) ^ set(names)
for n in names:
    if n == rec[0]:
        continue
    data = z.read(n)
    h = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert rows[n] == (h, str(len(data))), n
EOF
}

i=0
for py in "${pys[@]}"; do
  i=$((i + 1))
  v=$dir/venv$i
  "$py" -m venv "$v" >"$dir/out" 2>"$dir/err" \
    || fail "$py -m venv: no venv/ensurepip in this Python (Debian: install python3-venv; scripts/setup does)"
  if [ $i -eq 1 ]; then
    # -v: pip shows the backend's lines, among them the one command that
    # registers this venv's Python as a Jupyter kernel (HOME: no kernel of
    # the user's runs it; JUPYTER_DATA_DIR unset), written with its path
    HOME="$dir/home" JUPYTER_DATA_DIR="" "$v/bin/python" -m pip install -v --config-settings build-dir="$build" --config-settings pack-only=1 "$src" >"$dir/out" 2>"$dir/err" \
      || fail "$py: pip install $src"
    grep -qF "$v/bin/python -m ipykernel install --user --name venv$i --display-name 'Python (venv$i)'" "$dir/out" "$dir/err" \
      || fail "$py: pip install -v does not print the command that registers the venv's kernel"
  else
    rm -rf "$dir/wheels"
    "$v/bin/python" -m pip wheel --no-deps -w "$dir/wheels" --config-settings build-dir="$build" --config-settings pack-only=1 "$src" >"$dir/out" 2>"$dir/err" \
      || fail "$py: pip wheel $src"
    whl=$(ls "$dir/wheels/"*.whl)
    check_record "$whl"
    "$v/bin/python" -m pip install "$whl" >"$dir/out" 2>"$dir/err" || fail "$py: pip install $whl"
  fi
  check_venv "$v"
  echo "tested: $py ($("$py" --version 2>&1), pip $("$v/bin/python" -m pip --version 2>/dev/null | cut -d' ' -f2))"
done
echo "OK $what"
