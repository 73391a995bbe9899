"""from_torch on the patterns issue 50 found traced into another function, or refused although valid:
each module here is traced right (its network's polynomials equal torch's float64 forward pass at
dyadic points, exactly: weights and inputs are multiples of 1/4, so float64 makes no rounding error)
or refused with a netpoly error whose message names the module's source line. Each test says what
main (9e18f75) did with it."""

import inspect
from fractions import Fraction

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import netpoly  # noqa: E402
import netpoly.torch as nt  # noqa: E402


def quarters(module, seed=1):
    """The module in float64 with weights in {-3..3}/4 (exact in float64 products of a few factors)."""
    g = torch.Generator().manual_seed(seed)
    module = module.double()
    with torch.no_grad():
        for p in list(module.parameters()) + [b for b in module.buffers() if b.is_floating_point()]:
            p.copy_(torch.randint(-3, 4, p.shape, generator=g).double() / 4)
    return module


def value(poly, point):
    total = Fraction(0)
    for e, c in poly.to_dict().items():
        term = Fraction(c)
        for x, k in zip(point, e):
            if k:
                term *= x ** k
        total += term
    return total


def traced_right(module, tokens, width=None, batch=None, points=2, denominator=4, **kw):
    """from_torch's network equals torch's float64 forward pass at dyadic points (entries k/denominator),
    exactly (on the layout the module is written for: a batch of one when batch=True)."""
    if batch is not None:
        kw["batch"] = batch
    net = nt.from_torch(module, tokens=tokens, width=width, **kw)
    polys = net.expand(outputs="all")
    g = torch.Generator().manual_seed(5)
    for _ in range(points):
        X = torch.randint(-8, 9, (tokens, net.width), generator=g).double() / denominator
        with torch.no_grad():
            Y = module(X[None])[0] if batch else module(X.clone())
        Y = Y.reshape(-1).tolist()
        assert len(Y) == len(polys)
        point = [Fraction(v) for v in X.reshape(-1).tolist()]
        for k, p in enumerate(polys):
            assert value(p, point) == Fraction(Y[k]), (k, value(p, point), Y[k])
    return net


def line_of(marker: str) -> str:
    """'test_torch_patterns.py:N', N the line of this file that holds `marker` (in a comment)."""
    lines = inspect.getsource(inspect.getmodule(line_of)).splitlines()
    hits = [k + 1 for k, line in enumerate(lines) if line.rstrip().endswith("# " + marker)]
    assert len(hits) == 1, marker
    return f"test_torch_patterns.py:{hits[0]}"


def refused_at(module, marker, match=None, error=netpoly.InputError, **kw):
    """from_torch refuses the module with `error`, naming the line marked `marker`."""
    kw.setdefault("tokens", 2)
    with pytest.raises(error) as e:
        nt.from_torch(module, **kw)
    assert line_of(marker) in str(e.value), str(e.value)
    if match is not None:
        assert match in str(e.value), str(e.value)
    return str(e.value)


class Two(nn.Module):
    """Two Linear maps a, b of the input (d -> d) and a forward given as a function."""

    def __init__(self, forward, d=2, out=None):
        super().__init__()
        self.a, self.b = nn.Linear(d, out or d), nn.Linear(d, out or d)
        self.f = forward

    def forward(self, x):
        return self.f(self, x)


# ---------------------------------------------------------------- alpha=
@pytest.mark.parametrize("forward", [
    lambda s, x: torch.sub(s.a(x), s.b(x), alpha=2),
    lambda s, x: s.a(x).sub(s.b(x), alpha=2),
    lambda s, x: torch.add(s.a(x), s.b(x), alpha=-3),  # right on main too: kept as its guard
    lambda s, x: s.a(x).add(s.b(x), alpha=0.5),  # right on main too
    lambda s, x: torch.sub(s.a(x), 1.5, alpha=2),
])
def test_alpha_multiplies_the_other_operand(forward):
    # main took torch.sub(x, y, alpha=2) and x.sub(y, alpha=2) as x - y
    traced_right(quarters(Two(forward)), tokens=2)


# ---------------------------------------------------------------- in-place updates and aliases
def _residual_alias(s, x):
    x = s.a(x)
    residual = x
    x += s.b(x)
    return s.b(x) * residual


def _rebound_alias(s, x):
    y = s.a(x)
    z = y
    y += x
    return z * s.b(x)


def _detach_alias(s, x):
    y = s.a(x)
    z = y.detach()
    z += x
    return y * x


def _contiguous_alias(s, x):
    y = s.a(x)
    z = y.contiguous()
    z.mul_(3)
    return y + s.b(x)


def _update_without_alias(s, x):
    y = s.a(x)
    y.add_(s.b(x), alpha=2)
    y -= x
    return y * y


@pytest.mark.parametrize("forward", [_residual_alias, _rebound_alias, _detach_alias, _contiguous_alias,
                                     _update_without_alias])
def test_an_in_place_update_is_seen_under_every_name_of_the_tensor(forward):
    # main kept the old value under the other name (residual = x; x += f(x) read residual as the old x),
    # and refused y.add_(...)
    traced_right(quarters(Two(forward)), tokens=2)


def test_an_in_place_update_read_through_a_view_of_another_shape_is_refused():
    # main returned y unchanged (v *= 2 changes y in torch): it traced v as y's heads, a new value
    def forward(s, x):
        B, N, D = x.shape
        y = s.a(x)
        v = y.view(B, N, 2, 2)
        v *= 2  # view-update
        return y
    refused_at(quarters(Two(forward, d=4)), "view-update", match="in-place update", width=4)


def test_an_in_place_update_of_a_parameter_is_refused():
    # main refused it as "a constant is used here as an activation"; the module changes itself on every call
    def forward(s, x):
        w = s.a.weight
        w += 1  # parameter-update
        return F.linear(x, w)
    refused_at(quarters(Two(forward)), "parameter-update", match="parameter or buffer")


# ---------------------------------------------------------------- casts
class Casts(nn.Module):
    def __init__(self, how):
        super().__init__()
        self.a, self.how = nn.Linear(2, 2), how
        self.register_buffer("ints", torch.ones(2, dtype=torch.int64))

    def forward(self, x):
        y = self.a(x)
        if self.how == "int64":
            return y.to(torch.int64) * 1.0  # cast-int64
        if self.how == "bool":
            return y.to(torch.bool) * y  # cast-bool
        if self.how == "type_as":
            return y.type_as(self.ints) * 1.0  # cast-type_as
        if self.how == "sum":
            return y.sum(-1, keepdim=True, dtype=torch.int64) * 1.0  # cast-sum
        return y.to(torch.float32).double() * y  # cast-float32


@pytest.mark.parametrize("how", ["int64", "bool", "type_as", "sum"])
def test_a_cast_to_a_type_that_is_not_float_is_refused(how):
    # main took each cast as the identity (the module rounds or thresholds its values)
    refused_at(quarters(Casts(how)), f"cast-{how}", match="a cast to torch.")


def test_a_cast_to_a_float_type_is_the_identity():
    # right on main too: the guard that the refusal above is of casts to other types only
    traced_right(quarters(Casts("float32")), tokens=2)


# ---------------------------------------------------------------- hooks and overridden forwards
def test_modules_with_hooks_are_refused_naming_the_hook():
    # main ignored hooks: the traced network lacked what they compute
    m = quarters(nn.Sequential(nn.Linear(2, 2)))
    h = m[0].register_forward_hook(lambda mod, i, o: o * 2)  # forward-hook
    refused_at(m, "forward-hook", match="module '0' (Linear) has a forward hook")
    h.remove()
    h = m.register_forward_pre_hook(lambda mod, i: (i[0] * 2,))  # pre-hook
    refused_at(m, "pre-hook", match="forward pre-hook")
    h.remove()
    g = torch.nn.modules.module.register_module_forward_hook(lambda mod, i, o: o)  # global-hook
    try:
        refused_at(m, "global-hook", match="a global forward hook")
    finally:
        g.remove()
    traced_right(m, tokens=2)  # without hooks


class Doubled(nn.Linear):
    def forward(self, x):
        return super().forward(x) * 2 + x


def test_a_linear_subclass_or_a_replaced_forward_is_traced_through_its_forward():
    # main took a Linear subclass (and a Linear whose forward was replaced) as a plain Linear
    traced_right(quarters(nn.Sequential(Doubled(2, 2), nn.Linear(2, 2))), tokens=2)
    m = quarters(nn.Sequential(nn.Linear(2, 2)))
    m[0].forward = lambda x: F.linear(x, m[0].weight) * 3 - x
    traced_right(m, tokens=2)


# ---------------------------------------------------------------- broadcasting
class HeadsTimes(nn.Module):
    """Heads of q times an activation k(x): on (B, N, H, dh) in a batch, or (H, N, dh) for one input."""

    def __init__(self, first: bool):
        super().__init__()
        self.q, self.k, self.first = nn.Linear(4, 4), nn.Linear(4, 2), first

    def forward(self, x):
        if self.first:  # (N, D): heads first, (H, N, dh) times (N, dh) is per head
            N, D = x.shape
            q = self.q(x).view(N, 2, 2).transpose(0, 1)
            return (q * self.k(x)).transpose(0, 1).reshape(N, D)
        B, N, D = x.shape
        q = self.q(x).view(B, N, 2, 2)
        return (q * self.k(x)).reshape(B, N, D)  # heads-times-tokens


def test_broadcasting_that_pairs_heads_with_tokens_is_refused():
    # with N == H == 2, main paired k(x) with each head's tokens; torch pairs token n of k(x) with head n
    refused_at(quarters(HeadsTimes(False)), "heads-times-tokens", match="pairs the heads of one with the tokens",
               width=4)


def test_broadcasting_over_the_heads_axis_is_traced():
    # right on main too: the guard that the refusal above is of pairing heads with tokens only
    traced_right(quarters(HeadsTimes(True)), tokens=2, width=4)


def test_a_module_whose_output_depends_on_the_rest_of_its_batch_is_refused():
    # (B, H, N, dh) * (B, N, dh) with B == H pairs sample b with head b: not one function per input
    class BatchHeads(nn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.k = nn.Linear(4, 4), nn.Linear(4, 2)

        def forward(self, x):
            B, N, D = x.shape
            q = self.q(x).view(B, N, 2, 2).transpose(1, 2)
            return (q * self.k(x)).transpose(1, 2).reshape(B, N, D)
    # main traced it on a batch of one, where it is per head
    with pytest.raises(netpoly.InputError, match="depends on the other inputs of its batch"):
        nt.from_torch(quarters(BatchHeads()), tokens=2, width=4)


# ---------------------------------------------------------------- the module's own forward pass
def test_a_module_whose_forward_fails_in_torch_is_refused_with_torchs_error():
    # main traced it (fx unpacked two of the three parts)
    def forward(s, x):
        a, b = s.a(x).split(2, -1)  # unpack-three
        return a * b
    msg = refused_at(quarters(Two(forward, out=6)), "unpack-three")
    assert "too many values to unpack" in msg


class TokenSum(nn.Module):
    """Written for (B, N, d): y * (the sum of y over the tokens); on (N, d) the sum runs over the channels."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)

    def forward(self, x):
        y = self.a(x)
        return y * y.sum(1, keepdim=True)


def test_a_module_that_computes_another_function_on_single_inputs_needs_batch():
    # main traced it on (N, d) without a word, where it is another function than on (B, N, d)
    m = quarters(TokenSum())
    with pytest.raises(netpoly.InputError, match=r"computes different functions there .* pass batch=True"):
        nt.from_torch(m, tokens=3)
    with pytest.raises(netpoly.InputError, match="a sum over the tokens"):  # as written, for batches
        nt.from_torch(m, tokens=3, batch=True)
    traced_right(m, tokens=3, batch=False)  # as a module for single inputs


def test_a_module_whose_forward_changes_between_calls_is_refused():
    # main returned the function of the first call (fx reads self.calls once)
    class Counting(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.calls = nn.Linear(2, 2), 0

        def forward(self, x):
            self.calls += 1
            return self.a(x) * self.calls
    for batch in ({}, {"batch": False}, {"batch": True}):
        with pytest.raises(netpoly.InputError, match="gives different values on the same input"):
            nt.from_torch(quarters(Counting()), tokens=2, **batch)


def test_a_trace_that_differs_from_torch_is_refused_with_both_values(monkeypatch):
    # the last check: with a tracer that drops constant factors (a bug made on purpose), from_torch
    # refuses instead of returning the wrong network; main had no such check
    from netpoly.torch import _algebra
    monkeypatch.setattr(_algebra._Tracer, "scale_any", lambda self, v, c: v)

    def forward(s, x):
        return s.a(x) * 3
    with pytest.raises(netpoly.InputError, match=r"output \[\d, \d\] is -?[\d.e-]+ traced and -?[\d.e-]+ in "
                                                 r"torch's forward pass"):
        nt.from_torch(quarters(Two(forward)), tokens=2)


# ---------------------------------------------------------------- valid modules main refused
class MHA(nn.Module):
    """Standard multi-head attention without softmax: q, k, v, view/transpose heads, a projection."""

    def __init__(self, d=4, heads=2):
        super().__init__()
        self.h = heads
        self.q, self.k, self.v, self.proj = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x):
        B, N, D = x.shape
        q = self.q(x).view(B, N, self.h, D // self.h).transpose(1, 2)
        k = self.k(x).view(B, N, self.h, D // self.h).transpose(1, 2)
        v = self.v(x).view(B, N, self.h, D // self.h).transpose(1, 2)
        y = ((q @ k.transpose(-2, -1)) @ v).transpose(1, 2).reshape(B, N, D)
        return self.proj(y)


def test_stacked_multi_head_attention_without_residual_is_traced():
    # main refused it: "a reshape from (1, 2, 4) to (1, 2, 2, 2)", the very head split it traces
    m = quarters(nn.Sequential(MHA(), MHA()))
    with torch.no_grad():  # integers: float64 stays exact through two layers of degree 3
        for p in m.parameters():
            p.copy_(p.sign())
    net = traced_right(m, tokens=2, width=4, batch=True, points=1, denominator=1)
    assert [L["type"] for L in __import__("json").loads(net.to_json())["layers"]] == ["attention", "attention"]


def test_a_constant_factor_inside_a_token_mlps_hidden_layer_is_traced():
    # main refused it: "a map over the tokens takes the 3 tokens, got 3 x 5"
    class TokenMLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.up, self.down = nn.Linear(3, 5), nn.Linear(5, 3)

        def forward(self, x):
            t = self.up(x.transpose(-1, -2))
            return self.down((t * t) * 2).transpose(-1, -2)
    traced_right(quarters(TokenMLP()), tokens=3, width=2)


@pytest.mark.parametrize("forward", [
    lambda s, x: torch.mul(s.a(x), other=2.0),
    lambda s, x: s.a(x).pow(exponent=2),
    lambda s, x: F.linear(x, weight=s.a.weight),
    lambda s, x: F.linear(x, weight=s.a.weight, bias=s.b.bias),
    lambda s, x: torch.sum(s.a(x), dim=-1, keepdim=True) * x,  # right on main too
])
def test_keyword_forms_are_traced(forward):
    # main ended the first three in InternalError ("a bug")
    traced_right(quarters(Two(forward)), tokens=2, width=2)


def test_an_unknown_keyword_is_refused_not_dropped():
    def forward(s, x):
        return torch.add(s.a(x), x, out=torch.empty(2, 2))  # out-keyword
    refused_at(quarters(Two(forward)), "out-keyword", match="out=")


def test_a_power_with_a_value_as_exponent_has_a_clean_message():
    # main said "a power <netpoly.torch._values._Tok object at 0x...>"
    def forward(s, x):
        return 2 ** s.a(x)  # exponential
    msg = refused_at(quarters(Two(forward)), "exponential", match="exponential")
    assert "object at" not in msg


def test_a_float64_module_with_buffers_only_is_traced():
    # main ran the shape run in float32 and reported its IndexError
    class Buffers(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("W", torch.tensor([[0.5, -1.0], [0.25, 2.0]], dtype=torch.float64))

        def forward(self, x):
            return (x @ self.W) * x
    traced_right(Buffers(), tokens=2, width=2)


# ---------------------------------------------------------------- issue 49 §6: only netpoly errors
def test_a_forward_that_raises_system_exit_is_a_netpoly_error():
    # main let SystemExit escape from_torch
    def forward(s, x):
        raise SystemExit(3)  # system-exit
    for f in (nt.from_torch, netpoly.from_torch):
        with pytest.raises(netpoly.Error) as e:
            f(quarters(Two(forward)), tokens=2, width=2)
        assert "SystemExit" in str(e.value) and line_of("system-exit") in str(e.value)


def test_a_huge_round_weights_is_a_tolerance_not_an_overflow():
    # main raised OverflowError (math.isfinite of an int beyond float's range)
    net = nt.from_torch(quarters(nn.Sequential(nn.Linear(2, 2))), tokens=2, round_weights=10**400)
    assert net.rounding.denominator == 1
