"""from_torch on modules written the way public PyTorch code writes them: multi-head attention that
splits and merges heads with view/reshape/transpose/permute, einsum attention, nn.Sequential MLPs with
biases and an x * x activation, a mixer block with transposes, residuals and / math.sqrt(d), and
``B, N, D = x.shape``. Each traced network's polynomials equal torch's own float64 forward pass at
random points (test_torch.float64_agrees), and net.params is the module's parameter count."""

import math

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import netpoly  # noqa: E402
from test_torch import float64_agrees  # noqa: E402


class Square(nn.Module):
    def forward(self, x):
        return x * x


class MultiHeadView(nn.Module):
    """The usual multi-head attention, softmax dropped: q/k/v projections, view + transpose(1, 2)."""

    def __init__(self, dim=4, heads=2, bias=False):
        super().__init__()
        self.heads = heads
        self.q_proj = nn.Linear(dim, dim, bias=bias)
        self.k_proj = nn.Linear(dim, dim, bias=bias)
        self.v_proj = nn.Linear(dim, dim, bias=bias)
        self.out_proj = nn.Linear(dim, dim, bias=bias)

    def forward(self, x):
        B, N, D = x.shape
        head_dim = D // self.heads
        q = self.q_proj(x).view(B, N, self.heads, head_dim).transpose(1, 2)
        k = self.k_proj(x).view(B, N, self.heads, head_dim).transpose(1, 2)
        v = self.v_proj(x).view(B, N, self.heads, head_dim).transpose(1, 2)
        attn = (q @ k.transpose(-2, -1)) / math.sqrt(head_dim)
        out = (attn @ v).transpose(1, 2).contiguous().view(B, N, D)
        return self.out_proj(out)


class MultiHeadResidual(MultiHeadView):
    """The same with biases and a residual connection, heads merged by reshape."""

    def __init__(self):
        super().__init__(dim=4, heads=2, bias=True)

    def forward(self, x):
        return x + super().forward(x)


class MultiHeadPermute(nn.Module):
    """Heads moved with permute(0, 2, 1, 3), the scale as a multiplication, merged with reshape."""

    def __init__(self, dim=6, heads=3):
        super().__init__()
        self.h, self.scale = heads, (dim // heads) ** -0.5
        self.wq, self.wk, self.wv = (nn.Linear(dim, dim) for _ in range(3))
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        q = self.wq(x).reshape(B, N, self.h, C // self.h).permute(0, 2, 1, 3)
        k = self.wk(x).reshape(B, N, self.h, C // self.h).permute(0, 2, 1, 3)
        v = self.wv(x).reshape(B, N, self.h, C // self.h).permute(0, 2, 1, 3)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        x = (attn @ v).permute(0, 2, 1, 3).reshape(B, N, C)
        return self.proj(x)


class EinsumAttention(nn.Module):
    """Single-head attention in einsum: 'bnd,bmd->bnm' scores, 'bnm,bmd->bnd' values."""

    def __init__(self, dim=3):
        super().__init__()
        self.q, self.k, self.v = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)

    def forward(self, x):
        scores = torch.einsum("bnd,bmd->bnm", self.q(x), self.k(x)) / math.sqrt(x.shape[-1])
        return torch.einsum("bnm,bmd->bnd", scores, self.v(x))


class EinsumMultiHead(nn.Module):
    """Multi-head einsum attention: 'bhnd,bhmd->bhnm' and 'bhnm,bhmd->bhnd', heads split by view."""

    def __init__(self, dim=4, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.ModuleList(nn.Linear(dim, dim, bias=False) for _ in range(3))
        self.o = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        B, N, D = x.shape
        q, k, v = (f(x).view(B, N, self.heads, -1).transpose(1, 2) for f in self.qkv)
        a = torch.einsum("bhnd,bhmd->bhnm", q, k)
        y = torch.einsum("bhnm,bhmd->bhnd", a, v)
        return self.o(y.transpose(1, 2).reshape(B, N, D))


class UnbatchedEinsum(nn.Module):
    """An (N, d) input: 'id,jd->ij', then the values, with a residual."""

    def __init__(self, dim=3):
        super().__init__()
        self.q, self.k, self.v = (nn.Linear(dim, dim, bias=False) for _ in range(3))

    def forward(self, x):
        N, D = x.shape
        s = torch.einsum("id,jd->ij", self.q(x), self.k(x)) / D
        return x + s @ self.v(x)


def sequential_mlp():
    """nn.Sequential with biases and a square activation module."""
    return nn.Sequential(nn.Linear(3, 5), Square(), nn.Linear(5, 3))


class MLPBlock(nn.Module):
    """A transformer MLP: x + fc2(fc1(x) ** 2), biases."""

    def __init__(self, dim=3, hidden=4):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(dim, hidden), nn.Linear(hidden, dim)

    def forward(self, x):
        return x + self.fc2(self.fc1(x).pow(2))


class MixerBlock(nn.Module):
    """MLP-Mixer: token mixing on x.transpose(1, 2), transposed back, and channel mixing; residuals."""

    def __init__(self, tokens=3, dim=2):
        super().__init__()
        self.token_mlp = nn.Sequential(nn.Linear(tokens, tokens), Square(), nn.Linear(tokens, tokens))
        self.channel_mlp = nn.Sequential(nn.Linear(dim, 4), Square(), nn.Linear(4, dim))

    def forward(self, x):
        x = x + self.token_mlp(x.transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mlp(x)


class MixerWideTokenMLP(nn.Module):
    """MLP-Mixer as its public implementations write it: a token MLP with its own hidden size
    (tokens_mlp_dim = 5 for 3 tokens) on x.transpose(1, 2), a channel MLP with expansion 2, residuals."""

    def __init__(self, tokens=3, dim=2, tokens_mlp_dim=5):
        super().__init__()
        self.token_mlp = nn.Sequential(nn.Linear(tokens, tokens_mlp_dim), Square(), nn.Linear(tokens_mlp_dim, tokens))
        self.channel_mlp = nn.Sequential(nn.Linear(dim, 2 * dim), Square(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        x = x + self.token_mlp(x.transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mlp(x)


class TransformerBlock(nn.Module):
    """Attention then an MLP, each with a residual, the shape read with x.size()."""

    def __init__(self, dim=4, heads=2):
        super().__init__()
        self.attn = MultiHeadView(dim, heads, bias=True)
        self.mlp = nn.Sequential(nn.Linear(dim, dim), Square(), nn.Linear(dim, dim))

    def forward(self, x):
        B, N, D = x.size()
        x = x + self.attn(x) / math.sqrt(D)
        return x + self.mlp(x)


class HeadsAsASum(nn.Module):
    """Hand-written heads as a sum, torch.matmul and .mT."""

    def __init__(self, dim=3, heads=2, dh=2):
        super().__init__()
        self.q = nn.ModuleList(nn.Linear(dim, dh, bias=False) for _ in range(heads))
        self.k = nn.ModuleList(nn.Linear(dim, dh, bias=False) for _ in range(heads))
        self.v = nn.ModuleList(nn.Linear(dim, dim, bias=False) for _ in range(heads))

    def forward(self, x):
        return sum(torch.matmul(q(x) @ k(x).mT, v(x)) for q, k, v in zip(self.q, self.k, self.v))


class MinGPTAttention(nn.Module):
    """minGPT's CausalSelfAttention (karpathy/minGPT, mingpt/model.py) as written there, with the
    softmax, the causal mask and dropout dropped: one fused c_attn split into q, k, v with
    .split(n_embd, dim=2), heads by view + transpose, k.size(-1) in the scale, x.size() unpacked."""

    def __init__(self, n_embd=4, n_head=2):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head, self.n_embd = n_head, n_embd

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class FusedQKVChunk(nn.Module):
    """A fused projection cut with torch.chunk(qkv, 3, dim=-1), single head, and a split into unequal
    parts (sizes as a list) of a second projection."""

    def __init__(self, dim=3):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.ab = nn.Linear(dim, 5, bias=False)

    def forward(self, x):
        q, k, v = torch.chunk(self.qkv(x), 3, dim=-1)
        a, b = self.ab(x).split([2, 3], dim=-1)
        return (q @ k.transpose(-2, -1)) @ v + (a @ a.transpose(-2, -1)) @ b


class TimmAttention(nn.Module):
    """timm's Attention (timm/models/vision_transformer.py) as written there, softmax dropped: one
    fused qkv reshaped to (B, N, 3, H, dh) and permuted (2, 0, 3, 1, 4), q, k, v by unbind(0), identity
    norms, q * scale, dropout, heads merged by transpose(1, 2).reshape(B, N, C)."""

    def __init__(self, dim=4, num_heads=2, index=False):
        super().__init__()
        self.num_heads, self.head_dim, self.index = num_heads, dim // num_heads, index
        self.scale = self.head_dim ** -0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=True)
        self.q_norm, self.k_norm = nn.Identity(), nn.Identity()
        self.attn_drop = nn.Dropout(0.0)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = (qkv[0], qkv[1], qkv[2]) if self.index else qkv.unbind(0)
        q, k = self.q_norm(q), self.k_norm(k)
        q = q * self.scale
        attn = q @ k.transpose(-2, -1)
        attn = self.attn_drop(attn)
        x = attn @ v
        x = x.transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


CORPUS = [
    ("multi-head view/transpose", MultiHeadView, 3, True),
    ("multi-head with biases and a residual", MultiHeadResidual, 3, True),
    ("multi-head permute/reshape", MultiHeadPermute, 2, True),
    ("einsum attention", EinsumAttention, 3, True),
    ("einsum multi-head", EinsumMultiHead, 3, True),
    ("einsum on an (N, d) input", UnbatchedEinsum, 3, False),
    ("nn.Sequential MLP", sequential_mlp, 2, False),
    ("MLP block", MLPBlock, 3, True),
    ("mixer block", MixerBlock, 3, True),
    ("mixer with a wider token MLP", MixerWideTokenMLP, 3, True),
    ("transformer block", TransformerBlock, 2, True),
    ("heads as a sum", HeadsAsASum, 3, False),
    ("minGPT fused qkv split", MinGPTAttention, 3, True),
    ("fused qkv chunk, unequal split", FusedQKVChunk, 3, True),
    ("timm qkv reshape/permute/unbind", lambda: TimmAttention().eval(), 3, True),
    ("timm qkv indexed parts", lambda: TimmAttention(dim=6, num_heads=3, index=True).eval(), 2, True),
]


@pytest.mark.parametrize("name,build,tokens,batch", CORPUS, ids=[c[0] for c in CORPUS])
def test_the_corpus_equals_torchs_float64_forward_pass(name, build, tokens, batch):
    torch.manual_seed(len(name))
    module = build()
    net = float64_agrees(module, tokens, batch=batch)
    assert net.params == sum(p.numel() for p in module.parameters())


def test_params_count_a_shared_weight_once_and_not_the_maps_the_format_adds():
    """The model file holds more entries than the module (the identity O of a head without an output
    projection, the selection maps of heads); a weight used twice is the module's once."""
    lin = nn.Linear(3, 3, bias=False)
    shared = nn.Sequential(lin, Square(), lin)
    net = netpoly.from_torch(shared, tokens=2)
    assert net.params == 9 == sum(p.numel() for p in shared.parameters())
    assert net.weights == 18  # the model file writes the shared matrix twice
    heads = netpoly.from_torch(EinsumAttention(), tokens=2)
    assert heads.params == 36 and heads.weights > heads.params


def test_a_loop_over_a_tensor_is_refused_with_what_is_traced():
    class Loop(nn.Module):
        def forward(self, x):
            return sum(row for row in x)
    with pytest.raises(netpoly.InputError, match=r"a loop over a tensor .* \(unpacking its shape, B, N, D = "
                                                 r"x.shape, is traced\)"):
        netpoly.from_torch(Loop(), tokens=2, width=2)


def test_a_reshape_that_is_no_head_split_is_refused_naming_the_shapes():
    class Flat(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            return self.lin(x).reshape(1, -1)
    with pytest.raises(netpoly.InputError, match=r"a reshape from \(3, 2\) to \(1, 6\)"):
        netpoly.from_torch(Flat(), tokens=3)


def test_a_split_along_the_tokens_is_refused_naming_the_dimension():
    class TokenSplit(nn.Module):
        def forward(self, x):
            a, b = x.split(2, dim=-2)
            return a @ b.transpose(-2, -1)
    with pytest.raises(netpoly.InputError, match=r"a split along dimension -2 of a value of shape \(4, 2\)"):
        netpoly.from_torch(TokenSplit(), tokens=4, width=2)


def test_parts_taken_along_another_dimension_are_refused_saying_what_is_traced():
    class Unbind2(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(4, 12, bias=False)

        def forward(self, x):
            B, N, C = x.shape
            q, k, v = self.qkv(x).reshape(B, N, 3, 2, 2).unbind(2)
            return (q @ k.transpose(-2, -1)) @ v
    with pytest.raises(netpoly.InputError, match=r"taking a part along dimension 2 .* qkv.permute\(2, 0, 3, 1, 4\) "
                                                 r"followed by qkv.unbind\(0\)"):
        netpoly.from_torch(Unbind2(), tokens=3)


def test_inside_a_token_mlps_hidden_tokens_only_its_activation_and_the_map_back_are_taken():
    class Leaky(nn.Module):
        def __init__(self):
            super().__init__()
            self.up, self.down, self.mix = nn.Linear(3, 5), nn.Linear(5, 3), nn.Linear(2, 2)

        def forward(self, x):  # a channel map between the token MLP's two maps: no token_mix layer
            return self.down(self.mix(self.up(x.transpose(1, 2)).transpose(1, 2)).transpose(1, 2)).transpose(1, 2)
    with pytest.raises(netpoly.InputError, match=r"inside a token MLP's hidden layer \(5 tokens\) netpoly takes its "
                                                 r"activation \(x \* x\) and the Linear back to 3 tokens only"):
        netpoly.from_torch(Leaky(), tokens=3)

    class Open(nn.Module):
        def __init__(self):
            super().__init__()
            self.up = nn.Linear(3, 5)

        def forward(self, x):
            return self.up(x.transpose(1, 2)).transpose(1, 2)
    with pytest.raises(netpoly.InputError, match=r"ends inside a token MLP's hidden layer \(5 tokens\)"):
        netpoly.from_torch(Open(), tokens=3, width=2)
