"""from_torch on causal (masked) softmax-free attention (issue 50 §5): the score product masked by a
constant lower triangle of ones (a buffer sliced to N, torch.tril of the scores, a mask made in forward,
multi-head with view/transpose) traces to an attention layer with "causal": true whose net(X) equals
torch's float64 forward exactly at dyadic points; softmax's -inf mask and every other mask (a strict
triangle, a band) are refused naming the line."""

import inspect
import json
from fractions import Fraction

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import netpoly  # noqa: E402
import netpoly.torch as nt  # noqa: E402

N, D = 4, 4


def quarters(module, seed=1):
    g = torch.Generator().manual_seed(seed)
    module = module.double()
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randint(-3, 4, p.shape, generator=g).double() / 4)
    return module


class Causal(nn.Module):
    def __init__(self, form, heads=1):
        super().__init__()
        self.form, self.H = form, heads
        self.q, self.k, self.v = (nn.Linear(D, D, bias=False) for _ in range(3))
        self.o = nn.Linear(D, D, bias=False)
        self.register_buffer("mask", torch.tril(torch.ones(N, N)))
        self.register_buffer("bias", torch.tril(torch.ones(N, N)).view(1, 1, N, N))

    def forward(self, x):
        B, n, C = x.shape
        H = self.H
        q = self.q(x).view(B, n, H, C // H).transpose(1, 2)
        k = self.k(x).view(B, n, H, C // H).transpose(1, 2)
        v = self.v(x).view(B, n, H, C // H).transpose(1, 2)
        f = self.form
        if f == "masked_fill":
            s = q @ k.transpose(-2, -1)
            s = s.masked_fill(self.mask[:n, :n] == 0, 0)
        elif f == "nanogpt":
            s = q @ k.transpose(-2, -1)
            s = s.masked_fill(self.bias[:, :, :n, :n] == 0, 0.0)
        elif f == "tril":
            s = torch.tril(q @ k.mT)
        elif f == "buffer":
            s = (q @ k.mT) * self.mask
        elif f == "forward":
            s = (q @ k.mT) * torch.tril(torch.ones(n, n))
        elif f == "-inf":
            s = (q @ k.mT).masked_fill(self.mask[:n, :n] == 0, float("-inf"))
        elif f == "strict":
            s = torch.tril(q @ k.mT, diagonal=-1)
        elif f == "band":
            s = (q @ k.mT) * (torch.tril(torch.ones(n, n)) - torch.tril(torch.ones(n, n), -2))
        y = s @ v
        return self.o(y.transpose(1, 2).reshape(B, n, C))


def exact(module, net, points=3):
    g = torch.Generator().manual_seed(5)
    for _ in range(points):
        X = torch.randint(-8, 9, (N, D), generator=g).double() / 4
        with torch.no_grad():
            Y = module(X[None])[0]
        got = net([[Fraction(v) for v in row] for row in X.tolist()])
        assert [[Fraction(v) for v in row] for row in got] == [[Fraction(v) for v in row] for row in Y.tolist()]


@pytest.mark.parametrize("heads", [1, 2])
@pytest.mark.parametrize("form", ["masked_fill", "nanogpt", "tril", "buffer", "forward"])
def test_a_causal_mask_traces_to_a_causal_attention_layer(form, heads):
    m = quarters(Causal(form, heads))
    net = nt.from_torch(m, tokens=N, width=D, batch=True)
    layers = json.loads(net.to_json())["layers"]
    assert [L["type"] for L in layers] == ["attention"]
    assert layers[0]["causal"] is True
    assert len(layers[0]["heads"]) == heads
    exact(m, net)


def test_the_causal_trace_differs_from_the_unmasked_one():
    m = quarters(Causal("tril"))
    masked = nt.from_torch(m, tokens=N, width=D, batch=True)
    plain = json.loads(masked.to_json())
    del plain["layers"][0]["causal"]
    X = [[Fraction(i - j, 2) for j in range(D)] for i in range(N)]
    assert masked(X)[0] != netpoly.from_json(json.dumps(plain))(X)[0]


def line_of(text):
    return next(i for i, s in enumerate(inspect.getsource(Causal).splitlines()) if text in s)


@pytest.mark.parametrize("form,text,why", [
    ("-inf", 'float("-inf")', "softmax"),
    ("strict", "diagonal=-1", "not the causal one"),
    ("band", "torch.tril(torch.ones(n, n), -2)", "not the causal one"),
])
def test_other_masks_are_refused_naming_the_line(form, text, why):
    m = quarters(Causal(form))
    with pytest.raises(netpoly.InputError) as e:
        nt.from_torch(m, tokens=N, width=D, batch=True)
    assert text in str(e.value) and why in str(e.value)
