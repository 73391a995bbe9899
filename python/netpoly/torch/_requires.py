"""netpoly.torch needs PyTorch and NumPy (the extra ``netpoly[torch]``, and NumPy): imported first by
the package, so that a missing one is a netpoly error naming the extra to install, not a raw
ImportError from inside a submodule."""

from netpoly._api import optional

optional("torch", "netpoly.torch")
optional("numpy", "netpoly.torch")
