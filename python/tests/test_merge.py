"""netpoly.merge is the library's merge of shard files, the one `netpoly seprank --merge` prints
(issue 51 §3): the same bracket and document through both front ends, certified only with the model,
and a forged shard refused through both."""
import json
import os
import subprocess

import pytest

import netpoly

CLI = os.environ.get("NETPOLY_CLI", "netpoly")


def run(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    # mixer (2, 2, 2), seed 1: sep 9, three blocks of cap 3 (tests/scripts/shard_forged.sh), in two shares.
    d = tmp_path_factory.mktemp("shards")
    m = d / "m.json"
    assert run("make", "mixer", "--layers", "2", "--tokens", "2", "--width", "2", "--seed", "1", "-o", str(m)).returncode == 0
    paths = []
    for i in (1, 2):
        p = d / f"s{i}.json"
        r = run("seprank", str(m), "--seed", "1", "--blocks", f"{i}/2", "-o", str(p))
        assert r.returncode == 0, r.stderr
        paths.append(p)
    return m, paths


def test_merge_equals_the_cli(shards):
    m, paths = shards
    cli = run("seprank", str(m), "--merge", *map(str, paths), "--json")
    assert cli.returncode == 0, cli.stderr
    want = json.loads(cli.stdout)
    got = netpoly.merge(paths, model=m)
    assert got == {**want, "merged": [str(p) for p in paths]}
    # The bracket worked by hand: three blocks, each of rank 3 = its cap, sum 9 = support's bound.
    assert (got["lower"]["value"], got["upper"]["value"], got["status"], got["certified"]) == (9, 9, "exact", True)
    # A Network object is the same model.
    assert netpoly.merge(paths, model=netpoly.load(m))["lower"]["value"] == 9


def test_without_the_model_the_bracket_is_only_stated(shards):
    _, paths = shards
    got = netpoly.merge(paths)
    assert got["status"] == "stated" and got["certified"] is False
    assert "give the model" in got["checked"]


def test_a_lowered_shard_is_refused_given_the_model(shards, tmp_path):
    m, paths = shards
    docs = [json.load(open(p)) for p in paths]
    # Lower the last block's cap by one in the layout every shard states, and in the shard that holds it
    # its rank and points with it: alone, that merges as a false "sep 8".
    last = len(docs[0]["layout"]) - 1
    layout = json.loads(json.dumps(docs[0]["layout"]))
    layout[last]["cap"] -= 1
    for d in docs:
        d["layout"] = layout
        for b in d["blocks"]:
            if b["index"] == last:
                b.update(cap=b["cap"] - 1, rank=b["rank"] - 1, points=b["points"] - 1, reached_cap=True)
    forged = []
    for i, d in enumerate(docs):
        f = tmp_path / f"f{i}.json"
        json.dump(d, open(f, "w"))
        forged.append(f)
    with pytest.raises(netpoly.InputError, match="layout"):
        netpoly.merge(forged, model=m)
    cli = run("seprank", str(m), "--merge", *map(str, forged))
    assert cli.returncode == 2 and "layout" in cli.stderr


def test_options_must_be_the_shards(shards):
    m, paths = shards
    with pytest.raises(netpoly.InputError, match="seed="):
        netpoly.merge(paths, model=m, seed=2)
    with pytest.raises(netpoly.InputError, match="give model="):
        netpoly.merge(paths, seed=1)
    with pytest.raises(netpoly.InputError, match="shards="):
        netpoly.merge("s1.json")
