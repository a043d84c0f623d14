"""What EXE019 counts as a value an earlier result gave (validator.retrieval_checks)."""

from __future__ import annotations

from validator.retrieval_checks import _Values


def test_a_decimal_written_in_a_result_text_is_the_number_a_later_call_passes() -> None:
    earlier = _Values([{"summary": "Total due: 186.50 CNY by 2024-06-12", "items": 3}])
    assert earlier.holds(186.5)  # written with its trailing zero in the text
    assert earlier.holds(3) and earlier.holds("2024-06-12")
    assert not earlier.holds(186.6) and not earlier.holds(12) and not earlier.holds(2024)  # digits of a date are not values
