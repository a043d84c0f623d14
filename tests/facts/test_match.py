"""Facts told by any correct paraphrase, in both languages; near misses that must not count.

The first rows are issue 12's own examples: 3 万元 = 30,000, 四星 = 4 星, 一件 = 1 item,
20:00 = 8 pm = 晚上8点, and a balance that must not pass for a top-up.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from validator.facts import analyse, read_fact, told

CLOCK = dt.datetime.fromisoformat("2025-05-06T09:00:00+08:00")  # a Tuesday
PAID = {"en": ["paid", "charged"], "zh": ["支付", "付了", "扣款"]}
TOPUP = {"en": ["topped up", "top-up", "added"], "zh": ["充值", "充了"]}
BALANCE = {"en": ["balance", "left"], "zh": ["余额", "还剩"]}


def says(fact: dict[str, Any], text: str, lang: str = "en", clock: dt.datetime | None = CLOCK) -> bool:
    return told(read_fact(fact), analyse(text, clock), lang)


TOLD = [
    # numbers: magnitudes, numerals, separators, decimals, units on either side
    ({"number": 30000, "unit": "CNY"}, "你的额度是3 万元", "zh"),
    ({"number": 30000, "unit": "CNY"}, "额度三万块", "zh"),
    ({"number": 30000, "unit": "CNY"}, "The limit is 30,000 yuan.", "en"),
    ({"number": 30000, "unit": "CNY"}, "The limit is ¥30,000.", "en"),
    ({"number": 30000, "unit": "CNY"}, "The limit is CNY 30000.00.", "en"),
    ({"number": 30000, "unit": "CNY"}, "The limit is 30k RMB.", "en"),
    ({"number": 30000, "unit": "CNY"}, "额度为３００００元", "zh"),
    ({"number": 15000, "unit": "CNY"}, "贷款1.5万元", "zh"),
    ({"number": 25000, "unit": "CNY"}, "一共两万五千元", "zh"),
    ({"number": 25000, "unit": "CNY"}, "一共两万五块钱", "zh"),
    ({"number": 200000, "unit": "CNY"}, "a 200,000-yuan loan", "en"),
    ({"number": 4, "unit": "star"}, "给了四星好评", "zh"),
    ({"number": 4, "unit": "star"}, "评了 4 星", "zh"),
    ({"number": 4, "unit": "star"}, "I left a 4-star rating.", "en"),
    ({"number": 4, "unit": "star"}, "Rated four stars.", "en"),
    ({"number": 1, "unit": "item"}, "还剩一件", "zh"),
    ({"number": 1, "unit": "item"}, "one item left", "en"),
    ({"number": 2, "unit": "seat"}, "还有两个座位", "zh"),
    ({"number": 2, "unit": "seat"}, "two seats are left", "en"),
    ({"number": 100, "unit": "CNY"}, "充值了100.00元", "zh"),
    ({"number": 20560.8, "unit": "CNY"}, "Your balance is now 20,560.80 yuan.", "en"),
    ({"number": 3.85, "unit": "percent"}, "年利率3.85%", "zh"),
    ({"number": 3.85, "unit": "percent"}, "at 3.85 percent a year", "en"),
    ({"number": -18, "unit": "celsius"}, "Freezer set to -18°C.", "en"),
    ({"number": -18, "unit": "celsius"}, "冷冻室调到零下18度", "zh"),
    ({"number": 41, "unit": "minute"}, "路上41分钟", "zh"),
    ({"number": 41, "unit": "minute"}, "a 41-minute ride", "en"),
    ({"number": 420.5, "unit": "CNY"}, "¥420.50 at the fuel station", "en"),
    ({"number": 3, "unit": {"en": ["tickets"], "zh": ["张"]}}, "三张票都订好了", "zh"),
    ({"number": 18, "unit": "credit"}, "这学期一共选了18个学分", "zh"),
    # lengths of time in words
    ({"number": 30, "unit": "minute"}, "It's about half an hour by taxi.", "en"),
    ({"number": 30, "unit": "minute"}, "打车大概半小时", "zh"),
    ({"number": 90, "unit": "minute"}, "The drive takes an hour and a half.", "en"),
    ({"number": 1.5, "unit": "hour"}, "开车要一个半小时", "zh"),
    ({"number": 15, "unit": "minute"}, "走过去一刻钟", "zh"),
    ({"number": 18, "unit": "credit"}, "18 credits this term", "en"),
    # about: the words that say what the number is, in the same sentence or under its heading
    ({"number": 100, "unit": "CNY", "about": TOPUP}, "I topped up your wallet by 100.00 yuan.", "en"),
    ({"number": 100, "unit": "CNY", "about": TOPUP}, "已为您充值100元。", "zh"),
    ({"number": 1260, "unit": "CNY", "about": PAID}, "Done: 1,260 yuan was charged to your card.", "en"),
    ({"number": 4380.6, "unit": "CNY", "about": BALANCE}, "Balances after the transfer:\n- checking: 4,380.60 yuan\n- savings: 11,150 yuan", "en"),
    ({"number": 4380.6, "unit": "CNY", "about": BALANCE}, "**Balances:**\n\n- checking: 4,380.60 yuan", "en"),
    ({"number": 4380.6, "unit": "CNY", "about": BALANCE}, "| account | balance |\n|---|---|\n| checking | ¥4,380.60 |", "en"),
    ({"number": 4380.6, "unit": "CNY", "about": BALANCE}, "转账后余额：\n活期 4,380.60 元", "zh"),
    # codes
    ({"code": "BK-2001"}, "Your booking bk2001 is paid.", "en"),
    ({"code": "BK-2001"}, "Bookings BK-2001/BK-2002 are paid.", "en"),
    ({"code": "BK-2001"}, "订单号BK-2001已支付", "zh"),
    ({"code": "6225881234567890"}, "account 6225 8812 3456 7890 at CMB", "en"),
    ({"code": "GB71MIDL40515712345678"}, "IBAN GB71 MIDL 4051 5712 3456 78, Emma Clarke", "en"),
    ({"code": "GB71MIDL40515712345678"}, "收款账号 GB71 MIDL 4051 5712 3456 78", "zh"),
    ({"code": "7720"}, "尾号7720的卡已解冻", "zh"),
    # times
    ({"time": "20:00"}, "at 8 pm", "en"),
    ({"time": "20:00"}, "at 8:00 p.m. tonight", "en"),
    ({"time": "20:00"}, "at 8 in the evening", "en"),
    ({"time": "20:00"}, "at 20:00", "en"),
    ({"time": "20:00"}, "晚上8点", "zh"),
    ({"time": "20:00"}, "晚上八点", "zh"),
    ({"time": "20:00"}, "20点出发", "zh"),
    ({"time": "20:00"}, "明晚8点", "zh"),
    ({"time": "19:45"}, "at 7.45pm", "en"),
    ({"time": "16:30"}, "at half past four in the afternoon", "en"),
    ({"time": "18:45"}, "at a quarter to seven pm", "en"),
    ({"time": "06:00"}, "the alarm goes off at six am", "en"),
    ({"time": "18:00"}, "at six o'clock in the evening", "en"),
    ({"time": "16:30"}, "four thirty pm", "en"),
    # the afternoon or evening of a range's start carries to its end
    ({"time": "22:30"}, "晚上6点到10点半都在家", "zh"),
    ({"time": "22:30"}, "from 6 pm to 10:30", "en"),
    ({"time": "14:00"}, "from noon to 2:00", "en"),  # noon starts a range as 12:00 pm does
    ({"number": 90, "unit": "minute"}, "It takes about 1.5 hours.", "en"),  # a length of time in the other unit
    ({"number": 90, "unit": "minute"}, "大约1.5小时", "zh"),
    ({"number": 2, "unit": "hour"}, "a 120-minute drive", "en"),
    ({"number": 90, "unit": "minute"}, "1 hour and 30 minutes", "en"),  # … or in hours, then minutes
    ({"number": 90, "unit": "minute"}, "车程1小时30分钟", "zh"),
    ({"time": "14:00"}, "open noon–2:00", "en"),
    ({"time": "14:00"}, "from 11 am to 2:00", "en"),  # a morning start and an earlier end hour: across noon
    ({"time": "13:30"}, "10 am - 1:30", "en"),
    ({"time": "13:30"}, "上午10点到1点半", "zh"),
    ({"date": "2025-05-18"}, "on 18–19 May", "en"),  # an en dash between the days, as a hyphen
    ({"time": "17:00"}, "下午3点到5点", "zh"),
    ({"time": "07:45"}, "七点四十五出发", "zh"),
    ({"time": "07:30"}, "早上7点半", "zh"),
    ({"time": "13:00"}, "中午1点", "zh"),
    ({"time": "12:00"}, "at noon", "en"),
    ({"time": "00:00"}, "at midnight", "en"),
    ({"time": "09:15", "about": {"en": ["land", "arrive"], "zh": ["落地", "到达"]}}, "It lands at 09:15.", "en"),
    ({"time": "09:15", "about": {"en": ["land", "arrive"], "zh": ["落地", "到达"]}}, "9:15到达北京", "zh"),
    # dates, against the clock (Tuesday 6 May 2025)
    ({"date": "2025-05-09"}, "on 9 May", "en"),
    ({"date": "2025-05-09"}, "on May 9th, 2025", "en"),
    ({"date": "2025-05-09"}, "on Friday", "en"),
    ({"date": "2025-05-09"}, "on 5/9", "en"),
    ({"date": "2025-05-09"}, "2025-05-09", "en"),
    ({"date": "2025-05-09"}, "5月9日", "zh"),
    ({"date": "2025-05-09"}, "五月九号", "zh"),
    ({"date": "2025-05-09"}, "2025年5月9日", "zh"),
    ({"date": "2025-05-09"}, "本周五", "zh"),
    ({"date": "2025-05-09"}, "周五", "zh"),
    ({"date": "2025-05-07"}, "tomorrow", "en"),
    ({"date": "2025-05-07"}, "明天", "zh"),
    ({"date": "2025-05-08"}, "the day after tomorrow", "en"),
    ({"date": "2025-05-08"}, "后天", "zh"),
    ({"date": "2025-05-13"}, "下周二", "zh"),
    ({"date": "2025-05-18"}, "on 18 and 19 May", "en"),  # the first of a pair takes the month after the second
    ({"date": "2025-05-19"}, "5月18日和19日", "zh"),  # the second of a pair takes the month of the first
    ({"date": "2025-05-20"}, "5月18日到20号", "zh"),
    # phrases: alternatives, inflections, punctuation, clauses
    ({"phrase": {"en": ["declined", "rejected"], "zh": ["拒绝", "未通过"]}}, "The card was declined.", "en"),
    ({"phrase": {"en": ["declined", "rejected"], "zh": ["拒绝", "未通过"]}}, "很遗憾，申请未通过。", "zh"),
    ({"phrase": {"en": ["sold out"], "zh": ["售罄"]}}, "It's SOLD-OUT.", "en"),
    ({"phrase": {"en": ["balance"], "zh": ["余额"]}}, "Here are your balances.", "en"),
    ({"phrase": {"en": ["book"], "zh": ["订"]}}, "I booked it.", "en"),
    ({"phrase": {"en": ["booked"], "zh": ["订好"]}}, "No problem, booked!", "en"),
    # an abbreviation's full stop and a clock time's colon are not clause ends
    ({"phrase": {"en": ["No. 3"], "zh": ["第3"]}}, "You are No. 3 on the waitlist.", "en"),
    ({"phrase": {"en": ["Dr. Zheng"], "zh": ["郑医生"]}}, "Dr. Zheng will see you at 9.", "en"),
    ({"phrase": {"en": ["closes at 22:00"], "zh": ["营业到22:00"]}}, "It closes at 22:00 tonight.", "en"),
    ({"phrase": {"en": ["closes at 22:00"], "zh": ["营业到22:00"]}}, "这家药店营业到22:00。", "zh"),
    ({"number": 2, "unit": "person", "about": {"en": ["ahead"], "zh": ["前面"]}}, "You are No. 3: two people are ahead of you.", "en"),
    ({"phrase": {"en": ["cancelled"], "zh": ["已取消"]}}, "订单已取消。", "zh"),
    ({"phrase": {"en": ["transferred"], "zh": ["为您转"]}}, "已为您转账3,000元。", "zh"),
    ({"phrase": {"en": ["cancelled"], "zh": ["已取消"]}}, "订单已取消，退款稍后到账。", "zh"),
    ({"phrase": {"en": ["credit score"], "zh": ["信用评分"]}}, "Your credit score is below the bank's minimum.", "en"),
    ({"any": [{"phrase": {"en": ["sold out"], "zh": ["售罄"]}}, {"number": 0, "unit": "seat"}]}, "0 seats left", "en"),
    ({"any": [{"phrase": {"en": ["sold out"], "zh": ["售罄"]}}, {"number": 0, "unit": "seat"}]}, "已经卖光，售罄了", "zh"),
    # 不 that denies nothing ("but", "soon") right before the words
    ({"phrase": {"en": ["booked"], "zh": ["订好"]}}, "不过已经帮您订好了。", "zh"),
    ({"phrase": {"en": ["not found"], "zh": ["没找到"]}}, "《小船》已加入歌单，不过没找到《午夜的渡轮》。", "zh"),
    ({"number": 300, "unit": "CNY", "about": {"en": ["left"], "zh": ["还剩"]}}, "不久前还剩300元", "zh"),
]


@pytest.mark.parametrize("fact, text, lang", TOLD)
def test_a_paraphrase_tells_the_fact(fact: dict[str, Any], text: str, lang: str) -> None:
    assert says(fact, text, lang)


NOT_TOLD = [
    # a number elsewhere, or not as the quantity the fact names
    ({"number": 100, "unit": "CNY", "about": TOPUP}, "Your balance is 100 yuan.", "en"),
    ({"number": 100, "unit": "CNY", "about": TOPUP}, "余额100元。没有充值。", "zh"),
    ({"number": 100, "unit": "CNY", "about": TOPUP}, "I did not top up; balance 100 yuan.", "en"),
    ({"number": 30000, "unit": "CNY"}, "The limit is 30,000.", "en"),
    ({"number": 30000, "unit": "CNY"}, "You have 30,000 points.", "en"),
    ({"number": 1008}, "order FO1008 is on its way", "en"),
    ({"number": 20560.8, "unit": "CNY"}, "Your balance is now 20,560.00 yuan.", "en"),
    ({"number": 20560.8, "unit": "CNY"}, "Your balance is now 20,561 yuan.", "en"),
    ({"number": 4, "unit": "star"}, "It's the 4th review.", "en"),
    ({"number": 10, "unit": "minute"}, "7点10分出发", "zh"),
    # codes inside longer codes
    ({"code": "BK-2001"}, "booking BK-20010", "en"),
    ({"code": "N-2"}, "note AN-2", "en"),
    ({"code": "B-1042"}, "Your booking B-10420 is confirmed", "en"),
    ({"code": "GB71MIDL40515712345678"}, "IBAN GB71 MIDL 4051 5712 3456 789", "en"),  # one digit more
    ({"number": 30, "unit": "hour"}, "about half an hour", "en"),  # the words are minutes or half an hour, not 30 hours
    ({"number": 45, "unit": "minute"}, "大概半小时", "zh"),
    ({"time": "16:30"}, "four thirty", "en"),  # hour and minute words with no am, pm or o'clock may be a count
    ({"time": "13:00"}, "晚上11点到1点", "zh"),  # a range across midnight: its end is read as written
    ({"time": "02:00"}, "from noon to 2:00", "en"),
    ({"number": 100, "unit": "minute"}, "about 1.67 hours", "en"),  # a rounded conversion is another number
    ({"number": 90, "unit": "minute"}, "1.5 km away", "en"),
    ({"number": 90, "unit": "minute"}, "1 hour, then 30 minutes later", "en"),  # two lengths, not one
    ({"number": 90, "unit": "minute"}, "1 hour 30", "en"),
    ({"time": "02:00"}, "from 11 am to 2:00", "en"),
    ({"time": "14:00"}, "midnight to 2:00", "en"),  # from midnight, 2:00 is the night's
    ({"time": "23:00"}, "from 9:00 to 11:00", "en"),  # a later end hour stays in the morning
    ({"time": "18:00"}, "from 08:00 to 06:00", "en"),  # a leading zero is 24-hour time: read as written
    ({"time": "14:00"}, "at 11 am and at 2:00", "en"),  # two times, not a range
    ({"phrase": {"en": ["cancelled"], "zh": ["取消"]}}, "Neither order could be cancelled.", "en"),
    ({"phrase": {"en": ["refunded"], "zh": ["退款"]}}, "None of the three tickets can be refunded.", "en"),
    ({"time": "16:30"}, "half past four", "en"),  # read as written: 04:30, as a bare 4:30 is
    # a bare hour is read as written
    ({"time": "20:00"}, "at 8:00", "en"),
    ({"time": "20:00"}, "8点", "zh"),
    ({"time": "20:00"}, "at 8", "en"),
    # dates that name another day
    ({"date": "2025-05-09"}, "on 9 June", "en"),
    ({"date": "2025-05-09"}, "next Friday", "en"),
    ({"date": "2025-05-09"}, "下周五", "zh"),
    ({"date": "2025-05-09"}, "tomorrow", "en"),
    # words denied, inside other words, or of the other language
    ({"phrase": {"en": ["declined"], "zh": ["拒绝"]}}, "It was not declined.", "en"),
    ({"phrase": {"en": ["booked"], "zh": ["订好"]}}, "I couldn't get it booked.", "en"),
    ({"phrase": {"en": ["paid"], "zh": ["支付"]}}, "It is still unpaid.", "en"),
    ({"phrase": {"en": ["cancelled"], "zh": ["取消"]}}, "订单无法取消。", "zh"),
    ({"phrase": {"en": ["cancelled"], "zh": ["取消"]}}, "这单还没取消", "zh"),
    ({"phrase": {"en": ["cancelled"], "zh": ["取消"]}}, "cancelled", "zh"),
    ({"phrase": {"en": ["transferred"], "zh": ["已转"]}}, "Sorry, I could NOT do any of that. 2000 CNY", "en"),
    ({"phrase": {"en": ["transferred"], "zh": ["转出"]}}, "抱歉，转出失败了。", "zh"),
    ({"phrase": {"en": ["cancelled"], "zh": ["取消"]}}, "这单取消不了。", "zh"),
    ({"phrase": {"en": ["booked"], "zh": ["订好"]}}, "不过还没订好。", "zh"),
    ({"phrase": {"en": ["booked"], "zh": ["订好"]}}, "不错，可惜没订好。", "zh"),
    ({"phrase": {"en": ["sent"], "zh": ["发送"]}}, "The text was sent failed, sorry.", "en"),
]


@pytest.mark.parametrize("fact, text, lang", NOT_TOLD)
def test_a_near_miss_does_not_tell_the_fact(fact: dict[str, Any], text: str, lang: str) -> None:
    assert not says(fact, text, lang)


def test_relative_dates_and_ambiguous_ones_need_the_clock() -> None:
    assert not says({"date": "2025-05-07"}, "tomorrow", clock=None)
    assert not says({"date": "2025-05-09"}, "on 5/9", clock=None)  # 5 Sep or 9 May: no clock, no reading
    assert says({"date": "2025-05-13"}, "on 13/5", clock=None)  # only one reading is a date
    # the clock decides between the readings of 9/5: 9 May is days away, 5 Sep months
    assert says({"date": "2025-05-09"}, "on 9/5", clock=CLOCK)
    assert not says({"date": "2025-09-05"}, "on 9/5", clock=CLOCK)
