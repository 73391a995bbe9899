"""netpoly's PEP 517 build backend: CMake builds, the standard library packs.

pyproject.toml names this module with ``requires = []`` and
``backend-path = ["python/backend"]``, so ``pip install .`` needs nothing
from a package index, not even under build isolation: the machine needs
CMake, g++ and the Debian libraries scripts/setup installs (pybind11-dev
among them) and the headers of the interpreter that runs pip.

build_wheel configures the project (CMakeLists.txt) for the running
interpreter (-DPython_EXECUTABLE=sys.executable), builds the ``netpoly``
executable, the FFLAS-FFPACK helper library and the ``_netpoly`` extension,
and writes a wheel tagged for this interpreter (cp311-cp311-linux_x86_64 on
Debian 12) whose ``netpoly/`` holds the Python package, the extension, the
executable and the library side by side; the console script ``netpoly``
(netpoly/__main__.py) execs the executable. Nothing in the wheel refers to
the build tree: the executable and the extension load the library from
their own directory (src/analysis/rank/fflas.cpp).

Settings, as ``pip ... -C NAME=VALUE`` (``--config-settings``) or from the
environment:

  build-dir  (NETPOLY_BUILD_DIR)  a CMake build directory to build in and
             keep: configured there if new, else only built (an existing
             tree keeps its configuration, e.g. build/ of scripts/setup; its
             extension must match this interpreter's EXT_SUFFIX). Without
             it: the clone's build/ when it matches (see reuse), else a
             temporary directory, deleted after: a build from scratch.
             An editable install (pip install -e .) defaults to
             build-editable/ in the source tree.
  reuse      (NETPOLY_REUSE)  "no": never use the clone's build/. Else,
             without build-dir, build/ is used when it matches: a Release
             build of this source tree, not for fuzzing, holding the
             extension for this interpreter's EXT_SUFFIX (scripts/setup's)
             or none (scripts/demo's, the command only: the module is added,
             configured for this interpreter). It is brought up to date
             (cmake --build: only what changed since is compiled) and
             packed; a line says so, or why build/ does not match.
  pack-only  (NETPOLY_PACK_ONLY=1) with build-dir: pack what is built there
             as it is, without running the build (the test suite packs
             build/ while other tests run its binaries; a build would
             regenerate the build id and relink them).
  cmake-args (CMAKE_ARGS)         more arguments for the configure step,
             split like a shell would. CMake also reads
             CMAKE_CXX_COMPILER_LAUNCHER=ccache and
             CMAKE_BUILD_PARALLEL_LEVEL (default here: every core) itself.

Progress: pip shows a backend's output only with -v or after a failure,
so the build's percentage lines (and the lines saying which build tree is
used) go to the terminal itself (/dev/tty) when pip's stderr is not one;
the whole output goes to stderr as well, for pip -v and for failures.
Without a terminal (CI), only stderr.

Metadata comes from pyproject.toml's [project] table; the version from
CMakeLists.txt's project(netpoly VERSION ...), the one place it is written.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

if sys.version_info < (3, 11):  # tomllib; pyproject.toml's requires-python
    raise ImportError(f"netpoly needs Python 3.11 or later; this is {sys.version.split()[0]} ({sys.executable})")
import tomllib  # noqa: E402

__all__ = [
    "get_requires_for_build_wheel", "get_requires_for_build_sdist", "get_requires_for_build_editable",
    "prepare_metadata_for_build_wheel", "prepare_metadata_for_build_editable",
    "build_wheel", "build_sdist", "build_editable",
]

SOURCE = Path(__file__).resolve().parents[2]
PACKAGE = SOURCE / "python" / "netpoly"
# The binaries of build/python/netpoly that go into the wheel besides the
# extension (CMakeLists.txt links them there from the build tree).
BINARIES = ("netpoly", "libnetpoly_fflas.so")
# CMake's unity builds, as scripts/setup configures them (docs/guide/install.md).
UNITY = ["-DCMAKE_UNITY_BUILD=ON"]
# Fixed timestamps make the archives' bytes depend on their contents only
# (SOURCE_DATE_EPOCH overrides, as reproducible-builds.org asks).
EPOCH = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01, zip's earliest


class BuildError(Exception):
    pass


# ---------------------------------------------------------------- metadata
def _project() -> dict:
    with open(SOURCE / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def _version() -> str:
    text = (SOURCE / "CMakeLists.txt").read_text()
    m = re.search(r"project\(\s*netpoly\s+VERSION\s+([0-9]+(?:\.[0-9]+)*)", text)
    if not m:
        raise BuildError("CMakeLists.txt: no project(netpoly VERSION x.y.z) to take the version from")
    return m.group(1)


def _name() -> str:
    return _project()["name"]


def _dist_info() -> str:
    return f"{_name()}-{_version()}.dist-info"


def _metadata() -> str:
    p = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {_version()}"]
    if "description" in p:
        lines.append(f"Summary: {p['description']}")
    if "requires-python" in p:
        lines.append(f"Requires-Python: {p['requires-python']}")
    if isinstance(p.get("license"), dict) and "text" in p["license"]:
        lines.append(f"License: {p['license']['text']}")
    for c in p.get("classifiers", []):
        lines.append(f"Classifier: {c}")
    for r in p.get("dependencies", []):
        lines.append(f"Requires-Dist: {r}")
    for extra, reqs in p.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for r in reqs:
            lines.append(f'Requires-Dist: {r}; extra == "{extra}"')
    body = ""
    if "readme" in p:
        lines.append("Description-Content-Type: text/markdown")
        body = (SOURCE / p["readme"]).read_text()
    return "\n".join(lines) + "\n\n" + body


def _entry_points() -> str:
    scripts = _project().get("scripts", {})
    return "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items())


def _tag() -> str:
    """The wheel tag of the running interpreter, e.g. cp311-cp311-linux_x86_64."""
    if sys.implementation.name != "cpython":
        raise BuildError(f"netpoly's extension is built for CPython; this is {sys.implementation.name}")
    soabi = sysconfig.get_config_var("SOABI") or ""  # cpython-311-x86_64-linux-gnu
    m = re.fullmatch(r"cpython-(\d+[a-z]*)-.*", soabi)
    if not m:
        raise BuildError(f"cannot read the ABI from SOABI={soabi!r}")
    py = f"cp{sys.version_info.major}{sys.version_info.minor}"
    plat = re.sub(r"[^A-Za-z0-9_]", "_", sysconfig.get_platform())
    return f"{py}-cp{m.group(1)}-{plat}"


def _write_metadata_dir(directory: str) -> str:
    d = Path(directory) / _dist_info()
    d.mkdir(parents=True, exist_ok=True)
    (d / "METADATA").write_text(_metadata())
    (d / "entry_points.txt").write_text(_entry_points())
    return d.name


# ---------------------------------------------------------------- settings
def _setting(config_settings, key: str, env: str) -> str | None:
    v = (config_settings or {}).get(key)
    if isinstance(v, list):  # pip passes a repeated -C key=... as a list
        v = v[-1] if v else None
    if v is None:
        v = os.environ.get(env)
    return v or None


# ---------------------------------------------------------------- progress
_TTY = None


def _tty():
    """The terminal, when pip hides stderr from it (None: stderr is seen, or no terminal)."""
    global _TTY
    if _TTY is None:
        _TTY = False
        if not sys.stderr.isatty():
            try:
                _TTY = open("/dev/tty", "w", buffering=1)
            except OSError:
                pass
    return _TTY or None


def _say(text: str) -> None:
    """A line for the user: on stderr, and on the terminal when pip hides stderr."""
    print(f"netpoly-build: {text}", file=sys.stderr, flush=True)
    t = _tty()
    if t:
        t.write(f"\nnetpoly-build: {text}\n")


_PROGRESS = re.compile(r"^\[ *\d+%\] (Building|Linking)")


# ---------------------------------------------------------------- building
def _run(cmd: list[str]) -> None:
    """Runs cmd with its output on stderr; its percentage lines on the terminal too."""
    print("netpoly-build:", shlex.join(cmd), file=sys.stderr, flush=True)
    p = subprocess.Popen(cmd, cwd=SOURCE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, errors="replace")
    t = _tty()
    for line in p.stdout:
        sys.stderr.write(line)
        if t and _PROGRESS.match(line):
            t.write("\r" + line)  # over the spinner character pip left at the start of the line
    sys.stderr.flush()
    if p.wait() != 0:
        raise BuildError(f"{shlex.join(cmd)} failed (exit {p.returncode}); its output is above")


def _cache(build_dir: Path) -> dict[str, str]:
    """NAME -> value of build_dir/CMakeCache.txt ({} when there is none)."""
    try:
        text = (build_dir / "CMakeCache.txt").read_text(errors="replace")
    except OSError:
        return {}
    return dict(m.groups() for m in re.finditer(r"^([A-Za-z_][\w.-]*):[A-Z]+=(.*)$", text, re.M))


def _ext_name() -> str:
    return "_netpoly" + sysconfig.get_config_var("EXT_SUFFIX")


def _reuse_plan(build_dir: Path) -> tuple[str | None, list[str]]:
    """(None, configure arguments) when build_dir (the clone's build/) can
    be brought up to date and packed for this interpreter: the arguments add
    the Python module to a build of the command only (scripts/demo's);
    else (why not, [])."""
    c = _cache(build_dir)
    if not c:
        return "there is no build/ (scripts/setup or scripts/demo makes one)", []
    home = c.get("CMAKE_HOME_DIRECTORY", "")
    if not home or Path(home).resolve() != SOURCE:
        return f"build/ is a build of {home or 'another tree'}", []
    if c.get("CMAKE_BUILD_TYPE") != "Release":
        return f"build/ is a {c.get('CMAKE_BUILD_TYPE') or 'no-type'} build, not Release", []
    if c.get("NETPOLY_FUZZ", "OFF").upper() in ("ON", "1", "TRUE", "YES"):
        return "build/ is a fuzzing build", []
    pkg = build_dir / "python" / "netpoly"
    if (pkg / _ext_name()).exists():
        return None, []
    found = sorted(p.name for p in pkg.glob("_netpoly*")) if pkg.is_dir() else []
    if found:
        return f"build/ holds the extension of another Python ({', '.join(found)}), not {_ext_name()}", []
    return None, ["-DNETPOLY_PYTHON=ON", f"-DPython_EXECUTABLE={sys.executable}"]


def _commit(build_dir: Path) -> str:
    """The commit build_dir was last built from (its generated build-id header)."""
    try:
        text = (build_dir / "generated" / "netpoly_build_id.hpp").read_text()
    except OSError:
        return "?"
    m = re.search(r'NETPOLY_GIT_COMMIT "([^"]*)"', text)
    return (m.group(1) if m else "") or "?"


def _cmake_build(build_dir: Path, config_settings, throwaway: bool) -> Path:
    """Configures build_dir if it has no CMakeCache.txt, builds the wheel's
    targets, and returns the package directory (build_dir/python/netpoly)."""
    cmake = shutil.which("cmake")
    if not cmake:
        raise BuildError("cmake not found: install the Debian packages scripts/setup lists (cmake, g++, ...)")
    cache = build_dir / "CMakeCache.txt"
    if cache.exists():
        m = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", cache.read_text(errors="replace"), re.M)
        if m and Path(m.group(1)).resolve() != SOURCE:
            raise BuildError(f"{build_dir} is a build of {m.group(1)}, not of {SOURCE}: use another build-dir")
    else:
        cmd = [cmake, "-S", str(SOURCE), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
               "-DBUILD_TESTING=OFF", "-DNETPOLY_PYTHON=ON", f"-DPython_EXECUTABLE={sys.executable}"]
        cmd += UNITY  # as scripts/setup builds
        if shutil.which("ccache"):
            cmd.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        if throwaway:  # nothing may look for the library where this tree was
            cmd.append("-DNETPOLY_FFLAS_BUILD_PATH=OFF")
        cmd += shlex.split(_setting(config_settings, "cmake-args", "CMAKE_ARGS") or "")
        _run(cmd)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    if not (cache.exists() and (_setting(config_settings, "pack-only", "NETPOLY_PACK_ONLY") or "") in ("1", "true")):
        t0 = time.monotonic()
        _run([cmake, "--build", str(build_dir), "-j", jobs, "--target", "netpoly", "netpoly_fflas", "_netpoly"])
        _say(f"built in {time.monotonic() - t0:.0f} s (wall clock)")
    pkg = build_dir / "python" / "netpoly"
    ext = pkg / _ext_name()
    if not ext.exists():
        found = sorted(p.name for p in pkg.glob("_netpoly*")) or ["none"]
        raise BuildError(f"{build_dir} holds an extension for another Python ({', '.join(found)}); this "
                         f"interpreter ({sys.executable}) needs {ext.name}: use another build-dir")
    for b in BINARIES:
        if not (pkg / b).exists():
            raise BuildError(f"{pkg / b} is missing after the build")
    return pkg


def _add_module(build_dir: Path, args: list[str]) -> None:
    """Configures build_dir with args (the Python module on); on failure
    (pybind11-dev or python3-dev missing: CMake says which) turns the module
    off again, so the build of the command stays as it was."""
    cmake = shutil.which("cmake") or "cmake"
    try:
        _run([cmake, "-S", str(SOURCE), "-B", str(build_dir), *args])
    except BuildError:
        subprocess.run([cmake, "-S", str(SOURCE), "-B", str(build_dir), "-DNETPOLY_PYTHON=OFF"],
                       cwd=SOURCE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        raise


def _files(pkg: Path) -> list[tuple[str, Path]]:
    """(path in the wheel, file) for the package: Python files from the
    source tree, subpackages included (the build tree's copies may be
    stale), binaries from pkg."""
    out = [(f"netpoly/{p.relative_to(PACKAGE).as_posix()}", p) for p in sorted(PACKAGE.rglob("*"))
           if p.is_file() and (p.suffix == ".py" or p.name == "py.typed")]
    ext = _ext_name()
    out += [(f"netpoly/{n}", pkg / n) for n in (ext, *BINARIES)]
    return out


# ---------------------------------------------------------------- wheels
class _Wheel:
    def __init__(self, path: Path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.record: list[str] = []

    def add(self, arcname: str, data: bytes, executable: bool = False) -> None:
        info = zipfile.ZipInfo(arcname, date_time=_zip_time())
        info.external_attr = (0o100755 if executable else 0o100644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append(f"{arcname},sha256={digest},{len(data)}")

    def close(self, dist_info: str) -> None:
        record = f"{dist_info}/RECORD"
        self.record.append(f"{record},,")
        info = zipfile.ZipInfo(record, date_time=_zip_time())
        info.external_attr = 0o100644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, "".join(r + "\n" for r in self.record))
        self.zip.close()


def _zip_time():
    return time.gmtime(max(EPOCH, 315532800))[:6]


def _write_wheel(wheel_directory: str, files: list[tuple[str, Path | bytes]], tag: str) -> str:
    name = f"{_name()}-{_version()}-{tag}.whl"
    di = _dist_info()
    wheel = _Wheel(Path(wheel_directory) / name)
    try:
        for arcname, src in files:
            if isinstance(src, bytes):
                wheel.add(arcname, src)
            else:
                wheel.add(arcname, src.read_bytes(), executable=os.access(src, os.X_OK))
        wheel.add(f"{di}/METADATA", _metadata().encode())
        wheel.add(f"{di}/entry_points.txt", _entry_points().encode())
        wheel.add(f"{di}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: netpoly_build {_version()}\n"
                                  f"Root-Is-Purelib: false\nTag: {tag}\n").encode())
        wheel.close(di)
    except BaseException:
        wheel.zip.close()
        (Path(wheel_directory) / name).unlink(missing_ok=True)
        raise
    return name


# ---------------------------------------------------------------- PEP 517 hooks
def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_metadata_dir(metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _write_metadata_dir(metadata_directory)


def _kernel_hint() -> None:
    """In a venv, the one command that registers its Python as a Jupyter kernel (a wheel has no post-install
    step, and Debian's jupyter runs /usr/bin/python3, which does not see the venv), unless a kernel of the
    user's or the venv's already runs this Python."""
    if sys.prefix == sys.base_prefix:
        return
    exe = os.path.realpath(sys.executable)
    data = os.environ.get("JUPYTER_DATA_DIR") or os.path.join(os.path.expanduser("~"), ".local", "share", "jupyter")
    for kernels in (Path(data) / "kernels", Path(sys.prefix) / "share" / "jupyter" / "kernels"):
        for spec in kernels.glob("*/kernel.json"):
            try:
                argv = json.loads(spec.read_text()).get("argv") or [""]
                if os.path.realpath(str(argv[0])) == exe:
                    _say(f"Jupyter: the kernel {spec.parent.name!r} runs this venv's Python")
                    return
            except (OSError, ValueError, AttributeError):
                continue
    name = re.sub(r"[^A-Za-z0-9._-]", "-", Path(sys.prefix).name) or "netpoly"
    _say("for Jupyter notebooks in this venv, register its Python as a kernel once: " +
         shlex.join([sys.executable, "-m", "ipykernel", "install", "--user", "--name", name, "--display-name",
                     f"Python ({name})"]) + " (docs/guide/install.md, 'Jupyter in that venv')")


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = _build_wheel(wheel_directory, config_settings)
    _kernel_hint()
    return name


def _build_wheel(wheel_directory, config_settings=None):
    tag = _tag()
    given = _setting(config_settings, "build-dir", "NETPOLY_BUILD_DIR")
    if given:
        pkg = _cmake_build(Path(given).resolve(), config_settings, throwaway=False)
        return _write_wheel(wheel_directory, _files(pkg), tag)
    build = SOURCE / "build"
    why, configure = "reuse=no", []
    if _setting(config_settings, "reuse", "NETPOLY_REUSE") != "no":
        why, configure = _reuse_plan(build)
    if why is None:
        if configure:
            _say("using the clone's build/ (Release, the command only): adding the Python module for "
                 f"{sys.executable} to it; -C reuse=no builds from scratch instead")
            _add_module(build, configure)
        else:
            _say(f"using the clone's build/ (Release, last built from {_commit(build)}, {_ext_name()}): "
                 "only what changed since is compiled; -C reuse=no builds from scratch instead")
        pkg = _cmake_build(build, config_settings, throwaway=False)
        return _write_wheel(wheel_directory, _files(pkg), tag)
    _say(f"a build from scratch in a temporary directory ({why}); the build's progress follows "
         "(scripts/setup's build costs the same; pip install . after it reuses build/)")
    with tempfile.TemporaryDirectory(prefix="netpoly-wheel-") as tmp:
        pkg = _cmake_build(Path(tmp), config_settings, throwaway=True)
        return _write_wheel(wheel_directory, _files(pkg), tag)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a .pth naming the build tree's package directory
    (build-dir/python), which holds the extension, the executable and the
    library; rebuild there (cmake --build DIR) after changing C++ or Python."""
    given = _setting(config_settings, "build-dir", "NETPOLY_BUILD_DIR")
    build_dir = Path(given).resolve() if given else SOURCE / "build-editable"
    pkg = _cmake_build(build_dir, config_settings, throwaway=False)
    pth = (str(pkg.parent) + "\n").encode()
    return _write_wheel(wheel_directory, [("netpoly_editable.pth", pth)], _tag())


def _sdist_files() -> list[str]:
    """The tracked files (git ls-files, and the backend's own even before
    they are committed), else every file but build trees."""
    try:
        out = subprocess.run(["git", "-C", str(SOURCE), "ls-files", "-z"], capture_output=True, check=True).stdout
        files = {f for f in out.decode().split("\0") if f and (SOURCE / f).is_file()}
        if files:
            return sorted(files | {"pyproject.toml", str(Path(__file__).resolve().relative_to(SOURCE))})
    except (OSError, subprocess.CalledProcessError):
        pass
    skip = re.compile(r"(^|/)(\.git|build|build-[^/]*|dist|__pycache__)(/|$)|\.pyc$")
    return sorted(str(p.relative_to(SOURCE)) for p in SOURCE.rglob("*")
                  if p.is_file() and not skip.search(str(p.relative_to(SOURCE))))


def build_sdist(sdist_directory, config_settings=None):
    base = f"{_name()}-{_version()}"
    name = f"{base}.tar.gz"

    def add(tar, arcname, data: bytes, mode=0o644):
        info = tarfile.TarInfo(f"{base}/{arcname}")
        info.size, info.mode, info.mtime = len(data), mode, EPOCH
        tar.addfile(info, io.BytesIO(data))

    with tarfile.open(Path(sdist_directory) / name, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for f in _sdist_files():
            p = SOURCE / f
            add(tar, f, p.read_bytes(), 0o755 if os.access(p, os.X_OK) else 0o644)
        add(tar, "PKG-INFO", _metadata().encode())
    return name
