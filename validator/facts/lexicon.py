"""The words the fact matcher understands, in both languages: units, numerals, months, clocks.

Everything here is data. Text is compared after NFKC and case folding (``１２６０`` is ``1260``,
``℃`` is ``°c``, ``ＣＮＹ`` is ``cny``), so every entry is written folded.
"""

from __future__ import annotations

from typing import NamedTuple


class Unit(NamedTuple):
    """How a quantity's unit is written next to its number, in either language."""

    after: tuple[str, ...]  # written after the number: "元", "yuan", "km", "个座位"
    before: tuple[str, ...]  # written before it: "¥", "cny", "£", "百分之"
    en: str  # how the oracle says it in English after the number
    zh: str  # … and in Chinese


def _unit(after: str, before: str, en: str, zh: str) -> Unit:
    return Unit(tuple(after.split("|")) if after else (), tuple(before.split("|")) if before else (), en, zh)


# Named units a fact may give as ``unit: CNY``. Currency codes also stand before the number
# ("CNY 1,260"); "$" is every dollar (a Toronto menu prices in "$"), "¥" both yuan and yen.
UNITS: dict[str, Unit] = {
    "CNY": _unit("元|块|块钱|元人民币|yuan|rmb|cny|renminbi|¥|chinese yuan", "¥|cny|rmb|人民币", "yuan", "元"),
    "GBP": _unit("英镑|镑|pounds|pound|gbp|quid|£", "£|gbp", "pounds", "英镑"),
    "USD": _unit("美元|美金|dollars|dollar|usd|us dollars|$", "$|us$|usd", "US dollars", "美元"),
    "CAD": _unit("加元|加币|加拿大元|dollars|dollar|cad|canadian dollars|$", "$|c$|ca$|cad", "Canadian dollars", "加元"),
    "AUD": _unit("澳元|澳币|dollars|dollar|aud|australian dollars|$", "$|a$|au$|aud", "Australian dollars", "澳元"),
    "HKD": _unit("港币|港元|dollars|dollar|hkd|hong kong dollars|$", "$|hk$|hkd", "Hong Kong dollars", "港币"),
    "SGD": _unit("新加坡元|新币|dollars|dollar|sgd|singapore dollars|$", "$|s$|sgd", "Singapore dollars", "新加坡元"),
    "EUR": _unit("欧元|euros|euro|eur|€", "€|eur", "euros", "欧元"),
    "JPY": _unit("日元|円|yen|jpy|¥", "¥|jpy", "yen", "日元"),
    "percent": _unit("%|percent|per cent|pct", "百分之", "%", "%"),
    "celsius": _unit("°c|°|度|摄氏度|degrees celsius|degrees|celsius|c", "", "°C", "°C"),
    "fahrenheit": _unit("°f|华氏度|degrees fahrenheit|fahrenheit|f", "华氏", "°F", "华氏度"),
    "km": _unit("km|公里|千米|kilometres|kilometers|kilometre|kilometer|kms", "", "km", "公里"),
    "m": _unit("m|米|metres|meters|metre|meter", "", "m", "米"),
    "kg": _unit("kg|公斤|千克|kilograms|kilogram|kilos|kilo|kgs", "", "kg", "公斤"),
    "g": _unit("g|克|grams|gram", "", "g", "克"),
    "mm": _unit("mm|毫米|millimetres|millimeters", "", "mm", "毫米"),
    "km/h": _unit("km/h|kmh|kph|公里/小时|公里每小时|千米/小时|kilometres per hour|kilometers per hour", "时速", "km/h", "公里/小时"),
    "minute": _unit("分钟|分|minutes|minute|mins|min", "", "minutes", "分钟"),
    "hour": _unit("小时|个小时|个钟头|钟头|hours|hour|hrs|hr|h", "", "hours", "小时"),
    "second": _unit("秒|秒钟|seconds|second|secs|sec|s", "", "seconds", "秒"),
    "day": _unit("天|days|day", "", "days", "天"),
    "night": _unit("晚|个晚上|晚上|夜|nights|night", "", "nights", "晚"),
    "week": _unit("周|个星期|星期|个礼拜|weeks|week", "", "weeks", "周"),
    "month": _unit("个月|期|months|month|instalments|installments|payments", "", "months", "个月"),
    "year": _unit("年|years|year", "", "years", "年"),
    "seat": _unit("个座位|座位|座|位|个位子|位子|seats|seat", "", "seats", "个座位"),
    "ticket": _unit("张票|张|tickets|ticket", "", "tickets", "张"),
    "person": _unit("位|个人|人|名|people|persons|person|guests|guest|passengers|passenger|travellers|travelers", "", "people", "人"),
    "item": _unit("件|个|份|样|items|item|pieces|piece|pcs", "", "items", "件"),
    "star": _unit("星|颗星|星级|stars|star", "", "stars", "星"),
    "point": _unit("分|积分|points|point|pts", "", "points", "分"),
    "credit": _unit("个学分|学分|credits|credit", "", "credits", "学分"),
    "bag": _unit("件行李|件|个行李|bags|bag|pieces of luggage|suitcases", "", "bags", "件"),
    "message": _unit("条|条短信|条消息|messages|message|texts", "", "messages", "条"),
    "order": _unit("单|笔订单|个订单|orders|order", "", "orders", "单"),
    "occurrence": _unit("次|occurrences|times|sessions|meetings", "", "occurrences", "次"),
    "room": _unit("间|个房间|间房|rooms|room", "", "rooms", "间"),
    "page": _unit("页|pages|page", "", "pages", "页"),
    "word": _unit("字|个词|words|word", "", "words", "字"),
    "file": _unit("个文件|份文件|files|file", "", "files", "个文件"),
}

# Chinese numerals (NFKC keeps them as they are); 两 and the colloquial 俩/仨 count too.
ZH_DIGITS: dict[str, int] = {
    "〇": 0, "零": 0, "一": 1, "壹": 1, "二": 2, "贰": 2, "两": 2, "俩": 2, "三": 3, "叁": 3, "仨": 3,
    "四": 4, "肆": 4, "五": 5, "伍": 5, "六": 6, "陆": 6, "七": 7, "柒": 7, "八": 8, "捌": 8, "九": 9, "玖": 9,
}  # fmt: skip
ZH_SMALL_UNITS: dict[str, int] = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
ZH_BIG_UNITS: dict[str, int] = {"万": 10_000, "萬": 10_000, "亿": 100_000_000}
ZH_NUMERAL_CHARS = frozenset(ZH_DIGITS) | frozenset(ZH_SMALL_UNITS) | frozenset(ZH_BIG_UNITS)
# a magnitude written after Arabic digits: "3万", "1.5 万", "2亿"
ZH_MAGNITUDES: dict[str, int] = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}

EN_ONES: dict[str, int] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
EN_TENS: dict[str, int] = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
EN_SCALES: dict[str, int] = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
EN_NUMBER_WORDS = frozenset(EN_ONES) | frozenset(EN_TENS) | frozenset(EN_SCALES)
# "30k", "1.2 million": magnitudes after Arabic digits
EN_MAGNITUDES: dict[str, int] = {"thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000, "k": 1000, "bn": 1_000_000_000}
ORDINAL_SUFFIXES = ("st", "nd", "rd", "th")

MONTHS: dict[str, int] = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
    "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9,
    "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
MONTH_NAMES_EN = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")

WEEKDAYS_EN: dict[str, int] = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
WEEKDAY_NAMES_EN = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
WEEKDAY_NAMES_ZH = ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日")
# 周五 / 星期五 / 礼拜五; Sunday is 日 or 天
ZH_WEEK_PREFIXES = ("星期", "礼拜", "周")
ZH_WEEKDAY_CHARS: dict[str, int] = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}

# relative days: the word and its offset from the clock's date (longest first where one contains another)
RELATIVE_DAYS_ZH: tuple[tuple[str, int], ...] = (
    ("大后天", 3), ("后天", 2), ("明天", 1), ("明日", 1), ("明晚", 1), ("明早", 1), ("明儿", 1),
    ("今天", 0), ("今日", 0), ("今晚", 0), ("今早", 0), ("今儿", 0),
)  # fmt: skip
RELATIVE_DAYS_EN: dict[str, int] = {"today": 0, "tonight": 0, "tomorrow": 1}

# lengths of time said in words, in minutes ("half an hour" is a number of minutes and of hours)
DURATION_MINUTES: dict[str, int] = {
    "half an hour": 30, "half hour": 30, "a quarter of an hour": 15, "quarter of an hour": 15, "quarter hour": 15,
    "three quarters of an hour": 45, "an hour and a half": 90, "one and a half hours": 90, "one hour and a half": 90,
    "一个半小时": 90, "一个半钟头": 90, "半个小时": 30, "半小时": 30, "半个钟头": 30, "半个钟": 30, "一刻钟": 15, "三刻钟": 45,
}

# Chinese words before an hour that fix the half of the day; the value says how the hour reads:
# "am" keeps it, "pm" adds 12 below 12, "noon" adds 12 below 11 (中午1点 is 13:00), "night"
# reads 12 as midnight and small hours as they are.
ZH_PERIODS: tuple[tuple[str, str], ...] = (
    ("凌晨", "night"), ("半夜", "night"), ("午夜", "night"), ("深夜", "pm"),
    ("早上", "am"), ("早晨", "am"), ("清晨", "am"), ("上午", "am"), ("今早", "am"), ("明早", "am"), ("早", "am"),
    ("中午", "noon"), ("正午", "noon"),
    ("下午", "pm"), ("傍晚", "pm"), ("晚上", "pm"), ("夜里", "pm"), ("夜间", "pm"), ("今晚", "pm"), ("明晚", "pm"), ("晚", "pm"),
)  # fmt: skip
# 早 and 晚 in these words mean "early" and "late", not the morning and the evening: 最晚8点 is 08:00 at the latest
ZH_NOT_PERIODS: tuple[str, ...] = ("最晚", "最早", "最迟", "较晚", "较早", "太晚", "太早", "稍晚", "稍早")
# English words after a time that fix the half of the day
EN_PERIODS_AFTER: tuple[tuple[str, str], ...] = (
    ("a.m.", "am"), ("a.m", "am"), ("am", "am"), ("p.m.", "pm"), ("p.m", "pm"), ("pm", "pm"),
    ("in the morning", "am"), ("this morning", "am"), ("tomorrow morning", "am"),
    ("in the afternoon", "pm"), ("this afternoon", "pm"), ("tomorrow afternoon", "pm"),
    ("in the evening", "pm"), ("this evening", "pm"), ("tomorrow evening", "pm"),
    ("at night", "pm"), ("tonight", "pm"), ("tomorrow night", "pm"),
)  # fmt: skip
EN_CLOCK_WORDS: dict[str, int] = {"noon": 12 * 60, "midday": 12 * 60, "midnight": 0}
ZH_CLOCK_WORDS: dict[str, int] = {"正午": 12 * 60, "午夜十二点": 0}

# Words that deny what follows them in the same clause: "not paid", "未支付", "无法取消".
NEGATIONS_EN = frozenset({"not", "no", "never", "cannot", "unable", "nothing", "without", "t", "neither", "nor"})
NEGATIONS_ZH = ("不", "没", "未", "无法")
# Words that start with 不 but deny nothing: "不过已经订好了" (but it is booked), "不少", "不久".
NOT_NEGATIONS_ZH = ("不过", "不错", "不久", "不少", "不仅", "不但", "不管", "不客气")
NEGATION_WINDOW_EN = 3  # words before the match
NEGATION_WINDOW_ZH = 3  # characters before the match

# Words right after a phrase that say it did not happen: "转出失败", "取消不了", "sending failed".
FAILURES_ZH = ("失败", "不成功", "未成功", "没成功", "没有成功", "不了", "不到")
FAILURE_WINDOW_ZH = 4  # characters after the match
FAILURES_EN = frozenset({"failed", "unsuccessful"})
