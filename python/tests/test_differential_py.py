"""The randomized differential test's Python leg (issue 29): random models of every layer kind,
written as model files, analysed through the CLI (`netpoly seprank --json`) and through the Python
API (`netpoly.load(...).seprank(...)`) with the same options: the results agree entry for entry
(timings aside), and every certified bracket contains the certified exact rank."""

import json
import os
import random
import subprocess

import pytest

import netpoly
from results_json import masked

CLI = os.environ.get("NETPOLY_CLI", "netpoly")


def weight(rng):
    r = rng.randrange(10)
    if r == 0:
        return 0
    p = rng.randint(-3, 3)
    return f"{p}/{rng.randint(2, 4)}" if r <= 2 and p else p


def matrix(rng, rows, cols):
    return [[weight(rng) for _ in range(cols)] for _ in range(rows)]


def random_layers(rng, N, d, degree, count, nest):
    """A list of layers from width d; returns (layers, width, degree), total degree at most 12."""
    layers = []
    for _ in range(count):
        kind = rng.randrange(6 if nest > 0 else 5)
        L, f, dout = {}, 1, d
        if kind == 0 and degree * 3 <= 12:
            heads = []
            for _ in range(rng.randint(1, 2)):
                da = rng.randint(1, 2)
                heads.append({"Q": matrix(rng, da, d), "K": matrix(rng, da, d), "V": matrix(rng, da, d),
                              "O": matrix(rng, d, da)})
            L, f = {"type": "attention", "heads": heads}, 3
        elif kind == 1:
            sq = rng.randrange(2) and degree * 2 <= 12
            L = {"type": "token_mix", "W": matrix(rng, N, N), "activation": "square" if sq else "none"}
            f = 2 if sq else 1
        elif kind == 2:
            h = rng.randint(1, 3)
            sq = rng.randrange(2) and degree * 2 <= 12
            L = {"type": "channel_mix", "W": matrix(rng, h, d), "activation": "square" if sq else "none"}
            dout, f = h, 2 if sq else 1
            if rng.randrange(2):
                dout = rng.randint(1, 3)
                L["W2"] = matrix(rng, dout, h)
        elif kind == 3 and degree * 2 <= 12:
            dout = rng.randint(1, 3)
            L, f = {"type": "product", "Ws": [matrix(rng, dout, d) for _ in range(2)]}, 2
        elif kind == 4:
            perm = list(range(N * d))
            rng.shuffle(perm)
            L = {"type": "permute", "perm": perm}
        elif kind == 5:
            branches, fmax, dout = [], 1, None
            for _ in range(rng.randint(1, 3)):
                for _attempt in range(20):
                    bl, db, gb = random_layers(rng, N, d, degree, rng.randrange(3), nest - 1)
                    if dout is None:
                        dout = db
                    if db == dout:
                        branches.append(bl)
                        fmax = max(fmax, gb // degree)
                        break
            L, f = {"type": "branches", "branches": branches}, fmax
        else:
            continue
        if dout == d and rng.randrange(3) == 0:
            L["residual"] = True
        layers.append(L)
        degree *= f
        d = dout
    return layers, d, degree


def random_model(seed):
    rng = random.Random(seed)
    N, d0 = rng.randint(1, 3), rng.randint(1, 3)
    layers, _, _ = random_layers(rng, N, d0, 1, rng.randint(1, 3), 2)
    return {"format": "netpoly-model/1", "name": f"random-py-{seed}", "input": {"tokens": N, "width": d0},
            "layers": layers}




@pytest.mark.parametrize("seed", range(1, 41))
def test_cli_and_python_agree_on_random_models(seed, tmp_path):
    model = random_model(seed)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model))
    net = netpoly.load(str(path))
    if net.tokens * net.width < 2:
        pytest.skip("one input variable: no partition")
    part = "half"
    exact = net.seprank(part, outputs=[(0, 0)], methods=["exact"], seed=1)[0]
    assert exact.status == "exact"
    for methods in (["support", "blackbox"], ["group", "modular"], None):
        args = ["--methods", ",".join(methods)] if methods else []
        cli = json.loads(subprocess.run([CLI, "seprank", str(path), "--output", "0,0", "--partition", part,
                                         "--seed", "7", "--json", *args],
                                        capture_output=True, text=True, check=True).stdout)["results"]
        py = net.seprank(part, outputs=[(0, 0)], methods=methods, seed=7)
        assert masked(cli) == masked([r.json for r in py]), (methods, model)
        r = py[0]
        if r.lower is not None:
            assert r.lower <= exact.value
        if r.upper is not None:
            assert r.upper >= exact.value
