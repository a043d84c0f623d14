"""The corpus's agent scenarios under reference agents and attacks, in both languages.

- the oracle is right everywhere (every syntax), its process complete; the null agent nowhere;
- an agent that does all the right calls and then tells the user it could NOT do any of it, with
  every number and code of the facts, fails every scenario that changes the state (issue 18 item 5);
- the same words sent as OpenAI content parts still count (issue 18 item 6);
- an agent that makes every write at once, before asking, fails exactly the scenarios with a
  confirmation to ask for — food-0005 among them (issue 12 item 7);
- paraphrases of the facts that used to be sentences pass (issue 12 item 1).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from validator.corpus.index import Corpus
from validator.models import create_model
from validator.models.base import ModelContext
from validator.models.episode import environments
from validator.models.runner import predictions
from validator.scoring.agent import AgentVerdict, ReferenceCache, load_replayer, reference_calls, score_scenario

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus.load_benchmark(ROOT, "test")


@pytest.fixture(scope="module")
def judge(corpus: Corpus) -> Any:
    replayer = load_replayer(corpus)
    assert replayer is not None
    cache = ReferenceCache(replayer)

    def verdict(record: dict[str, Any]) -> AgentVerdict:
        return score_scenario(corpus.scenarios[record["id"]].data, record, record["lang"], replayer, cache)

    return verdict


def run(corpus: Corpus, model: str, syntax: str = "python") -> list[dict[str, Any]]:
    model_ = create_model(model, ModelContext(corpus))
    return list(predictions(model_, corpus, syntax=syntax, categories=("agent",), environment=environments(corpus)))


@pytest.fixture(scope="module")
def oracle_records(corpus: Corpus) -> list[dict[str, Any]]:
    return run(corpus, "oracle")


def test_every_scenario_is_in_the_new_form(corpus: Corpus) -> None:
    assert len(corpus.scenarios) >= 92
    for scenario in (s.data for s in corpus.scenarios.values()):
        assert isinstance(scenario["time"], str) and isinstance(scenario["outputs"], list) and scenario["outputs"], scenario["id"]


def test_the_oracle_is_right_everywhere(corpus: Corpus, judge: Any, oracle_records: list[dict[str, Any]]) -> None:
    assert len(oracle_records) == 2 * len(corpus.scenarios)
    wrong = [(r["id"], r["lang"], v.error, v.detail) for r in oracle_records if not (v := judge(r)).correct or v.process != 1.0]
    assert wrong == []


def test_the_oracle_is_right_with_native_tool_calls(corpus: Corpus, judge: Any) -> None:
    wrong = [(r["id"], r["lang"]) for r in run(corpus, "oracle", "tool_calls") if not judge(r).correct]
    assert wrong == []


def test_the_null_agent_is_right_nowhere(corpus: Corpus, judge: Any) -> None:
    right = [(r["id"], r["lang"]) for r in run(corpus, "null") if judge(r).correct]
    assert right == []


def _figures(scenario: dict[str, Any]) -> list[str]:
    found: list[str] = []

    def walk(fact: Any) -> None:
        if isinstance(fact, dict):
            found.extend(str(fact[key]) for key in ("number", "code", "time", "date") if key in fact)
            for option in fact.get("any") or []:
                walk(option)

    for fact in scenario["outputs"]:
        walk(fact)
    return found


def test_a_refusal_that_lists_the_figures_fails_every_scenario_that_changes_the_state(corpus: Corpus, judge: Any, oracle_records: list[dict[str, Any]]) -> None:
    passed = []
    for record in oracle_records:
        scenario = corpus.scenarios[record["id"]].data
        if scenario.get("no_change"):
            continue
        refusal = "Sorry, I could NOT do any of that. " if record["lang"] == "en" else "抱歉，这些我都没办成。"
        attack = copy.deepcopy(record)
        for message in attack["messages"]:
            if message["role"] == "assistant" and not message.get("tool_calls"):
                message["content"] = refusal + " ".join(_figures(scenario))
        verdict = judge(attack)
        if verdict.correct:
            passed.append((record["id"], record["lang"]))
        else:  # the facts are not told, or the questions before confirmed writes are gone too
            assert verdict.error in ("agent_untold", "agent_unconfirmed"), (record["id"], verdict)
    assert passed == []


def test_content_parts_are_read_like_strings(judge: Any, oracle_records: list[dict[str, Any]]) -> None:
    wrong = []
    for record in oracle_records:
        parts = copy.deepcopy(record)
        for message in parts["messages"]:
            if message["role"] == "assistant" and isinstance(message.get("content"), str) and not message.get("tool_calls"):
                lines = message["content"].split("\n")
                message["content"] = [{"type": "text", "text": line} for line in lines]
        if not judge(parts).correct:
            wrong.append((record["id"], record["lang"]))
    assert wrong == []


def test_writing_before_asking_fails_exactly_where_the_user_must_confirm(corpus: Corpus, judge: Any, oracle_records: list[dict[str, Any]]) -> None:
    """An eager agent makes every reference call in its first turn, then reports."""
    outcome: dict[tuple[str, str], AgentVerdict] = {}
    for record in oracle_records:
        scenario = corpus.scenarios[record["id"]].data
        calls = reference_calls(scenario, record["lang"])
        told = [m for m in record["messages"] if m["role"] == "assistant" and isinstance(m.get("content"), str) and not m.get("tool_calls")]
        messages = [record["messages"][0], {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}"} for i in range(len(calls))]}, *told[-1:]]
        eager = {"id": record["id"], "lang": record["lang"], "calls": [{**call, "at": 1} for call in calls], "messages": messages}
        outcome[(record["id"], record["lang"])] = judge(eager)
    must_confirm = {
        (scenario_id, lang)
        for scenario_id, scenario in ((k, s.data) for k, s in corpus.scenarios.items())
        for lang in ("en", "zh")
        if any(m.get("confirmed") for m in scenario["milestones"])
    }
    assert {key for key, verdict in outcome.items() if verdict.error == "agent_unconfirmed"} == must_confirm
    assert {key for key, verdict in outcome.items() if verdict.correct} == set(outcome) - must_confirm
    assert ("food-0005", "en") in must_confirm and ("food-0005", "zh") in must_confirm
    assert outcome[("food-0005", "en")].process < 1.0


PARAPHRASES = {
    # bank-0008: the loan is refused for the credit score; then the transfer is made
    ("bank-0008", "en"): "Unfortunately you don't qualify for the 50,000-yuan loan: your credit rating is too low. "
    "I moved 2,000 yuan into savings as you asked. Your balances are now ¥4,380.60 in checking and ¥11,150.00 in savings.",
    ("bank-0008", "zh"): "很遗憾，您的信用分不够，这笔5万元的贷款批不下来。已按您的要求从活期转了2000元到储蓄账户，"
    "现在活期余额4380.6元，储蓄余额11150元。",
    # bank-0006: payee added, money sent
    ("bank-0006", "en"): "Sun Hao is now saved as a payee, and I've sent him 1,500 yuan with the note \"Concert tickets\". "
    "Your checking balance is 22,060.80 yuan.",
    ("bank-0006", "zh"): "孙浩已添加为收款人，1500元已经转过去了，附言“演唱会门票”。活期账户还剩22,060.80元。",
    # food-0004: the order is not placed, short of money
    ("food-0004", "en"): "The pizza with delivery comes to 76 yuan, but your wallet only has 23 yuan, so you're 53 yuan short. "
    "I haven't ordered anything.",
    ("food-0004", "zh"): "披萨加配送费一共76块，钱包余额只有23元，还差53元，所以没有下单。",
    # travel-0003: a basic-economy fare can be neither refunded nor changed
    ("travel-0003", "en"): "That ticket is a basic-economy fare, so it's non-refundable and it can't be changed to another day either. "
    "I've left the booking as it is.",
    ("travel-0003", "zh"): "这张是经济舱特价票，不能退票，也不能改签到别的日期，订单我先不动。",
    # travel-0012: another destination is a cancellation and a new booking
    ("travel-0012", "en"): "A flight can only be moved to the same route, so I cancelled TB-1001 (full refund of 1,265 yuan to your wallet) "
    "and booked MU2158, departing 10:20 on 18 July, 1,210 yuan paid from the wallet.",
    ("travel-0012", "zh"): "改签只能在同一航线内，所以我先退了北京的票，1265元全额退回钱包；又订了7月18日10:20起飞的MU2158，1210元已用钱包支付。",
}


# Replies written the way strong models report, for a spread of scenarios and both languages.
PARAPHRASES.update({
 ("bank-0001","en"): "All done! I've transferred ¥3,000 from your checking account to your savings account. Your checking account balance is now ¥20,560.80.",
 ("bank-0001","zh"): "已为您从活期账户转出3,000元到储蓄账户。现在活期账户余额为20,560.80元。",
 ("bank-0004","en"): "Your early repayment of 2,000 yuan on car loan L-5001 went through. Outstanding principal: 37,483.81 yuan. Your savings account now holds 10,800.00 yuan.",
 ("bank-0004","zh"): "已从储蓄账户提前还款2000元，车贷L-5001剩余本金37,483.81元，储蓄账户余额10,800元。",
 ("bank-0007","en"): "Good news — your loan was approved! Loan ID: L-5002. Annual rate: 3.85%. Monthly payment: ¥3,669.78 for 60 months. First payment due August 15, 2024. The 200,000 yuan has been deposited into your checking account.",
 ("bank-0007","zh"): "您的贷款已获批，编号L-5002，年利率3.85%，每月还款3,669.78元，共60期，首次还款日为2024年8月15日，20万元已打入您的活期账户。",
 ("food-0001","en"): "Your order from Chuanwei Kitchen has been placed: 2× Mapo Tofu and 2× Steamed Rice, delivered to your home. Total: ¥66.00 (including ¥4 delivery). Order ID: FO1008.",
 ("food-0001","zh"): "已为您在川味小馆下单：麻婆豆腐×2、米饭×2，送到家。合计66元（含配送费4元），订单号FO1008。",
 ("travel-0001","en"): "Booked and paid! HO1253 departs Shanghai at 14:10 on July 17 and lands in Beijing at 16:25. Economy fare: ¥792, paid from your wallet. Booking TB-1009.",
 ("travel-0001","zh"): "已为您预订HO1253航班，7月17日14:10从上海起飞，16:25到达北京，经济舱792元，已用钱包支付，订单号TB-1009。",
 ("phone-0001","en"): "Wi-Fi was off, so I turned it on. Your message to Zhang Wei has been sent.",
 ("phone-0001","zh"): "Wi-Fi 之前是关着的，我已经帮你打开了。短信已发送给张伟。",
 ("calendar-0001","en"): "I've scheduled \"Onboarding metrics review\" for Thursday, July 18 from 13:30 to 14:30 with Zhang Wei and Priya Raman, and booked Bamboo (RM-3A, 8 seats, video) for it.",
 ("calendar-0001","zh"): "已为您创建“新手引导数据复盘”，7月18日周四13:30-14:30，参会人张伟和Priya Raman，并预订了翠竹会议室（RM-3A，8人，带视频）。",
 ("office-0001","en"): "Report ER-10 \"London workshop June 2024\" has been submitted to Guo Ming with the hotel, taxi and dinner expenses; the total comes to 4,797.48 CNY. I also replied to Oliver.",
 ("office-0001","zh"): "报销单ER-10已提交给郭明，包含酒店、打车和晚餐三笔，总计4797.48元。也已回复Oliver的邮件。",
 ("travel-0011","en"): "Your flight has been cancelled. Because it departs within 24 hours, you get a 50% refund: 1,090 CNY back to your card ending 4821.",
 ("travel-0011","zh"): "航班已为您取消。由于距起飞不足24小时，退款50%，即1090元，将退回尾号4821的银行卡。",
 ("phone-0018","en"): "Paid your CityPower electricity bill of 186.50 CNY from checking; your balance is now 25,376.12 CNY. I've also deleted the CityPower text.",
 ("phone-0018","zh"): "电费186.5元已从活期账户缴清，余额还剩25376.12元。CityPower那条短信也已删除。",
 ("food-0010","en"): "Night Owl Skewers is closed right now (it opens at 5 pm). I've ordered the Dan Dan Noodles and Mapo Tofu from Chuanwei Kitchen to your office with the SICHUAN5 coupon — total 49 yuan.",
 ("food-0010","zh"): "夜猫子烧烤现在还没开门，下午5点才营业。已为您在川味小馆下单担担面和麻婆豆腐，送到公司，用了SICHUAN5券，合计49元。",
})


@pytest.mark.parametrize("key", sorted(PARAPHRASES))
def test_paraphrases_of_former_sentence_facts_pass(corpus: Corpus, key: tuple[str, str]) -> None:
    import datetime as dt

    from validator.facts import analyse, read_facts, told

    scenario_id, lang = key
    scenario = corpus.scenarios[scenario_id].data
    analysis = analyse(PARAPHRASES[key], dt.datetime.fromisoformat(scenario["time"]))
    untold = [fact for fact in read_facts(scenario["outputs"]) if not told(fact, analysis, lang)]
    assert untold == []
