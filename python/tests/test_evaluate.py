"""net(X) and `netpoly eval`: a network's values at points, exactly over Q and Q(i), or mod a prime.

Traced research-style modules (fused qkv split with view/transpose heads, attention without an output
projection, residual attention, a mixer block on the transpose, a transformer block) and netpoly.torch's
reference modules give, at dyadic points, exactly torch's float64 forward pass; hand-worked values, the
batch and container conventions, Gaussian inputs, the reduction mod p, the refusals, the command line,
and Network.canonical() on a sum of two attention layers."""

import json
import os
import subprocess
from fractions import Fraction

import pytest

import netpoly

try:
    import torch
    import netpoly.torch as nt
except ImportError:  # the torch tests are skipped
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")

CLI = os.environ.get("NETPOLY_CLI", "netpoly")


# ---------------------------------------------------------------- a hand-worked network
def one_head(**extra):
    """One attention head on N = 2 tokens of width d = 1: Q = 2, K = 1/2, V = 3, O = 1, then `extra` layers.

    y_i = sum_j <Q x_i, K x_j> O V x_j = sum_j (2 x_i)(x_j / 2)(3 x_j) = 3 x_i (x_0^2 + x_1^2)."""
    layers = [{"type": "attention", "heads": [{"Q": [[2]], "K": [[Fraction(1, 2)]], "V": [[3]], "O": [[1]]}]}]
    return netpoly.from_numpy(layers + extra.get("then", []), tokens=2, width=1)


def test_a_hand_worked_value():
    # At x = (1/2, -1): x_0^2 + x_1^2 = 1/4 + 1 = 5/4, so y_0 = 3 (1/2)(5/4) = 15/8 and y_1 = 3 (-1)(5/4) = -15/4.
    net = one_head()
    assert net([[Fraction(1, 2)], [-1]]) == [[Fraction(15, 8)], [Fraction(-15, 4)]]
    # Then a σ₂ channel map W = (1, -2)^T (width 1 -> 2): z_i = ((y_i)^2, (-2 y_i)^2) = (y_i^2, 4 y_i^2):
    # z_0 = (225/64, 225/16), z_1 = (225/16, 225/4).
    net = one_head(then=[{"type": "channel_mix", "W": [[1], [-2]], "activation": "square"}])
    assert net.output_width == 2
    assert net([[Fraction(1, 2)], [-1]]) == [[Fraction(225, 64), Fraction(225, 16)],
                                             [Fraction(225, 16), Fraction(225, 4)]]
    # Entries are taken as the numbers they are: the float 0.5, the text "1/2" and Fraction(1, 2) alike.
    assert net([[0.5], [-1.0]]) == net([["1/2"], [-1]]) == net([[Fraction(1, 2)], [-1]])


def test_a_batch_gives_one_output_per_point():
    net = one_head()
    points = [[[Fraction(1, 2)], [-1]], [[1], [2]], [[0], [Fraction(3, 8)]]]
    out = net(points)
    assert len(out) == 3
    assert out == [net(P) for P in points]
    # 3 (1)(1 + 4) = 15, 3 (2)(5) = 30; a zero token gives 0, the other 3 (3/8)(9/64) = 81/512
    assert out[1] == [[15], [30]] and out[2] == [[0], [Fraction(81, 512)]]


def test_numpy_in_numpy_out_lists_in_lists_out():
    np = pytest.importorskip("numpy")
    net = one_head()
    a = net(np.array([[0.5], [-1.0]]))
    assert isinstance(a, np.ndarray) and a.dtype == object and a.shape == (2, 1)
    assert a.tolist() == [[Fraction(15, 8)], [Fraction(-15, 4)]]
    assert all(isinstance(v, Fraction) for v in a.flat)
    b = net(np.array([[[0.5], [-1.0]], [[1.0], [2.0]]]))
    assert b.dtype == object and b.shape == (2, 2, 1) and b[1].tolist() == [[15], [30]]
    lists = net([[0.5], [-1.0]])
    assert type(lists) is list and all(type(r) is list for r in lists)
    assert net(((0.5,), (-1.0,))) == lists  # tuples are lists too


def test_gaussian_input_gives_gaussian_rationals():
    # x = (1 + i, 1): x_0^2 + x_1^2 = 2i + 1, y_0 = 3 (1 + i)(1 + 2i) = 3 (-1 + 3i) = -3 + 9i, y_1 = 3 + 6i.
    net = one_head()
    out = net([[1 + 1j], [1]])
    G = netpoly.GaussianRational
    assert all(isinstance(v, G) for r in out for v in r)
    assert out == [[G(-3, 9)], [G(3, 6)]]
    assert net([[G(1, 1)], [1]]) == out  # a GaussianRational entry is the same number
    # half-integers: x = (i/2, 1): sum = -1/4 + 1 = 3/4, y_0 = 3 (i/2)(3/4) = 9i/8, y_1 = 9/4 (a real value of
    # a Gaussian evaluation: still a GaussianRational, with im 0)
    out = net([[0.5j], [1]])
    assert out[0][0] == G(0, Fraction(9, 8)) and out[1][0] == G(Fraction(9, 4), 0)


def reduce(q, p):
    """The rational q mod the prime p: numerator times the inverse of the denominator."""
    q = Fraction(q)
    return q.numerator * pow(q.denominator, -1, p) % p


@pytest.mark.parametrize("p", [101, 65537, 2**61 - 1, 9223372036854775783])  # the last: the largest prime < 2^63
def test_prime_is_the_exact_value_reduced(p):
    net = one_head(then=[{"type": "channel_mix", "W": [[Fraction(1, 3)], [-2]], "activation": "square"}])
    points = [[[Fraction(1, 2)], [-1]], [[Fraction(-5, 7)], [Fraction(9, 11)]], [[3], [0]]]
    exact = net(points)
    mod = net(points, prime=p)
    assert mod == [[[reduce(v, p) for v in row] for row in P] for P in exact]
    assert all(type(v) is int and 0 <= v < p for P in mod for row in P for v in row)


def test_prime_with_gaussian_values_maps_i_to_a_square_root_of_minus_one():
    net = one_head()
    exact = net([[1 + 1j], [1]])  # -3 + 9i, 3 + 6i
    p = 13
    mod = net([[1 + 1j], [1]], prime=p)
    roots = [s for s in range(p) if s * s % p == p - 1]  # 5 and 8
    assert any(mod == [[(v.re + v.im * s) % p for v in row] for row in exact] for s in roots)
    with pytest.raises(netpoly.InputError, match=r"prime=.*not 1 mod 4"):
        net([[1 + 1j], [1]], prime=7)


def test_refusals():
    net = one_head()
    with pytest.raises(netpoly.InputError, match=r"net\(X\): X: expected a 2 x 1 matrix .*got 2 x 2"):
        net([[1, 2], [3, 4]])
    with pytest.raises(netpoly.InputError, match=r"expected a 2 x 1 matrix .*got 3 x 1"):
        net([[1], [2], [3]])
    with pytest.raises(netpoly.InputError, match=r"net\(X\): X\[1\]: expected a 2 x 1 matrix"):
        net([[[1], [2]], [[1]]])  # the second point of a batch
    with pytest.raises(netpoly.InputError, match=r"expected a 2 x 1 matrix \(2 axes\) or a batch .*got 1 axes"):
        net([1, 2])
    with pytest.raises(netpoly.InputError, match=r"X\[1\]\[0\]: nan is not a number"):
        net([[1], [float("nan")]])
    with pytest.raises(netpoly.InputError, match=r"inf is not a number"):
        net([[float("inf")], [1]])
    with pytest.raises(netpoly.InputError, match=r"X\[0\]\[0\]: expected a number, got NoneType"):
        net([[None], [1]])
    with pytest.raises(netpoly.InputError, match=r"net\(X\): prime=: .*15 is not a prime"):
        net([[1], [2]], prime=15)
    for bad in (True, 1.0, 2**63, 2**64 + 13, 1, -7, "13"):
        with pytest.raises(netpoly.InputError, match=r"net\(X\): prime=: expected a prime below 2\^63"):
            net([[1], [2]], prime=bad)
    with pytest.raises(netpoly.InputError, match=r"denominator divisible by the modulus 2"):
        net([[1], [2]], prime=2)  # K = 1/2 has no value mod 2


# ---------------------------------------------------------------- traced modules against torch, exactly
if torch is not None:
    nn = torch.nn

    class Att(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.q, self.k, self.v = (nn.Linear(d, d, bias=False) for _ in range(3))

        def forward(self, x):
            return (self.q(x) @ self.k(x).mT) @ self.v(x)

    class MHA(nn.Module):
        def __init__(self, d, heads, residual=False):
            super().__init__()
            self.h, self.residual = heads, residual
            self.qkv = nn.Linear(d, 3 * d, bias=False)
            self.o = nn.Linear(d, d, bias=False)

        def forward(self, x):
            B, N, D = x.shape
            q, k, v = self.qkv(x).split(D, dim=-1)
            q = q.view(B, N, self.h, D // self.h).transpose(1, 2)
            k = k.view(B, N, self.h, D // self.h).transpose(1, 2)
            v = v.view(B, N, self.h, D // self.h).transpose(1, 2)
            y = self.o(((q @ k.transpose(-2, -1)) @ v).transpose(1, 2).reshape(B, N, D))
            return x + y if self.residual else y

    class Block(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.att = MHA(d, heads, residual=True)
            self.fc1 = nn.Linear(d, 2 * d, bias=False)
            self.fc2 = nn.Linear(2 * d, d, bias=False)

        def forward(self, x):
            x = self.att(x)
            return x + self.fc2(self.fc1(x) ** 2)

    class MixerBlock(nn.Module):
        def __init__(self, tokens, d):
            super().__init__()
            self.t = nn.Linear(tokens, tokens, bias=False)
            self.c = nn.Linear(d, d, bias=False)

        def forward(self, x):
            x = x + (self.t(x.transpose(-1, -2)) ** 2).transpose(-1, -2)
            return x + self.c(x) ** 2


def quarters(module, seed):
    """Every parameter k/4, k uniform in {-3..3}, in float64."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randint(-3, 4, p.shape, generator=g).double() / 4)
    return module.double()


# Why float64 is exact here: weights are k/4 (|w| <= 3/4) and inputs k/8 with k in {-2..2} (|x| <= 1/4).
# Every value torch computes is then a multiple of 2^-e, e the sum of the denominators' exponents of its
# factors, and at most the same sum over absolute values; float64 is exact while that numerator stays
# below 2^53, sums and products alike, in any order of summation. The worst cases (all products of largest
# weights and entries), per module:
#   MHA (1 layer, d 4, H 2, N 3): q <= 4 (3/4)(1/4) = 3/4 in 2^-5; q.k <= 2 (3/4)^2 in 2^-10; (q.k) v summed
#     over 3 tokens <= 81/32 in 2^-15; o: <= 243/32 in 2^-17: 20 bits (residual: + 1/4, the same).
#   attention without O, 2 layers, d 2, N 2: 2^-15 and 6,912 after one layer (<= 27/128), then q <= 81/256
#     in 2^-17, q.k <= 0.2 in 2^-34, output <= 0.127 in 2^-51: 2.85e14, 48 bits.
#   mixer block (N 3, d 2): token sums <= 9/16 in 2^-5, squared in 2^-10, + x; channel sums in 2^-12,
#     squared in 2^-24: under 2^24.
#   transformer block (d 4, H 2, N 3): attention + x <= 7.85 in 2^-17; fc1 <= 23.6 in 2^-19; squared <= 556
#     in 2^-38; fc2 (8 terms) <= 3,336 in 2^-40: 3.67e15 < 2^53 = 9.0e15.
#   netpoly.torch's mixer(3 layers, N 3, d 2): degree 8, the last square <= 1/4 in 2^-52: 50 bits; one
#     attention layer (d 4, H 2, N 3) as MHA above; the product and the two-layer token/channel MLPs:
#     degree <= 4, under 30 bits.
MODULES = [
    ("MHA split/view/transpose", lambda: MHA(4, 2), 3, True),
    ("residual MHA", lambda: MHA(4, 2, residual=True), 3, True),
    ("stacked attention without O", lambda: nn.Sequential(Att(2), Att(2)), 2, True),
    ("mixer block on the transpose", lambda: MixerBlock(3, 2), 3, True),
    ("transformer block", lambda: Block(4, 2), 3, True),
    ("nt.Attention", lambda: nt.Network(nt.Attention(4, heads=2)), 3, False),
    ("nt.mixer", lambda: nt.mixer(3, tokens=3, width=2), 3, False),
    ("nt.Product", lambda: nt.Network(nt.Product(2, degree=3)), 2, False),
    ("nt token/channel MLPs", lambda: nt.Network(nt.TokenMix(2, second=True), nt.ChannelMix(2, hidden=3, second=True)),
     2, False),
]


@pytest.mark.parametrize("label,make,tokens,batch", MODULES, ids=[m[0] for m in MODULES])
@needs_torch
def test_equals_torch_float64_exactly_at_dyadic_points(label, make, tokens, batch):
    module = quarters(make(), seed=len(label))
    net = nt.from_torch(module, tokens=tokens, batch=batch)
    g = torch.Generator().manual_seed(tokens)
    X = torch.randint(-2, 3, (4, tokens, net.width), generator=g).double() / 8  # 4 points, entries k/8
    with torch.no_grad():
        Y = module(X) if batch else torch.stack([module(P) for P in X])
    expected = [[[Fraction(v) for v in row] for row in P] for P in Y.tolist()]
    assert net(X).tolist() == expected  # a tensor in: a NumPy object array of Fractions
    assert net(X.tolist()) == expected
    assert net(X[0].tolist()) == expected[0]
    assert any(v != 0 for P in expected for row in P for v in row)


@needs_torch
def test_float_initialised_module_is_its_dyadic_rationals():
    # torch's default initialisation: every weight a float64 (k / 2^e); net(X) is the exact polynomial value,
    # and torch's float64 forward pass is that value rounded (here within 1e-12 relative).
    torch.manual_seed(5)
    module = MHA(4, 2).double()
    net = nt.from_torch(module, tokens=3, batch=True)
    X = torch.randint(-2, 3, (2, 3, 4), generator=torch.Generator().manual_seed(3)).double() / 8
    exact = net(X)
    Y = module(X).detach()
    for b in range(2):
        for i in range(3):
            for c in range(4):
                assert abs(float(exact[b, i, c]) - Y[b, i, c].item()) <= 1e-12 * max(1e-3, abs(Y[b, i, c].item()))


# ---------------------------------------------------------------- netpoly eval
@needs_torch
def test_netpoly_eval_equals_net_of_x(tmp_path):
    net = nt.from_torch(quarters(MHA(4, 2, residual=True), seed=2), tokens=3, batch=True)
    model = tmp_path / "model.json"
    net.save(model)
    points = [[[Fraction(a * 3 + c - 5, 8) for c in range(4)] for a in range(3)],
              [[Fraction(1, 3), 0, -1, 2], [0, 0, 0, 0], [Fraction(-7, 5), 1, 1, 1]]]
    pfile = tmp_path / "points.json"
    pfile.write_text(json.dumps([[[str(v) for v in row] for row in P] for P in points]))
    run = subprocess.run([CLI, "eval", str(model), "--points", str(pfile), "--json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["format"] == "netpoly-values/1" and doc["over"] == "Q"
    assert [[[Fraction(v) for v in row] for row in P] for P in doc["values"]] == net(points)
    # {"points": [...]} and --modulus: net(X, prime=p)
    pfile.write_text(json.dumps({"points": [[[str(v) for v in row] for row in P] for P in points]}))
    p = 1000003
    run = subprocess.run([CLI, "eval", str(model), "--points", str(pfile), "--modulus", str(p), "--json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["prime"] == p and doc["values"] == net(points, prime=p)


def test_netpoly_eval_gaussian_reports_its_square_root(tmp_path):
    model = tmp_path / "model.json"
    one_head().save(model)
    pfile = tmp_path / "points.json"
    pfile.write_text('[[["1+i"], [1]]]')
    run = subprocess.run([CLI, "eval", str(model), "--points", str(pfile), "--json"], capture_output=True, text=True)
    assert json.loads(run.stdout)["values"] == [[["-3+9i"], ["3+6i"]]]
    run = subprocess.run([CLI, "eval", str(model), "--points", str(pfile), "--modulus", "13", "--json"],
                         capture_output=True, text=True)
    doc = json.loads(run.stdout)
    s = doc["sqrt_minus_one"]
    assert s * s % 13 == 12 and doc["values"] == [[[(-3 + 9 * s) % 13], [(3 + 6 * s) % 13]]]
    assert doc["values"] == one_head()([[[1 + 1j], [1]]], prime=13)


def test_netpoly_eval_refuses_a_float_naming_its_json_path(tmp_path):
    model = tmp_path / "model.json"
    one_head().save(model)
    pfile = tmp_path / "points.json"
    pfile.write_text('{"points": [[["1/2"], [-1]], [["1/2"], [0.5]]]}')
    run = subprocess.run([CLI, "eval", str(model), "--points", str(pfile)], capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stdout == ""
    assert "points.json: $.points[1][1][0]" in run.stderr and "0.5" in run.stderr


# ---------------------------------------------------------------- canonical form
def test_canonical_merges_a_sum_of_two_attention_layers_into_heads():
    F = Fraction
    h1 = {"Q": [[1, 0]], "K": [[0, 1]], "V": [[1, 1]], "O": [[1], [F(1, 2)]]}
    h2 = {"Q": [[2, -1]], "K": [[1, 1]], "V": [[0, -1]], "O": [[F(-1, 4)], [3]]}
    layers = [{"type": "branches", "branches": [[{"type": "attention", "heads": [h1]}],
                                                [{"type": "attention", "heads": [h2]}]]}]
    for net in (netpoly.from_numpy(layers, tokens=3, width=2),
                netpoly.from_json(netpoly.from_numpy(layers, tokens=3, width=2).to_json())):
        assert [layer.type for layer in net.layers] == ["branches"]
        c = net.canonical()
        assert [layer.type for layer in c.layers] == ["attention"]
        heads = json.loads(c.to_json())["layers"][0]["heads"]
        assert len(heads) == 2
        points = [[[1, F(1, 2)], [-2, 3], [F(3, 4), -1]], [[0, 1], [1, 0], [F(-1, 8), F(5, 2)]]]
        assert c(points) == net(points)
        assert c(points) != [[[0, 0]] * 3] * 2
        assert c.canonical() == c  # canonical form is a fixed point
