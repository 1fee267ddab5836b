"""DTrace ``quantize()`` text, as ``dt_print_quantize`` in libdtrace's dt_consume.c prints it.

Shape (for non-negative data, which is all ziosim has):

* header ``"%16s %41s %-9s"`` of ``value``, ``------------- Distribution -------------``,
  ``count`` (so the line ends in four spaces after ``count``);
* rows from one bucket before the first non-zero bucket to one after the last, each
  ``"%16lld |"`` + a 40-character bar of ``@`` (depth = floor(count * 40 / total + 0.5),
  total over the printed rows) padded with spaces + ``" %-9lld"``;
* the value is the bucket's lower bound, a power of two; below 1 DTrace has the 0 bucket.

``latency_log2[i]`` counts ``[2^i, 2^(i+1))`` ns, with 0 folded into bucket 0; DTrace would
put a 0 into its own ``0`` row, a distinction the results do not keep.

A keyed aggregation (``@["users"]``, ``@["users", "read"]``) prints its key before the
block (``dt_print_aggs``): each string key as ``dt_print_bytes`` does with the width -50 of
``dt_print_datum``'s table, ``" " + " " + "%-50s"``, and no newline — the header's own
leading ``"\n"`` ends the key's line, so the key sits right above the header.
"""

from __future__ import annotations

__all__ = ["keyed_quantize", "quantize", "quantize_rows"]

BAR_WIDTH = 40
KEY_WIDTH = 50  # dt_print_datum's width for a record of no integer size (a string): -50
# printf formats kept verbatim from dt_consume.c so they can be compared by eye.
HEADER = "%16s %41s %-9s" % ("value", "------------- Distribution -------------", "count")  # noqa: UP031


def quantize_rows(log2_counts: list[int]) -> list[tuple[int, int]]:
    """(value, count) rows DTrace prints for ``log2_counts``; value 0 is DTrace's 0 bucket."""
    counts = [int(c) for c in log2_counts]
    nonzero = [i for i, c in enumerate(counts) if c]
    if not nonzero:
        # DTrace prints the buckets around zero when there is no data: -1, 0, 1.
        return [(-1, 0), (0, 0), (1, 0)]
    first, last = nonzero[0], nonzero[-1]
    rows = []
    rows.append((0, 0) if first == 0 else (1 << (first - 1), 0))
    rows.extend((1 << i, counts[i]) for i in range(first, last + 1))
    rows.append((1 << (last + 1), 0))
    return rows


def quantize(log2_counts: list[int]) -> str:
    """The whole ``quantize()`` block (header and rows), each line ``\\n``-terminated.

    DTrace precedes it with an empty line; callers that print several blocks add that.
    """
    rows = quantize_rows(log2_counts)
    total = sum(count for _, count in rows)
    lines = [HEADER]
    for value, count in rows:
        # Integer form of (uint_t)(count * 40 / total + 0.5): exact, no float ties.
        depth = (2 * BAR_WIDTH * count + total) // (2 * total) if total else 0
        bar = "@" * depth + " " * (BAR_WIDTH - depth)
        lines.append("%16d |%s %-9d" % (value, bar, count))  # noqa: UP031
    return "\n".join(lines) + "\n"


def keyed_quantize(keys: tuple[str, ...], log2_counts: list[int]) -> str:
    """The key line of ``@[keys] = quantize(...)`` and the block under it."""
    key_line = "".join("  " + key.ljust(KEY_WIDTH) for key in keys)
    return key_line + "\n" + quantize(log2_counts)
