"""Helpers shared by the tests that compare result JSON across front ends."""


def masked(results):
    """Result JSON without what varies between runs (timings, seconds in sizes)."""
    out = []
    for r in results:
        r = dict(r)
        r.pop("timings", None)
        r["sizes"] = {k: v for k, v in r.get("sizes", {}).items() if "seconds" not in k}
        r["methods"] = [_without_measured(m) for m in r.get("methods", [])]
        out.append(r)
    return out


def _without_measured(x):
    """A method run without the measured rates and time estimates of a black-box plan (seprank --plan)."""
    if isinstance(x, dict):
        return {k: _without_measured(v) for k, v in x.items() if k not in ("seconds", "seconds_per_value")}
    if isinstance(x, list):
        return [_without_measured(v) for v in x]
    return x
