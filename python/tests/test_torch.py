"""netpoly.torch: the reference modules compute what the model format says
(checked against netpoly's exact polynomial at integer points, where float64
arithmetic is exact), and from_torch takes every weight exactly; ordinary
modules (nn.Linear with biases, squares, products, matrix products, sums,
transposes, residuals) traced with torch.fx give polynomials equal to torch's
own float64 forward pass, and what netpoly cannot express is refused by node."""

import json
import math
import os
import subprocess
import sys
from fractions import Fraction

import pytest

torch = pytest.importorskip("torch")
import netpoly  # noqa: E402
import netpoly.torch as nt  # noqa: E402


def integer_weights(module, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randint(-2, 3, p.shape, generator=g).to(p.dtype))
    return module


def evaluate(poly, point):
    total = Fraction(0)
    for e, c in poly.to_dict().items():
        term = Fraction(c)
        for x, k in zip(point, e):
            term *= Fraction(x) ** k
        total += term
    return total


@pytest.mark.parametrize("build,tokens,width", [
    (lambda: nt.Network(nt.Attention(4, heads=2)), 3, 4),
    (lambda: nt.Network(nt.Attention(2, heads=1, residual=True), nt.Attention(2, heads=1)), 2, 2),
    (lambda: nt.mixer(3, tokens=3, width=2), 3, 2),
    (lambda: nt.mixer(2, tokens=2, width=3, residual=True, activation="none"), 2, 3),
    (lambda: nt.Network(nt.Product(2, degree=3)), 2, 2),
    (lambda: nt.Network(nt.TokenMix(2, second=True), nt.ChannelMix(2, hidden=3, second=True)), 2, 2),
])
def test_modules_match_the_model_format(build, tokens, width):
    module = integer_weights(build().double(), seed=tokens * 10 + width)
    net = nt.from_torch(module, tokens=tokens, width=width)
    polys = net.expand(outputs="all")
    g = torch.Generator().manual_seed(7)
    for _ in range(3):
        X = torch.randint(-2, 3, (tokens, width), generator=g).double()
        Y = module(X)
        point = [int(v) for v in X.flatten().tolist()]
        for k, p in enumerate(polys):
            assert evaluate(p, point) == Fraction(Y.flatten()[k].item())


def test_from_torch_is_exact_for_float_weights():
    m = nt.Network(nt.ChannelMix(2, activation="none"))
    with torch.no_grad():
        m[0].W.copy_(torch.tensor([[0.1, 0.0], [0.0, 1.0]]))  # float32: 0.1 is 13421773 / 2^27
    net = nt.from_torch(m, tokens=1)
    y = net.expand(output=(0, 0)).to_dict()
    assert y == {(1, 0): Fraction(13421773, 2**27)}
    assert Fraction(float(torch.tensor(0.1))) == Fraction(13421773, 2**27)


def test_batched_forward_is_the_per_sample_forward():
    m = integer_weights(nt.mixer(2, tokens=2, width=2).double(), 3)
    X = torch.randint(-2, 3, (5, 2, 2)).double()
    Y = m(X)
    for b in range(5):
        assert torch.equal(Y[b], m(X[b]))


def test_float_weights_round_trip_and_the_polynomial_matches_a_float_evaluation():
    torch.manual_seed(3)
    module = nt.Network(nt.Attention(2, heads=1), nt.ChannelMix(2)).double()  # random float weights
    net = nt.from_torch(module, tokens=2)
    model = __import__("json").loads(net.to_json())
    # every weight comes back as the same float
    W = model["layers"][1]["W"]
    for r in range(2):
        for c in range(2):
            assert float(Fraction(W[r][c]) if isinstance(W[r][c], str) else W[r][c]) == module[1].W[r, c].item()
    polys = net.expand(outputs="all")
    g = torch.Generator().manual_seed(11)
    for _ in range(3):
        X = torch.randn(2, 2, generator=g, dtype=torch.float64)
        Y = module(X).flatten()
        point = [Fraction(v) for v in X.flatten().tolist()]
        for k, p in enumerate(polys):
            exact = float(evaluate(p, point))
            assert abs(exact - Y[k].item()) <= 1e-9 * max(1.0, abs(exact))


# ---------------------------------------------------------------- ordinary modules, traced
def float64_agrees(module, tokens, width=None, batch=False, points=2, **kw):
    """The traced network's polynomials at random float64 points equal torch's float64 forward pass
    (the exact value at the same point, rounded once, against torch's float arithmetic)."""
    module = module.double()
    net = nt.from_torch(module, tokens=tokens, width=width, **kw)
    polys = net.expand(outputs="all")
    g = torch.Generator().manual_seed(tokens * 7 + len(polys))
    with torch.no_grad():
        for _ in range(points):
            X = torch.randn(tokens, net.width, generator=g, dtype=torch.float64)
            Y = (module(X[None])[0] if batch else module(X)).reshape(-1)
            assert Y.numel() == len(polys)
            point = [Fraction(v) for v in X.reshape(-1).tolist()]
            for k, p in enumerate(polys):
                exact = float(evaluate(p, point))
                assert abs(exact - Y[k].item()) <= 1e-12 * max(1.0, abs(exact)), (k, exact, Y[k].item())
    return net


def layers_of(net):
    return json.loads(net.to_json())["layers"]


class LinearAttention(torch.nn.Module):
    """Softmax-free attention written with nn.Linear (biases): x + o(sum_h (q_h k_h^T) v_h)."""

    def __init__(self, d, da, heads=1, assoc=False, scale=False, residual=True):
        super().__init__()
        self.heads = torch.nn.ModuleList(torch.nn.ModuleDict(
            {"q": torch.nn.Linear(d, da), "k": torch.nn.Linear(d, da), "v": torch.nn.Linear(d, da)})
            for _ in range(heads))
        self.o = torch.nn.Linear(da, d)
        self.assoc, self.residual = assoc, residual
        self.scale = 1 / math.sqrt(da) if scale else 1

    def forward(self, x):
        y = 0
        for h in self.heads:
            q, k, v = h["q"](x), h["k"](x), h["v"](x)
            if self.assoc:
                y = y + q @ (k.transpose(-1, -2) @ v)  # the same attention, associated the other way
            else:
                y = y + (q @ k.mT) * self.scale @ v
        y = self.o(y)
        return x + y if self.residual else y


class LinearMixer(torch.nn.Module):
    """NB's mixer with nn.Linear: token MLP on x^T with squares, channel MLP, residuals."""

    def __init__(self, N, d, h):
        super().__init__()
        self.t1, self.t2 = torch.nn.Linear(N, N), torch.nn.Linear(N, N)
        self.c1, self.c2 = torch.nn.Linear(d, h), torch.nn.Linear(h, d)

    def forward(self, x):
        x = x + self.t2(self.t1(x.transpose(-1, -2)) ** 2).transpose(-1, -2)
        z = self.c1(x)
        return x + self.c2(z * z)


class BmmAttention(torch.nn.Module):
    """Batched (B, N, d) attention with torch.bmm."""

    def __init__(self, d):
        super().__init__()
        self.q, self.k, self.v = torch.nn.Linear(d, d, bias=False), torch.nn.Linear(d, d), torch.nn.Linear(d, d)

    def forward(self, x):
        return torch.bmm(torch.bmm(self.q(x), self.k(x).transpose(1, 2)), self.v(x))


class Assorted(torch.nn.Module):
    """Products of activations, powers, .T, torch.matmul with a token-mixing parameter, constant
    factors per channel, sums over channels, constants, sum(list), subtraction and division."""

    def __init__(self, N, d):
        super().__init__()
        self.a, self.b = torch.nn.Linear(d, d), torch.nn.Linear(d, d)
        self.g = torch.nn.Parameter(torch.randn(d))
        self.W = torch.nn.Parameter(torch.randn(N, N))

    def forward(self, x):
        y = self.a(x) * self.b(x) - 0.5 * x ** 3 + x.T.T / 3
        z = torch.matmul(self.W, y) * self.g + torch.square(y).sum(-1, keepdim=True) + 1.5
        return z + sum([x, x])


@pytest.mark.parametrize("build,tokens,kinds", [
    (lambda: LinearAttention(2, 2), 3, ["attention"]),
    (lambda: LinearAttention(3, 2, heads=2, scale=True), 2, ["attention"]),
    (lambda: LinearAttention(2, 3, assoc=True, residual=False), 2, ["attention"]),
    (lambda: LinearMixer(3, 2, 3), 3, ["token_mix", "channel_mix"]),
    (lambda: Assorted(3, 2), 3, ["branches"]),
    (lambda: torch.nn.Sequential(nt.Attention(2, residual=True), torch.nn.Linear(2, 2), nt.ChannelMix(2, second=True)),
     2, ["attention", "channel_mix"]),  # the Linear folds into the channel MLP's W (canonical form)
])
def test_traced_modules_equal_torchs_float64_forward_pass(build, tokens, kinds):
    torch.manual_seed(tokens)
    net = float64_agrees(build(), tokens)
    assert [L["type"] for L in layers_of(net)] == kinds


def test_batched_bmm_attention_is_traced_on_a_batch_of_one():
    torch.manual_seed(1)
    net = float64_agrees(BmmAttention(2), 3, batch=True)
    (L,) = layers_of(net)
    assert L["type"] == "attention" and "bQ" not in L["heads"][0] and "bK" in L["heads"][0]


def test_the_layers_are_the_model_formats_with_biases():
    torch.manual_seed(2)
    m = LinearMixer(2, 2, 3)
    tm, cm = layers_of(nt.from_torch(m, tokens=2))  # width found from the channel MLP
    assert tm["residual"] and tm["activation"] == "square" and set(tm) >= {"W", "b", "W2", "b2"}
    assert cm["residual"] and cm["activation"] == "square" and len(cm["W"]) == 3 and len(cm["b2"]) == 2
    assert Fraction(tm["b2"][1]) == Fraction(m.t2.bias[1].item())  # a token bias: one per token
    assert Fraction(cm["b"][2]) == Fraction(m.c1.bias[2].item())


# The "done when": attention written with nn.Linear and biases, traced, has the same exact
# sep as its model file written by hand.
HAND_WRITTEN = {
    "format": "netpoly-model/1", "name": "attention-with-biases", "input": {"tokens": 3, "width": 2},
    "layers": [{"type": "attention", "residual": True, "heads": [{
        "Q": [[1, -1], [2, 0]], "K": [[0, 1], [1, 1]], "V": [[1, 2], [-1, 1]], "O": [[1, 0], [1, -2]],
        "bQ": [1, 0], "bK": [0, 2], "bV": [-1, 1], "bO": [1, 1]}]}],
    "output": {"token": 0, "channel": 0}}


def test_a_traced_attention_with_biases_has_the_sep_of_its_hand_written_model():
    hand = netpoly.from_json(json.dumps(HAND_WRITTEN))
    m = LinearAttention(2, 2)
    h = HAND_WRITTEN["layers"][0]["heads"][0]
    with torch.no_grad():
        for name, W, b in (("q", "Q", "bQ"), ("k", "K", "bK"), ("v", "V", "bV")):
            m.heads[0][name].weight.copy_(torch.tensor(h[W]))
            m.heads[0][name].bias.copy_(torch.tensor(h[b]))
        m.o.weight.copy_(torch.tensor(h["O"]))
        m.o.bias.copy_(torch.tensor(h["bO"]))
    net = nt.from_torch(m, tokens=3)
    assert layers_of(net) == layers_of(hand)
    traced, written = net.seprank(partition="A=0", seed=1), hand.seprank(partition="A=0", seed=1)
    assert traced.status == written.status == "exact"
    assert traced.value == written.value
    # the polynomial has the biases' lower degrees: y0_0 at X = 0 is 3 <bQ, bK> (O bV)_0 + bO_0 = 0 + 1
    assert net.expand().to_dict()[(0,) * 6] == 1


@pytest.mark.parametrize("body,node,op", [
    (lambda x: torch.relu(x), "relu", "call_function torch.relu"),
    (lambda x: torch.softmax(x, -1), "softmax", "call_function torch.softmax"),
    (lambda x: x.reshape(-1), "reshape", "call_method Tensor.reshape"),  # not a split into heads
    (lambda x: x.sum(-2), "sum_1", "call_method Tensor.sum"),
    (lambda x: x @ x, "matmul", "call_function operator.matmul"),
])
def test_what_netpoly_cannot_express_is_refused_by_node(body, node, op):
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2)

        def forward(self, x):
            return body(self.lin(x))
    with pytest.raises(netpoly.InputError, match=f"from_torch: node '{node}' \\({op}\\) at {__file__}:\\d+ .*: "):
        nt.from_torch(M(), tokens=2)


def test_the_refusal_message_says_what_netpoly_expresses():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin, self.act = torch.nn.Linear(2, 2), torch.nn.ReLU()

        def forward(self, x):
            return torch.relu(self.lin(x)) + self.act(x)
    with pytest.raises(netpoly.InputError) as e:
        nt.from_torch(M(), tokens=2)
    line = M.forward.__code__.co_firstlineno + 1
    assert str(e.value) == (f"from_torch: node 'relu' (call_function torch.relu) at {__file__}:{line} "
                            "(return torch.relu(self.lin(x)) + self.act(x)): netpoly expresses linear maps, "
                            "elementwise squares, products and sums only; use x * x as the activation (σ₂, as "
                            "netpoly.torch.ChannelMix)")
    with pytest.raises(netpoly.InputError, match=r"node '_1' \(call_module nn.ReLU at '1'\)"):
        nt.from_torch(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU()), tokens=2)
    drop = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout(0.1))
    with pytest.raises(netpoly.InputError, match="module.eval()"):
        nt.from_torch(drop, tokens=2)
    assert [L["type"] for L in layers_of(nt.from_torch(drop.eval(), tokens=2))] == ["channel_mix"]


def test_an_nn_linear_is_a_channel_mix_with_its_bias():
    lin = torch.nn.Linear(2, 3)
    (L,) = layers_of(nt.from_torch(torch.nn.Sequential(lin), tokens=1))
    assert L["type"] == "channel_mix" and len(L["W"]) == 3 and len(L["b"]) == 3
    assert Fraction(L["b"][0]) == Fraction(lin.bias[0].item()) and Fraction(L["W"][2][1]) == Fraction(lin.weight[2, 1].item())


def test_the_width_is_found_or_asked_for():
    class Square(torch.nn.Module):
        def forward(self, x):
            return x * x
    with pytest.raises(netpoly.InputError, match="give width="):
        nt.from_torch(Square(), tokens=2)
    assert nt.from_torch(Square(), tokens=2, width=3).width == 3
    with pytest.raises(netpoly.InputError, match="runs on inputs of any width"):
        nt.from_torch(nt.Network(nt.TokenMix(2)), tokens=2)
    assert nt.from_torch(LinearMixer(3, 2, 4), tokens=3).width == 2  # the token MLP reads x^T first


def test_round_weights_rounds_to_a_power_of_two_grid_and_reports_the_change():
    torch.manual_seed(4)
    m = LinearAttention(2, 2, residual=False).double()
    net = nt.from_torch(m, tokens=2, round_weights=1e-3)
    r = net.rounding
    assert r.denominator == 512  # 1/1024 <= 1e-3 < 1/512
    params = dict(m.named_parameters())
    changes = {}
    for name, p in params.items():
        for v in p.reshape(-1).tolist():
            q = Fraction(v)
            changes[name] = max(changes.get(name, 0), abs(Fraction(round(q * 512), 512) - q))
    assert r.max_change == max(changes.values()) and r.max_change <= Fraction(1e-3)
    assert changes[r.where] == r.max_change
    assert r.weights == sum(p.numel() for p in params.values()) and 0 < r.changed <= r.weights
    assert r.zeroed == sum(1 for p in params.values() for v in p.reshape(-1).tolist()
                           if v != 0 and round(Fraction(v) * 512) == 0)
    for L in layers_of(net):
        for h in L["heads"]:
            for rows in h.values():
                for x in (rows if isinstance(rows[0], list) else [rows]):
                    for w in x:
                        assert (Fraction(w) * 512).denominator == 1
    # the same network as the module with its weights rounded in torch (multiples of 1/512 are floats)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.round(p * 512) / 512)
    assert layers_of(nt.from_torch(m, tokens=2)) == layers_of(net)
    assert nt.from_torch(m, tokens=2).rounding is None
    with pytest.raises(netpoly.InputError, match="round_weights"):
        nt.from_torch(m, tokens=2, round_weights=0)


def test_importing_netpoly_does_not_import_torch():
    code = "import sys, netpoly; assert 'torch' not in sys.modules; import netpoly.torch; assert 'torch' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))
