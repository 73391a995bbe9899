"""netpoly.torch: the reference modules compute what the model format says
(checked against netpoly's exact polynomial at integer points, where float64
arithmetic is exact), and from_torch takes every weight exactly."""

import itertools
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


def test_non_netpoly_modules_are_refused():
    with pytest.raises(netpoly.InputError, match="not a netpoly.torch layer"):
        nt.from_torch(torch.nn.Sequential(torch.nn.Linear(2, 2)), tokens=1, width=2)


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
