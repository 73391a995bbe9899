"""One request, every front end (issue 31.1): for every analysis option of the one option table
(`netpoly._netpoly.options()`, declared in src/analysis/options.cpp), the same request through the
CLI (`netpoly seprank --json --NAME VALUE`), Python (`Network.seprank(NAME=VALUE)`) and, where the
claim language takes the option, a claim (`sep(net; A = ...; NAME = VALUE)`) gives the same result:
the CLI's and Python's result JSON agree entry for entry (timings masked), and the claim's value is
the same bracket.

Every option of the table must have a case in CASES: adding an option without its parity case fails
`test_every_option_has_a_case`."""

import json
import os
import re
import subprocess

import pytest

import netpoly
from results_json import masked

CLI = os.environ.get("NETPOLY_CLI", "netpoly")

# A non-default value for each option, as (CLI text, Python value, claim text). The model is a
# one-layer attention network of 3 tokens of width 2; the partition is A = token 0; the seed is
# fixed (7) unless the option is the seed.
CASES = {
    "methods": ("support,blackbox", ["support", "blackbox"], "support, blackbox"),
    "budget": ("30", 30, "30"),
    "max_terms": ("100", 100, "100"),
    "seed": ("5", 5, "5"),
    "prime": ("1000003", 1000003, "1000003"),
    "templates": ("2", 2, "2"),
    "max_points": ("4", 4, "4"),
    "small_prime": (None, False, "false"),  # a flag whose default is on: --no-small-prime
    "generic": (None, True, "true"),
    "max_memory": ("4G", "4G", "4G"),
    "threads": ("1", 1, "1"),
    "max_pairs": ("10", 10, "10"),
    "plan": (None, True, None),  # CLI and Python only (a claim's sep is the bracket, never a plan or a share)
    "blocks": ("1/1", "1/1", None),
}
# Options whose value picks the methods it speaks to: asked for alongside them.
WITH_METHODS = {"prime": "modular,blackbox", "templates": "grid", "max_points": "blackbox"}


def options():
    return netpoly._netpoly.options()


def test_every_option_has_a_case():
    names = {o["name"] for o in options()}
    assert names == set(CASES), f"options without a parity case: {names - set(CASES)}; stale cases: {set(CASES) - names}"




def end(r, key):
    """A result's end as a claim writes it ("inf" for no upper end): the JSON gives {"method", "value"}."""
    e = r.get(key)
    if isinstance(e, dict):
        e = e.get("value")
    return "inf" if e is None else str(e)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("parity") / "a.json"
    out = subprocess.run([CLI, "make", "attention", "--layers", "1", "--width", "2", "--heads", "1", "--tokens",
                          "3", "--seed", "1"], capture_output=True, text=True, check=True).stdout
    path.write_text(out)
    return path


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_request_same_answer(name, model, tmp_path):
    spec = next(o for o in options() if o["name"] == name)
    cli_text, py_value, claim_text = CASES[name]
    flag = "--" + name.replace("_", "-")
    cli_args = [flag, cli_text] if cli_text is not None else ([flag] if py_value is True else ["--no-" + name.replace("_", "-")])
    py_kw = {name: py_value}
    claim_args = [f"{name} = {claim_text}"]
    if name != "seed":
        cli_args += ["--seed", "7"]
        py_kw["seed"] = 7
        claim_args.append("seed = 7")
    if name in WITH_METHODS:
        cli_args += ["--methods", WITH_METHODS[name]]
        py_kw["methods"] = WITH_METHODS[name].split(",")
        claim_args.append("methods = " + WITH_METHODS[name].replace(",", ", "))
    cli = json.loads(subprocess.run([CLI, "seprank", str(model), "--output", "0,0", "--partition", "A=0", "--json",
                                     *cli_args], capture_output=True, text=True, check=True).stdout)["results"]
    net = netpoly.load(str(model))
    py = net.seprank("A=0", outputs=[(0, 0)], **py_kw)
    assert masked(cli) == masked([r.json for r in py]), name
    if not spec["claims"]:
        return
    script = tmp_path / "p.np"
    script.write_text(f'claim "parity {name}"\n  let net = model("{model}")\n'
                      f'  show sep(net; A = tokens 0; {"; ".join(claim_args)})\n  check 1 == 1\n')
    rep = json.loads(subprocess.run([CLI, "check", str(script), "--json"], capture_output=True, text=True,
                                    check=True).stdout)
    shown = rep["claims"][0]["shown"][0]
    value = shown.rsplit(" = ", 1)[1]
    r = cli[0]
    if r["status"] == "exact":
        assert re.fullmatch(rf"{end(r, 'lower')}( \(.*\))?", value), (name, value, r)
    else:
        assert f"[{end(r, 'lower')}, {end(r, 'upper')}]" in value, (name, value, r)
        assert ("probabilistic" in value) == (r["status"] == "probabilistic"), (name, value, r)
