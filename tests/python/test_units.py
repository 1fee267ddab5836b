import pytest

from ziosim import ScenarioError
from ziosim.units import parse_duration, parse_rate, parse_size


@pytest.mark.parametrize(
    "text, expected",
    [
        (4096, 4096),
        (0, 0),
        ("512", 512),
        ("4K", 4096),
        ("4k", 4096),
        ("128K", 131072),
        ("128KiB", 131072),
        ("128KB", 131072),
        ("1M", 1 << 20),
        ("16M", 16 << 20),
        ("1.5T", 3 << 39),
        ("2.84T", round(2.84 * (1 << 40))),
        ("11,4T", round(11.4 * (1 << 40))),  # decimal comma, as ZFS prints under de_DE
        ("1E", 1 << 60),
        ("512B", 512),
        (" 4K ", 4096),
    ],
)
def test_sizes_are_base_1024(text, expected):
    assert parse_size(text, "x") == expected


def test_size_rounding_is_exact_not_float():
    # 2.84 × 2^40 computed in rationals: 3122613022883.84 → nearest byte.
    assert parse_size("2.84T", "x") == 3122613022884


@pytest.mark.parametrize("bad", ["-4K", -1, "4X", "", "K", "1.2.3M", True, [4096], 1.5])
def test_bad_sizes_name_the_field(bad):
    with pytest.raises(ScenarioError) as e:
        parse_size(bad, "pool.allocated")
    assert str(e.value).startswith("pool.allocated: ")
    assert "\n" not in str(e.value)


def test_negative_size_says_negative():
    with pytest.raises(ScenarioError, match=r'^pool.allocated: "-1T" — a size cannot be negative'):
        parse_size("-1T", "pool.allocated")


@pytest.mark.parametrize(
    "text, ns",
    [
        ("30us", 30_000),
        ("30µs", 30_000),
        ("500ms", 500_000_000),
        ("10s", 10_000_000_000),
        ("1.5s", 1_500_000_000),
        ("2m", 120_000_000_000),
        ("2min", 120_000_000_000),
        ("2h", 7_200_000_000_000),
        ("2h40m", 9_600_000_000_000),
        ("1d", 86_400_000_000_000),
        ("100ns", 100),
        ("0s", 0),
    ],
)
def test_durations(text, ns):
    assert parse_duration(text, "x") == ns


@pytest.mark.parametrize("bad", ["10", 10, "10x", "s", "-1s", "10 minutes", "1h-5m", ""])
def test_bad_durations(bad):
    with pytest.raises(ScenarioError) as e:
        parse_duration(bad, "scenario.stop")
    assert str(e.value).startswith("scenario.stop: ")


def test_plain_number_duration_asks_for_a_unit():
    with pytest.raises(ScenarioError, match="needs a unit"):
        parse_duration(60, "scenario.stop")


@pytest.mark.parametrize(
    "text, rate",
    [(117_000_000, 117_000_000), ("100M", 100 << 20), ("100M/s", 100 << 20), ("117MB/s", 117 << 20), ("1G/s", 1 << 30)],
)
def test_rates(text, rate):
    assert parse_rate(text, "x") == rate


@pytest.mark.parametrize("bad", ["-1M", "fast", "100M/h"])
def test_bad_rates(bad):
    with pytest.raises(ScenarioError, match=r"^links.x.rate: "):
        parse_rate(bad, "links.x.rate")


def test_simulated_seconds_have_six_significant_digits_and_no_exponent():
    from ziosim.units import sim_seconds

    # Six significant digits as the summary header always printed them (%g), without %g's
    # exponent for a long run or a very short one.
    ns = (1_000_000, 120_000_000_000, 0, 5_000_000_001, 3_427_724_710_115, 10**15, 10_000)
    assert [sim_seconds(n) for n in ns] == ["0.001s", "120s", "0s", "5s", "3427.72s", "1000000s", "0.00001s"]
