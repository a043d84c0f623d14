"""Numbers written in words: Chinese numerals (一 … 十, 两, 百, 千, 万, 亿) and English number words.

Both readers take a run the scanner has already cut out, so they are straight loops over it.
"""

from __future__ import annotations

from collections.abc import Sequence

from validator.facts.lexicon import EN_ONES, EN_SCALES, EN_TENS, ZH_BIG_UNITS, ZH_DIGITS, ZH_SMALL_UNITS


def chinese_value(run: str) -> int | None:
    """The value of a run of Chinese numeral characters, or None when it is no number.

    ``十二万三千`` = 123000, ``一亿二千万`` = 120000000, ``两万五`` = 25000 (a last digit after a
    magnitude counts one place lower, as speakers mean it), ``三百零五`` = 305, ``二〇二五`` = 2025
    (digits alone read positionally). A run must begin with a digit or 十: ``万一`` is no number.
    """
    if not run or (run[0] not in ZH_DIGITS and run[0] not in ("十", "拾")):
        return None
    if all(c in ZH_DIGITS for c in run):
        value = 0
        for c in run:
            value = value * 10 + ZH_DIGITS[c]
        return value
    total = 0  # complete 万 and 亿 groups
    section = 0  # below the current 万
    digit: int | None = None
    last_unit: int | None = None  # the last magnitude applied, for "两万五" = 25000
    zero_since_unit = False
    for c in run:
        if c in ZH_DIGITS:
            if ZH_DIGITS[c] == 0:
                zero_since_unit = True
                digit = None
            else:
                digit = ZH_DIGITS[c]
        elif c in ZH_SMALL_UNITS:
            unit = ZH_SMALL_UNITS[c]
            section += (1 if digit is None else digit) * unit
            digit, last_unit, zero_since_unit = None, unit, False
        else:
            unit = ZH_BIG_UNITS[c]
            section += digit or 0
            if unit == 100_000_000:
                total = (total + section) * unit
            else:
                total += section * unit
            section, digit, last_unit, zero_since_unit = 0, None, unit, False
    if digit is not None:
        if last_unit is not None and last_unit >= 100 and not zero_since_unit:
            section += digit * (last_unit // 10)
        else:
            section += digit
    return total + section


def english_value(words: Sequence[str]) -> int | None:
    """The value of English number words (already split, hyphens and "and" removed), or None.

    ``["twenty", "five"]`` = 25, ``["one", "hundred", "twenty"]`` = 120, ``["three", "thousand"]``
    = 3000. A scale word needs a number before it ("hundred" alone is no number here).
    """
    total = 0
    current: int | None = None
    for word in words:
        if word in EN_ONES:
            rest = (current or 0) % 100
            if current is not None and rest != 0 and (rest % 10 != 0 or rest < 20):
                return None  # "five six", "ten five": two numbers, not one
            current = (current or 0) + EN_ONES[word]
        elif word in EN_TENS:
            if current is not None and current % 100 != 0:
                return None  # "twenty thirty"
            current = (current or 0) + EN_TENS[word]
        elif word in EN_SCALES:
            if current is None:
                return None
            scale = EN_SCALES[word]
            if scale == 100:
                current *= 100
            else:
                total += current * scale
                current = None
        else:
            return None
    if current is None and total == 0:
        return None
    return total + (current or 0)
