"""Only netpoly's errors leave the package (issue 49, items 6 and 7): an argument of the wrong type, None,
NaN, a huge integer, a deep or cyclic structure, or a name that the CLI's comma lists would read as
something else is a netpoly.Error subclass (InputError, or LimitError for what is too large) whose
message names the argument, never a TypeError, KeyError, RuntimeError, RecursionError or
AttributeError.

Each test says what the code before issue 49 raised; every one of them failed on that code (seen: 19
failed; the two with "1e999999999" ran out of memory), except test_column_names_still_render, which
checks that the names these checks let through still render."""

import copy
import math
from fractions import Fraction

import pytest

import netpoly


@pytest.fixture(scope="module")
def rows():
    return netpoly.table("attention", layers=[1], widths=[2], heads=[1], tokens=[2], progress=False)


def refused(error, call, *named):
    """call() raises `error` (a netpoly.Error subclass) whose message contains each of `named`."""
    with pytest.raises(error) as e:
        call()
    assert isinstance(e.value, netpoly.Error)
    for n in named:
        assert n in str(e.value), str(e.value)
    return str(e.value)


# ---- issue 49, item 6: the cases measured on main (9e18f75)

def test_to_latex_columns_of_ints(rows):
    # TypeError before (",".join of ints)
    refused(netpoly.InputError, lambda: rows.to_latex(columns=[1, 2]), "columns=", "expected a str")


def test_to_latex_columns_not_a_list(rows):
    # TypeError before (list(123))
    refused(netpoly.InputError, lambda: rows.to_latex(columns=123), "columns=", "list")


def test_to_markdown_bounds_of_none(rows):
    # TypeError before (",".join of None)
    refused(netpoly.InputError, lambda: rows.to_markdown(bounds=[None]), "bounds=")


def test_title_none(rows):
    # TypeError before (the binding layer's "incompatible function arguments")
    refused(netpoly.InputError, lambda: rows.to_latex(title=None), "title=", "str")
    refused(netpoly.InputError, lambda: rows.to_markdown(title=None), "title=", "str")


def test_a_row_that_is_not_a_table_row():
    # KeyError before (r["json"])
    refused(netpoly.InputError, lambda: netpoly.Rows([{}]).to_latex(), "row 0", "json")


def test_nan_in_a_row(rows):
    # RuntimeError before (nlohmann's parse error on the NaN json.dumps wrote)
    bad = netpoly.Rows(copy.deepcopy(rows))
    bad[0]["json"]["seconds"] = math.nan
    refused(netpoly.InputError, lambda: bad.to_latex(), "row 0", "seconds", "NaN")
    bad[0]["json"]["seconds"] = math.inf
    refused(netpoly.InputError, lambda: bad.to_markdown(), "row 0", "seconds")


def test_deep_json_in_a_row(rows):
    # RecursionError before (json.dumps)
    bad = netpoly.Rows(copy.deepcopy(rows))
    deep = []
    for _ in range(100_000):
        deep = [deep]
    bad[0]["json"]["options"] = deep
    refused(netpoly.InputError, lambda: bad.to_latex(), "row 0", "nested")


def test_cyclic_json_in_a_row(rows):
    # ValueError ("Circular reference detected") before
    bad = netpoly.Rows(copy.deepcopy(rows))
    loop = {}
    loop["self"] = loop
    bad[0]["json"]["options"] = loop
    refused(netpoly.InputError, lambda: bad.to_latex(), "row 0", "cyclic")


def test_huge_int_in_a_row(rows):
    # ValueError before (int-to-text limit in json.dumps), or nlohmann's overflow as RuntimeError
    bad = netpoly.Rows(copy.deepcopy(rows))
    bad[0]["json"]["index"] = 10**5000
    refused(netpoly.InputError, lambda: bad.to_latex(), "row 0", "index", "64 bits")


def test_poly_call_none():
    # TypeError before (list(None))
    p = netpoly.Poly({(1, 0): 1, (0, 1): 2}, 2)
    refused(netpoly.InputError, lambda: p(None), "point=", "expected a sequence")


def test_report_none():
    # AttributeError before (None.get)
    refused(netpoly.InputError, lambda: netpoly.Report(None), "Report", "d=")


# ---- issue 49, item 7: a column name is one column

def test_a_column_name_with_a_comma(rows):
    # rendered as two columns, L and d, before
    refused(netpoly.InputError, lambda: rows.to_latex(columns=["L,d"]), "columns=", "comma")
    refused(netpoly.InputError, lambda: rows.to_latex(columns="L,d"), "columns=", "comma", "['L', 'd']")
    refused(netpoly.InputError, lambda: rows.to_markdown(bounds=["LV Thm 3,LV Thm 4"]), "bounds=", "comma")


def test_an_empty_column_name(rows):
    # rendered every column before
    refused(netpoly.InputError, lambda: rows.to_latex(columns=[""]), "columns=", "empty")
    refused(netpoly.InputError, lambda: rows.to_latex(columns=["L", " "]), "columns=", "empty")
    refused(netpoly.InputError, lambda: rows.to_markdown(bounds=[""]), "bounds=", "empty")
    refused(netpoly.InputError, lambda: rows.to_latex(columns=[]), "columns=", "at least one")


def test_column_names_still_render(rows):
    assert "params" not in rows.to_markdown(columns=["L", "d", "sep"])
    assert "params" not in rows.to_markdown(columns=("L", "d", "sep"))
    assert rows.to_latex(columns="L").count("\\(L\\)") >= 1


# ---- the rest of the audit: every public entry

def test_other_results_of_wrong_json():
    # TypeError (None["status"]) before
    refused(netpoly.InputError, lambda: netpoly.Result(None), "Result", "d=")
    refused(netpoly.InputError, lambda: netpoly.Result({"status": "exact", "lower": 3}), "lower")
    # ValueError (int-to-text limit) in repr before
    refused(netpoly.InputError, lambda: netpoly.Result({"status": "exact", "lower": {"value": 10**5000}}),
            "lower", "2^64")
    refused(netpoly.InputError, lambda: netpoly.Result({"status": "probabilistic"}), "failure_probability")
    # TypeError before
    refused(netpoly.InputError, lambda: netpoly.Bound(None), "Bound", "d=")
    # ValueError (int-to-text limits) for a value of more than 4,300 digits before
    bound = dict(netpoly.bounds("attention", layers=1, width=2, heads=1, tokens=2)[0].json, value="7" * 9000)
    assert netpoly.Bound(bound).value % 10 == 7 and "netpoly.Bound" in repr(netpoly.Bound(bound))
    # TypeError before
    refused(netpoly.InputError, lambda: netpoly.Layer(None), "Layer", "d=")
    # a Network of anything, failing later with AttributeError, before
    refused(netpoly.InputError, lambda: netpoly.Network(None), "Network", "model=")
    # a missing argument: TypeError before
    refused(netpoly.InputError, lambda: netpoly.Report(), "Report", "d")


def test_layer_weights_are_model_format_numbers():
    # "1e999999999" was read by Fraction (10**999999999: minutes and a gigabyte)
    refused(netpoly.InputError, lambda: netpoly.Layer({"type": "token_mix", "W": [["1e999999999"]]}), "W", "p/q")
    layer = netpoly.Layer({"type": "token_mix", "W": [["1/2", "1+i", 3]]})
    assert layer["W"][0][0] == Fraction(1, 2) and layer["W"][0][2] == 3
    assert layer["W"][0][1] == netpoly.GaussianRational(1, 1)


def test_list_types_of_wrong_items():
    # TypeError ('int' object is not iterable) before
    refused(netpoly.InputError, lambda: netpoly.Rows(5), "Rows", "list")
    refused(netpoly.InputError, lambda: netpoly.Results(None), "Results", "list")
    # AttributeError ('int' object has no attribute 'lower') before
    refused(netpoly.InputError, lambda: netpoly.Results([1]).sup, "Results[0]", "Result")
    refused(netpoly.InputError, lambda: netpoly.Results([1]).inf, "Results[0]", "Result")
    # ValueError (max() of an empty sequence) before
    refused(netpoly.InputError, lambda: netpoly.Results([]).sup, "Results.sup", "no results")
    refused(netpoly.InputError, lambda: netpoly.Results([]).inf, "Results.inf", "no results")
    # KeyError / TypeError before
    refused(netpoly.InputError, lambda: netpoly.Rows([{"bounds": [{"id": "x", "value": "7", "log3": None}]}])
            .to_pandas(), "value") if _has("pandas") else None


def _has(module):
    import importlib.util
    return importlib.util.find_spec(module) is not None


def test_gaussian_rational_of_wrong_parts():
    # ValueError, TypeError and OverflowError from Fraction before
    refused(netpoly.InputError, lambda: netpoly.GaussianRational("x"), "re=")
    refused(netpoly.InputError, lambda: netpoly.GaussianRational(None), "re=")
    refused(netpoly.InputError, lambda: netpoly.GaussianRational(1, math.nan), "im=")
    refused(netpoly.InputError, lambda: netpoly.GaussianRational(math.inf), "re=")
    refused(netpoly.InputError, lambda: netpoly.GaussianRational("1e999999999"), "re=")
    refused(netpoly.InputError, lambda: netpoly.GaussianRational(1, 2) + "x", "GaussianRational")
    assert netpoly.GaussianRational("1/2", 0.5) == netpoly.GaussianRational(Fraction(1, 2), Fraction(1, 2))


def test_poly_call_of_wrong_values():
    p = netpoly.Poly({(2, 0): 1, (0, 1): 3}, 2)
    # TypeError (str ** int) before
    refused(netpoly.InputError, lambda: p(["a", 1]), "point=[0]", "number")
    refused(netpoly.InputError, lambda: p("12"), "point=")
    # NaN was evaluated to NaN, silently
    refused(netpoly.InputError, lambda: p([math.nan, 1.0]), "point=[0]", "nan")
    refused(netpoly.InputError, lambda: p({"x0_0": 1}), "point=", "no value for x0_1")
    # OverflowError (float ** int) before
    refused(netpoly.LimitError, lambda: netpoly.Poly({(400,): 1}, 1)([10.0]), "point=", "float")
    # an exact value of 2^62 bits was computed (memory and time without end) before
    refused(netpoly.LimitError, lambda: netpoly.Poly({(2**61,): 1}, 1)([3]), "point=", "bits")
    # GaussianRational had no ** (TypeError) before
    g = netpoly.GaussianRational(0, 1)
    assert p([g, 1]) == 2 and p([Fraction(1, 2), 2]) == Fraction(25, 4) and p([0.5, 2]) == 6.25
    assert netpoly.Poly({(2**61,): 1}, 1)([1]) == 1


def test_poly_text_and_powers_of_huge_numbers():
    # ValueError (int-to-text limit) in str() before
    p = netpoly.Poly({(1,): 10**5000}, 1)
    assert str(p).endswith("*x0_0") and len(str(p)) > 5000
    # a power without end before
    q = netpoly.Poly({(1, 0): 1, (0, 1): 1}, 2)
    refused(netpoly.LimitError, lambda: q ** 10**9, "Poly ** n", "terms")
    refused(netpoly.InputError, lambda: netpoly.Poly({(1,): 1}, 1) ** 2**62, "Poly ** n", "2^62")
    refused(netpoly.InputError, lambda: q ** -1, "Poly ** n")


def test_text_that_is_not_unicode():
    # TypeError or RuntimeError from the binding layer (as InternalError, "a bug") before
    refused(netpoly.InputError, lambda: netpoly.make("attention\ud800"), "arch=", "Unicode")
    refused(netpoly.InputError, lambda: netpoly.make("attention", weights="\ud800"), "weights=", "Unicode")
    refused(netpoly.InputError, lambda: netpoly.from_json("\ud800"), "text=", "Unicode")
    refused(netpoly.InputError, lambda: netpoly.seprank("x*y\ud800", side_a=["x"]), "poly=", "Unicode")


def test_progress_of_wrong_type():
    # progress="no" showed progress (any truthy value) before
    net = netpoly.make("attention", layers=1, width=2, heads=1, tokens=2)
    refused(netpoly.InputError, lambda: net.expand(progress="no"), "progress=")
