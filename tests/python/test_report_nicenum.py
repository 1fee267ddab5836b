"""ZFS number formatting: cases from users.md §4.1 and zfs-model.md §8."""

from __future__ import annotations

import pytest
from ziosim.report.iostat import LATENCY_BUCKET_LABELS
from ziosim.report.nicenum import (
    nicebytes_for_release,
    nicerate,
    zfs_nicebytes,
    zfs_nicenum,
    zfs_nicenum_format,
    zfs_nicetime,
)

TIB, GIB, MIB, KIB = 1 << 40, 1 << 30, 1 << 20, 1 << 10


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, "0"),
        (1, "1"),
        (1023, "1023"),
        (1024, "1K"),
        (4 * MIB, "4M"),  # exact multiple: no decimals
        (int(1.21 * TIB), "1.21T"),
        (int(43.5 * MIB), "43.5M"),
        (10239, "10.0K"),  # 9.999K does not fit with two decimals
        (565 * GIB + 123_456_789, "565G"),
        (int(7.73 * TIB), "7.73T"),
        (1536, "1.50K"),
        (1 << 60, "1E"),
        ((1 << 64) - 1, "16.0E"),
        (512, "512"),
    ],
)
def test_zfs_nicenum(value, expected):
    assert zfs_nicenum(value) == expected
    assert len(zfs_nicenum(value)) <= 5


def test_nicebytes_suffix_and_zero():
    assert zfs_nicebytes(0) == "0B"
    assert zfs_nicebytes(512) == "512B"
    assert zfs_nicebytes(int(1.21 * TIB)) == "1.21T"
    assert zfs_nicebytes(4 * MIB) == "4M"


def test_release_decides_bytes_format():
    # zfs_nicenum before 0.7.0, zfs_nicebytes from 0.7.0 (zfs-model.md §8.1)
    assert nicebytes_for_release(0, "zfs-0.6.5") == "0"
    assert nicebytes_for_release(0, "illumos-2014") == "0"
    assert nicebytes_for_release(0, "zfs-0.7") == "0B"
    assert nicebytes_for_release(0, "zfs-2.2") == "0B"


def test_rates():
    assert nicerate(int(43.5 * MIB)) == "43.5M/s"
    assert nicerate(int(85.3 * MIB), "zfs-0.6.5") == "85.3M/s"


@pytest.mark.parametrize(
    ("ns", "expected"),
    [
        (0, "-"),  # ZFS never prints a zero latency
        (1, "1ns"),
        (999, "999ns"),
        (1000, "1us"),
        (512_000, "512us"),
        (999_999, "999us"),  # floor, never "1000us"
        (12_345_678, "12ms"),
        (2_000_000_000, "2s"),
        (137_438_953_471, "137s"),
    ],
)
def test_nicetime(ns, expected):
    assert zfs_nicetime(ns) == expected


def test_floats_are_floored_like_the_c_cast():
    assert zfs_nicenum(1023.9) == "1023"
    assert zfs_nicetime(1999.99) == "1us"
    assert zfs_nicenum_format(-5) == "0"


def test_latency_bucket_labels_match_zpool_iostat_w():
    # zfs-model.md §8.5: upper bound 2^(j+1)-1 ns, floored.
    expected = (
        "1ns 3ns 7ns 15ns 31ns 63ns 127ns 255ns 511ns 1us 2us 4us 8us 16us 32us 65us 131us "
        "262us 524us 1ms 2ms 4ms 8ms 16ms 33ms 67ms 134ms 268ms 536ms 1s 2s 4s 8s 17s 34s "
        "68s 137s"
    ).split()
    assert list(LATENCY_BUCKET_LABELS) == expected
