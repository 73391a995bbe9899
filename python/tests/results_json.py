"""Helpers shared by the tests that compare result JSON across front ends."""


def masked(results):
    """Result JSON without what varies between runs (timings, seconds in sizes)."""
    out = []
    for r in results:
        r = dict(r)
        r.pop("timings", None)
        r["sizes"] = {k: v for k, v in r.get("sizes", {}).items() if "seconds" not in k}
        out.append(r)
    return out
