"""The ``bank`` sandbox: a retail bank's customer-service back end.

A customer logs in with a customer id and a six-digit PIN; every other API acts for the
logged-in customer only. Accounts, cards, payees and loans are tables keyed by id in
``self.data``; transactions are one append-only list. All rules are deterministic:

- Transfers to payees count against the customer's daily limit (transfers between the
  customer's own accounts do not). "Today" is the sandbox clock's date.
- A frozen account accepts neither debits nor credits.
- A cash withdrawal is at most 20,000 CNY per transaction.
- Loans: the annual rate follows the credit score (>= 750: 3.85 %, >= 700: 4.35 %,
  >= 650: 5.60 %, below 650: not eligible); the most a customer may borrow is
  ``min(15 x monthly income, 500,000)`` minus what is still owed on active loans; monthly
  payments are equal instalments (annuity); repayments reduce the outstanding principal.
- A card frozen because it was stolen cannot be unfrozen (it has to be replaced).
- Future-dated and repeating transfers (``scheduled_transfers``) are checked when they are set
  up and run on their dates; since the clock never moves, they stay scheduled here.
- Bills (``bills``) are paid to a biller by the customer reference printed on the bill; bill
  payments do not count against the daily transfer limit.
- Payees abroad (``country`` set) are paid only by international transfer, in their currency,
  bought with CNY at the bank's selling rate (``exchange_rates``) plus a fee; every customer may
  buy at most USD 50,000 worth of foreign currency per calendar year.

Time never moves: every posting is stamped with the fixed clock, so the end state depends
only on which calls succeeded and in which order.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from validator.sandbox.base import ApiError, Sandbox

CURRENCY = "CNY"
MAX_LOGIN_FAILURES = 3
MAX_CASH_WITHDRAWAL = 20000.0
LOAN_CAP = 500000.0
LOAN_INCOME_MULTIPLE = 15
MIN_LOAN = 1000.0
LOAN_TERMS = (6, 12, 24, 36, 48, 60)
LOAN_PURPOSES = ("car", "education", "home_renovation", "medical", "travel", "wedding", "other")
MIN_DAILY_LIMIT = 1000.0
MAX_DAILY_LIMIT = 200000.0
FREEZE_REASONS = ("lost", "stolen", "suspicious_activity", "travel", "other")
# credit score floor -> annual interest rate in percent, best tier first
RATE_TIERS = ((750, 3.85), (700, 4.35), (650, 5.60))
FREQUENCIES = ("once", "weekly", "monthly")
MAX_SCHEDULE_DAYS = 365
# Countries a payee abroad may bank in, with the currency their accounts are kept in.
COUNTRY_CURRENCY = {"GB": "GBP", "US": "USD", "CA": "CAD", "AU": "AUD", "IE": "EUR", "SG": "SGD", "HK": "HKD"}
IBAN_COUNTRIES = {"GB": 22, "IE": 22}  # countries whose accounts are given as an IBAN, and its length
TRANSFER_PURPOSES = ("tuition", "living_expenses", "family_support", "travel", "medical", "other")
FX_ANNUAL_QUOTA_USD = 50000.0
INTERNATIONAL_FEE_RATE = 0.001  # of the CNY amount, at least 50 and at most 260 CNY, plus the cable fee
INTERNATIONAL_FEE_MIN = 50.0
INTERNATIONAL_FEE_MAX = 260.0
CABLE_FEE = 150.0


def _money(value: float) -> float:
    return round(float(value) + 0.0, 2)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _parse_date(value: Any, field: str) -> date:
    if not isinstance(value, str) or len(value) != 10:
        raise ApiError("invalid_date", field=field, value=value)
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ApiError("invalid_date", field=field, value=value) from None


def _add_month(day: date) -> date:
    year, month = (day.year + 1, 1) if day.month == 12 else (day.year, day.month + 1)
    return date(year, month, min(day.day, 28))


def _run_dates(first: date, frequency: str, occurrences: int) -> list[date]:
    """The dates a scheduled transfer runs on: weekly adds 7 days, monthly keeps the day (at most 28)."""
    dates = [first]
    while len(dates) < occurrences:
        dates.append(dates[-1] + timedelta(days=7) if frequency == "weekly" else _add_month(dates[-1]))
    return dates


def _business_days_later(day: date, days: int) -> date:
    while days:
        day += timedelta(days=1)
        if day.weekday() < 5:
            days -= 1
    return day


class BankSandbox(Sandbox):
    """Retail banking for the logged-in customer: accounts, transfers, payees, loans, cards."""

    name = "bank"

    # ------------------------------------------------------------------ helpers

    def _customer(self) -> dict[str, Any]:
        customer_id = self.data["session"].get("customer_id")
        if customer_id is None or customer_id not in self.data["customers"]:
            raise ApiError("not_logged_in")
        return self.data["customers"][customer_id]

    def _account(self, customer: dict[str, Any], account_id: Any) -> dict[str, Any]:
        account = self.data["accounts"].get(account_id) if isinstance(account_id, str) else None
        if account is None or account["customer_id"] != customer["customer_id"]:
            raise ApiError("unknown_account", account_id=account_id)
        return account

    @staticmethod
    def _amount(amount: Any, minimum: float = 0.0) -> float:
        if not _is_number(amount) or amount <= 0 or amount < minimum or round(amount, 2) != amount:
            raise ApiError("invalid_amount", amount=amount)
        return _money(amount)

    @staticmethod
    def _usable(account: dict[str, Any]) -> None:
        if account["status"] == "frozen":
            raise ApiError("account_frozen", account_id=account["account_id"])

    @staticmethod
    def _debitable(account: dict[str, Any], amount: float) -> None:
        if account["balance"] < amount:
            raise ApiError(
                "insufficient_funds",
                account_id=account["account_id"],
                balance=account["balance"],
                requested=amount,
            )

    def _post(
        self,
        account: dict[str, Any],
        kind: str,
        signed_amount: float,
        counterparty: str | None,
        memo: str,
    ) -> dict[str, Any]:
        account["balance"] = _money(account["balance"] + signed_amount)
        entry = {
            "transaction_id": self.new_id("transaction", "T"),
            "account_id": account["account_id"],
            "posted_at": self.now().isoformat(),
            "type": kind,
            "amount": _money(signed_amount),
            "balance_after": account["balance"],
            "counterparty": counterparty,
            "memo": memo,
        }
        self.data["transactions"].append(entry)
        return entry

    def _used_today(self, customer: dict[str, Any]) -> float:
        today = self.now().date().isoformat()
        owned = {a["account_id"] for a in self.data["accounts"].values() if a["customer_id"] == customer["customer_id"]}
        return _money(
            sum(
                -t["amount"]
                for t in self.data["transactions"]
                if t["type"] == "transfer_out" and t["account_id"] in owned and t["posted_at"][:10] == today
            )
        )

    def _limit_view(self, customer: dict[str, Any]) -> dict[str, Any]:
        used = self._used_today(customer)
        limit = _money(customer["daily_transfer_limit"])
        return {
            "daily_limit": limit,
            "used_today": used,
            "remaining_today": _money(max(limit - used, 0.0)),
            "currency": CURRENCY,
        }

    @staticmethod
    def _rate_for(credit_score: int) -> float | None:
        for floor, rate in RATE_TIERS:
            if credit_score >= floor:
                return rate
        return None

    def _max_loan(self, customer: dict[str, Any]) -> float:
        owed = sum(
            loan["outstanding"]
            for loan in self.data["loans"].values()
            if loan["customer_id"] == customer["customer_id"] and loan["status"] == "active"
        )
        cap = min(customer["monthly_income"] * LOAN_INCOME_MULTIPLE, LOAN_CAP)
        return _money(max(cap - owed, 0.0))

    @staticmethod
    def _instalment(principal: float, annual_rate: float, months: int) -> float:
        r = annual_rate / 100 / 12
        return _money(principal * r / (1 - (1 + r) ** -months))

    def _card(self, customer: dict[str, Any], card_id: Any) -> dict[str, Any]:
        card = self.data["cards"].get(card_id) if isinstance(card_id, str) else None
        if card is None or card["customer_id"] != customer["customer_id"]:
            raise ApiError("unknown_card", card_id=card_id)
        return card

    @staticmethod
    def _public_account(account: dict[str, Any]) -> dict[str, Any]:
        return {
            "account_id": account["account_id"],
            "type": account["type"],
            "balance": account["balance"],
            "currency": account["currency"],
            "status": account["status"],
        }

    @staticmethod
    def _public_payee(payee: dict[str, Any]) -> dict[str, Any]:
        """Domestic payees keep their four fields; a payee abroad adds where and in what currency."""
        view = {k: payee[k] for k in ("payee_id", "name", "account_number", "bank_name")}
        if payee.get("country"):
            view.update({k: payee[k] for k in ("swift_code", "country", "currency")})
        return view

    def _payee(self, customer: dict[str, Any], payee_id: Any) -> dict[str, Any]:
        payee = self.data["payees"].get(payee_id) if isinstance(payee_id, str) else None
        if payee is None or payee["customer_id"] != customer["customer_id"]:
            raise ApiError("unknown_payee", payee_id=payee_id)
        return payee

    def _rate(self, currency: str) -> float:
        rates = self.data["exchange_rates"]["cny_per_unit"]
        if currency not in rates:
            raise ApiError("unsupported_currency", currency=currency, supported=sorted(rates))
        return rates[currency]

    @staticmethod
    def _public_card(card: dict[str, Any]) -> dict[str, Any]:
        return {
            "card_id": card["card_id"],
            "last4": card["last4"],
            "kind": card["kind"],
            "account_id": card["account_id"],
            "status": card["status"],
            "freeze_reason": card["freeze_reason"],
        }

    # ------------------------------------------------------------------ session

    def bank_login(self, customer_id: str, pin: str) -> dict[str, Any]:
        session = self.data["session"]
        failures = session.setdefault("failed_logins", {})
        customer = self.data["customers"].get(customer_id) if isinstance(customer_id, str) else None
        if customer is not None and failures.get(customer_id, 0) >= MAX_LOGIN_FAILURES:
            raise ApiError("login_locked", customer_id=customer_id)
        if customer is None or customer["pin"] != pin:
            if customer is None:
                raise ApiError("invalid_credentials")
            failures[customer_id] = failures.get(customer_id, 0) + 1
            left = MAX_LOGIN_FAILURES - failures[customer_id]
            if left <= 0:
                raise ApiError("login_locked", customer_id=customer_id)
            raise ApiError("invalid_credentials", attempts_left=left)
        failures.pop(customer_id, None)
        session["customer_id"] = customer_id
        return {"customer_id": customer_id, "name": customer["name"], "logged_in": True}

    def bank_logout(self) -> dict[str, Any]:
        customer = self._customer()
        self.data["session"]["customer_id"] = None
        return {"customer_id": customer["customer_id"], "logged_in": False}

    # ------------------------------------------------------------------ accounts

    def bank_list_accounts(self, account_type: str = "all") -> dict[str, Any]:
        customer = self._customer()
        if account_type not in ("all", "checking", "savings"):
            raise ApiError("invalid_account_type", account_type=account_type)
        accounts = [
            self._public_account(a)
            for a in sorted(self.data["accounts"].values(), key=lambda a: a["account_id"])
            if a["customer_id"] == customer["customer_id"] and account_type in ("all", a["type"])
        ]
        return {"accounts": accounts}

    def bank_get_balance(self, account_id: str) -> dict[str, Any]:
        customer = self._customer()
        return self._public_account(self._account(customer, account_id))

    def bank_deposit(self, account_id: str, amount: float, memo: str = "") -> dict[str, Any]:
        customer = self._customer()
        account = self._account(customer, account_id)
        value = self._amount(amount)
        self._usable(account)
        entry = self._post(account, "deposit", value, None, memo)
        return {"transaction_id": entry["transaction_id"], "account_id": account["account_id"], "amount": value, "balance": account["balance"]}

    def bank_withdraw(self, account_id: str, amount: float, memo: str = "") -> dict[str, Any]:
        customer = self._customer()
        account = self._account(customer, account_id)
        value = self._amount(amount)
        if value > MAX_CASH_WITHDRAWAL:
            raise ApiError("withdrawal_limit_exceeded", limit=MAX_CASH_WITHDRAWAL, requested=value)
        self._usable(account)
        self._debitable(account, value)
        entry = self._post(account, "withdrawal", -value, None, memo)
        return {"transaction_id": entry["transaction_id"], "account_id": account["account_id"], "amount": value, "balance": account["balance"]}

    def get_statement(
        self, account_id: str, start_date: str, end_date: str, direction: str = "all"
    ) -> dict[str, Any]:
        customer = self._customer()
        account = self._account(customer, account_id)
        start = _parse_date(start_date, "start_date")
        end = _parse_date(end_date, "end_date")
        if start > end:
            raise ApiError("invalid_date_range", start_date=start_date, end_date=end_date)
        if direction not in ("all", "credit", "debit"):
            raise ApiError("invalid_direction", direction=direction)
        rows = []
        for t in self.data["transactions"]:
            if t["account_id"] != account["account_id"]:
                continue
            if not start.isoformat() <= t["posted_at"][:10] <= end.isoformat():
                continue
            if direction == "credit" and t["amount"] < 0 or direction == "debit" and t["amount"] > 0:
                continue
            rows.append(dict(t))
        rows.sort(key=lambda t: (t["posted_at"], t["transaction_id"]))
        credits = _money(sum(t["amount"] for t in rows if t["amount"] > 0))
        debits = _money(-sum(t["amount"] for t in rows if t["amount"] < 0))
        return {
            "account_id": account["account_id"],
            "start_date": start.isoformat(),
            "end_date": end.isoformat(),
            "currency": CURRENCY,
            "transactions": rows,
            "total_credits": credits,
            "total_debits": debits,
        }

    # ------------------------------------------------------------------ transfers

    def transfer_between_accounts(
        self, from_account_id: str, to_account_id: str, amount: float, memo: str = ""
    ) -> dict[str, Any]:
        customer = self._customer()
        source = self._account(customer, from_account_id)
        target = self._account(customer, to_account_id)
        if source is target:
            raise ApiError("same_account", account_id=from_account_id)
        value = self._amount(amount)
        self._usable(source)
        self._usable(target)
        self._debitable(source, value)
        out = self._post(source, "own_transfer_out", -value, target["account_id"], memo)
        self._post(target, "own_transfer_in", value, source["account_id"], memo)
        return {
            "transaction_id": out["transaction_id"],
            "amount": value,
            "from_account_id": source["account_id"],
            "from_balance": source["balance"],
            "to_account_id": target["account_id"],
            "to_balance": target["balance"],
        }

    def transfer_to_payee(self, from_account_id: str, payee_id: str, amount: float, memo: str = "") -> dict[str, Any]:
        customer = self._customer()
        source = self._account(customer, from_account_id)
        payee = self.data["payees"].get(payee_id) if isinstance(payee_id, str) else None
        if payee is None or payee["customer_id"] != customer["customer_id"]:
            raise ApiError("unknown_payee", payee_id=payee_id)
        if payee.get("country"):
            raise ApiError("payee_abroad", payee_id=payee["payee_id"], country=payee["country"], currency=payee["currency"])
        value = self._amount(amount)
        self._usable(source)
        limits = self._limit_view(customer)
        if value > limits["remaining_today"]:
            raise ApiError(
                "daily_limit_exceeded",
                daily_limit=limits["daily_limit"],
                remaining_today=limits["remaining_today"],
                requested=value,
            )
        self._debitable(source, value)
        inbound = self.data["accounts"].get(payee["account_number"])
        if inbound is not None and inbound["status"] == "frozen":
            raise ApiError("payee_account_unavailable", payee_id=payee["payee_id"])
        out = self._post(source, "transfer_out", -value, payee["name"], memo)
        if inbound is not None:  # the payee banks with us: credit the account at once
            self._post(inbound, "transfer_in", value, customer["name"], memo)
        return {
            "transaction_id": out["transaction_id"],
            "payee_id": payee["payee_id"],
            "payee_name": payee["name"],
            "amount": value,
            "from_account_id": source["account_id"],
            "balance": source["balance"],
            "remaining_today": _money(limits["remaining_today"] - value),
        }

    def get_transfer_limit(self) -> dict[str, Any]:
        return self._limit_view(self._customer())

    def set_transfer_limit(self, daily_limit: float) -> dict[str, Any]:
        customer = self._customer()
        if not _is_number(daily_limit) or not MIN_DAILY_LIMIT <= daily_limit <= MAX_DAILY_LIMIT:
            raise ApiError("limit_out_of_range", minimum=MIN_DAILY_LIMIT, maximum=MAX_DAILY_LIMIT, requested=daily_limit)
        customer["daily_transfer_limit"] = _money(daily_limit)
        return self._limit_view(customer)

    # ------------------------------------------------------------------ payees

    def bank_list_payees(self) -> dict[str, Any]:
        customer = self._customer()
        payees = [
            self._public_payee(p)
            for p in sorted(self.data["payees"].values(), key=lambda p: p["payee_id"])
            if p["customer_id"] == customer["customer_id"]
        ]
        return {"payees": payees}

    def bank_add_payee(self, name: str, account_number: str, bank_name: str) -> dict[str, Any]:
        customer = self._customer()
        if not isinstance(name, str) or not name.strip():
            raise ApiError("invalid_payee", field="name")
        if not isinstance(account_number, str) or not account_number.isdigit() or not 12 <= len(account_number) <= 19:
            raise ApiError("invalid_payee", field="account_number")
        if not isinstance(bank_name, str) or not bank_name.strip():
            raise ApiError("invalid_payee", field="bank_name")
        own = self.data["accounts"].get(account_number)
        if own is not None and own["customer_id"] == customer["customer_id"]:
            raise ApiError("own_account_as_payee", account_number=account_number)
        for payee in self.data["payees"].values():
            if payee["customer_id"] == customer["customer_id"] and payee["account_number"] == account_number:
                raise ApiError("payee_already_exists", payee_id=payee["payee_id"])
        payee_id = self.new_id("payee", "P-")
        record = {
            "payee_id": payee_id,
            "customer_id": customer["customer_id"],
            "name": name.strip(),
            "account_number": account_number,
            "bank_name": bank_name.strip(),
            "added_on": self.now().date().isoformat(),
        }
        self.data["payees"][payee_id] = record
        return {k: record[k] for k in ("payee_id", "name", "account_number", "bank_name")}

    def bank_remove_payee(self, payee_id: str) -> dict[str, Any]:
        customer = self._customer()
        payee = self.data["payees"].get(payee_id) if isinstance(payee_id, str) else None
        if payee is None or payee["customer_id"] != customer["customer_id"]:
            raise ApiError("unknown_payee", payee_id=payee_id)
        del self.data["payees"][payee_id]
        return {"payee_id": payee_id, "removed": True}

    # ------------------------------------------------------------------ loans

    def list_loans(self, status: str = "active") -> dict[str, Any]:
        customer = self._customer()
        if status not in ("active", "closed", "all"):
            raise ApiError("invalid_status", status=status)
        loans = [
            {
                k: loan[k]
                for k in (
                    "loan_id",
                    "purpose",
                    "principal",
                    "outstanding",
                    "annual_rate",
                    "term_months",
                    "monthly_payment",
                    "next_due_date",
                    "status",
                )
            }
            for loan in sorted(self.data["loans"].values(), key=lambda loan: loan["loan_id"])
            if loan["customer_id"] == customer["customer_id"] and status in ("all", loan["status"])
        ]
        return {"loans": loans}

    def get_loan_quote(self, amount: float, term_months: int) -> dict[str, Any]:
        customer = self._customer()
        value = self._amount(amount, MIN_LOAN)
        if term_months not in LOAN_TERMS or isinstance(term_months, bool):
            raise ApiError("invalid_term", term_months=term_months, allowed=list(LOAN_TERMS))
        rate = self._rate_for(customer["credit_score"])
        limit = self._max_loan(customer)
        reasons = []
        if rate is None:
            reasons.append("credit_score_too_low")
        if value > limit:
            reasons.append("amount_above_limit")
        payment = self._instalment(value, rate, term_months) if rate is not None else None
        return {
            "amount": value,
            "term_months": term_months,
            "eligible": not reasons,
            "reasons": reasons,
            "max_amount": limit,
            "annual_rate": rate,
            "monthly_payment": payment,
            "total_interest": _money(payment * term_months - value) if payment is not None else None,
            "currency": CURRENCY,
        }

    def apply_for_loan(
        self, amount: float, term_months: int, purpose: str, deposit_account_id: str
    ) -> dict[str, Any]:
        customer = self._customer()
        value = self._amount(amount, MIN_LOAN)
        if term_months not in LOAN_TERMS or isinstance(term_months, bool):
            raise ApiError("invalid_term", term_months=term_months, allowed=list(LOAN_TERMS))
        if purpose not in LOAN_PURPOSES:
            raise ApiError("invalid_purpose", purpose=purpose, allowed=list(LOAN_PURPOSES))
        account = self._account(customer, deposit_account_id)
        self._usable(account)
        rate = self._rate_for(customer["credit_score"])
        if rate is None:
            raise ApiError("credit_score_too_low")
        limit = self._max_loan(customer)
        if value > limit:
            raise ApiError("loan_amount_above_limit", max_amount=limit, requested=value)
        payment = self._instalment(value, rate, term_months)
        loan_id = self.new_id("loan", "L-")
        today = self.now().date()
        loan = {
            "loan_id": loan_id,
            "customer_id": customer["customer_id"],
            "purpose": purpose,
            "principal": value,
            "outstanding": value,
            "annual_rate": rate,
            "term_months": term_months,
            "monthly_payment": payment,
            "start_date": today.isoformat(),
            "next_due_date": _add_month(today).isoformat(),
            "disbursed_to": account["account_id"],
            "status": "active",
        }
        self.data["loans"][loan_id] = loan
        entry = self._post(account, "loan_disbursement", value, loan_id, "")
        return {
            "loan_id": loan_id,
            "status": "active",
            "principal": value,
            "annual_rate": rate,
            "term_months": term_months,
            "monthly_payment": payment,
            "total_interest": _money(payment * term_months - value),
            "next_due_date": loan["next_due_date"],
            "deposit_account_id": account["account_id"],
            "balance": account["balance"],
            "transaction_id": entry["transaction_id"],
        }

    def repay_loan(self, loan_id: str, amount: float, from_account_id: str) -> dict[str, Any]:
        customer = self._customer()
        loan = self.data["loans"].get(loan_id) if isinstance(loan_id, str) else None
        if loan is None or loan["customer_id"] != customer["customer_id"]:
            raise ApiError("unknown_loan", loan_id=loan_id)
        if loan["status"] != "active":
            raise ApiError("loan_closed", loan_id=loan_id)
        value = self._amount(amount)
        if value > loan["outstanding"]:
            raise ApiError("amount_exceeds_outstanding", outstanding=loan["outstanding"], requested=value)
        account = self._account(customer, from_account_id)
        self._usable(account)
        self._debitable(account, value)
        entry = self._post(account, "loan_repayment", -value, loan_id, "")
        loan["outstanding"] = _money(loan["outstanding"] - value)
        if loan["outstanding"] <= 0:
            loan["outstanding"] = 0.0
            loan["status"] = "closed"
            loan["next_due_date"] = None
        return {
            "loan_id": loan_id,
            "amount_paid": value,
            "outstanding": loan["outstanding"],
            "status": loan["status"],
            "from_account_id": account["account_id"],
            "balance": account["balance"],
            "transaction_id": entry["transaction_id"],
        }

    # ------------------------------------------------------------------ cards

    def bank_list_cards(self) -> dict[str, Any]:
        customer = self._customer()
        cards = [
            self._public_card(card)
            for card in sorted(self.data["cards"].values(), key=lambda card: card["card_id"])
            if card["customer_id"] == customer["customer_id"]
        ]
        return {"cards": cards}

    def bank_freeze_card(self, card_id: str, reason: str) -> dict[str, Any]:
        customer = self._customer()
        card = self._card(customer, card_id)
        if reason not in FREEZE_REASONS:
            raise ApiError("invalid_reason", reason=reason, allowed=list(FREEZE_REASONS))
        if card["status"] == "frozen":
            raise ApiError("card_already_frozen", card_id=card["card_id"])
        card["status"] = "frozen"
        card["freeze_reason"] = reason
        return self._public_card(card)

    def bank_unfreeze_card(self, card_id: str) -> dict[str, Any]:
        customer = self._customer()
        card = self._card(customer, card_id)
        if card["status"] != "frozen":
            raise ApiError("card_not_frozen", card_id=card["card_id"])
        if card["freeze_reason"] == "stolen":
            raise ApiError("card_reported_stolen", card_id=card["card_id"])
        card["status"] = "active"
        card["freeze_reason"] = None
        return self._public_card(card)

    # ------------------------------------------------------------------ scheduled transfers

    def _public_schedule(self, schedule_id: str, schedule: dict[str, Any]) -> dict[str, Any]:
        payee = self.data["payees"].get(schedule["payee_id"], {})
        return {
            "schedule_id": schedule_id,
            "from_account_id": schedule["from_account_id"],
            "payee_id": schedule["payee_id"],
            "payee_name": payee.get("name", schedule.get("payee_name", "")),
            "amount": schedule["amount"],
            "memo": schedule["memo"],
            "frequency": schedule["frequency"],
            "run_dates": list(schedule["run_dates"]),
            "status": schedule["status"],
        }

    def schedule_transfer(
        self,
        from_account_id: str,
        payee_id: str,
        amount: float,
        first_date: str,
        frequency: str = "once",
        occurrences: int = 1,
        memo: str = "",
    ) -> dict[str, Any]:
        customer = self._customer()
        source = self._account(customer, from_account_id)
        payee = self._payee(customer, payee_id)
        if payee.get("country"):
            raise ApiError("payee_abroad", payee_id=payee["payee_id"], country=payee["country"], currency=payee["currency"])
        value = self._amount(amount)
        self._usable(source)
        first = _parse_date(first_date, "first_date")
        today = self.now().date()
        if first <= today:
            raise ApiError("date_not_in_future", first_date=first_date, today=today.isoformat())
        if first > today + timedelta(days=MAX_SCHEDULE_DAYS):
            raise ApiError("date_too_far", first_date=first_date, latest=(today + timedelta(days=MAX_SCHEDULE_DAYS)).isoformat())
        if frequency not in FREQUENCIES:
            raise ApiError("invalid_frequency", frequency=frequency, allowed=list(FREQUENCIES))
        if isinstance(occurrences, bool) or not isinstance(occurrences, int) or not 1 <= occurrences <= 120:
            raise ApiError("invalid_occurrences", occurrences=occurrences)
        if (frequency == "once") != (occurrences == 1):
            raise ApiError("invalid_occurrences", occurrences=occurrences, frequency=frequency)
        if value > customer["daily_transfer_limit"]:
            raise ApiError("daily_limit_exceeded", daily_limit=_money(customer["daily_transfer_limit"]), requested=value)
        schedule_id = self.new_id("scheduled_transfer", "ST-")
        schedule = {
            "customer_id": customer["customer_id"],
            "from_account_id": source["account_id"],
            "payee_id": payee["payee_id"],
            "amount": value,
            "memo": memo,
            "frequency": frequency,
            "run_dates": [d.isoformat() for d in _run_dates(first, frequency, occurrences)],
            "status": "scheduled",
            "created_at": self.now().isoformat(),
        }
        self.data["scheduled_transfers"][schedule_id] = schedule
        return {**self._public_schedule(schedule_id, schedule), "total_amount": _money(value * occurrences)}

    def list_scheduled_transfers(self, include_cancelled: bool = False) -> dict[str, Any]:
        customer = self._customer()
        rows = [
            self._public_schedule(schedule_id, schedule)
            for schedule_id, schedule in sorted(self.data["scheduled_transfers"].items(), key=lambda pair: int(pair[0][3:]))
            if schedule["customer_id"] == customer["customer_id"] and (include_cancelled or schedule["status"] == "scheduled")
        ]
        return {"scheduled_transfers": rows, "count": len(rows)}

    def cancel_scheduled_transfer(self, schedule_id: str) -> dict[str, Any]:
        customer = self._customer()
        schedule = self.data["scheduled_transfers"].get(schedule_id) if isinstance(schedule_id, str) else None
        if schedule is None or schedule["customer_id"] != customer["customer_id"]:
            raise ApiError("unknown_schedule", schedule_id=schedule_id)
        if schedule["status"] == "cancelled":
            raise ApiError("schedule_already_cancelled", schedule_id=schedule_id)
        schedule["status"] = "cancelled"
        return {**self._public_schedule(schedule_id, schedule), "payments_cancelled": len(schedule["run_dates"])}

    # ------------------------------------------------------------------ bills

    def pay_bill(self, biller: str, reference: str, amount: float, from_account_id: str) -> dict[str, Any]:
        customer = self._customer()
        record = self.data["billers"].get(biller) if isinstance(biller, str) else None
        if record is None:
            raise ApiError("unknown_biller", biller=biller, billers=sorted(self.data["billers"]))
        bill = next(
            (b for b in self.data["bills"].values() if b["biller"] == biller and b["reference"] == str(reference).replace(" ", "").replace("-", "")),
            None,
        )
        if bill is None:
            raise ApiError("bill_not_found", biller=biller, reference=reference)
        source = self._account(customer, from_account_id)
        value = self._amount(amount)
        if bill["amount_due"] <= 0:
            raise ApiError("bill_already_paid", biller=biller, reference=bill["reference"])
        if value > bill["amount_due"]:
            raise ApiError("amount_exceeds_due", amount_due=bill["amount_due"], requested=value)
        self._usable(source)
        self._debitable(source, value)
        entry = self._post(source, "bill_payment", -value, record["name"], bill["reference"])
        bill["amount_due"] = _money(bill["amount_due"] - value)
        bill["payments"].append({"transaction_id": entry["transaction_id"], "amount": value, "paid_at": entry["posted_at"]})
        return {
            "transaction_id": entry["transaction_id"],
            "biller": biller,
            "biller_name": record["name"],
            "reference": bill["reference"],
            "amount": value,
            "amount_still_due": bill["amount_due"],
            "due_date": bill["due_date"],
            "from_account_id": source["account_id"],
            "balance": source["balance"],
        }

    # ------------------------------------------------------------------ payments abroad

    def get_exchange_rate(self, currency: str, amount: float = 1.0, amount_in: str = "foreign") -> dict[str, Any]:
        rate = self._rate(currency)
        if not _is_number(amount) or amount <= 0:
            raise ApiError("invalid_amount", amount=amount)
        foreign, cny = (amount, amount * rate) if amount_in == "foreign" else (amount / rate, amount)
        return {
            "currency": currency,
            "cny_per_unit": rate,
            "foreign_amount": _money(foreign),
            "cny_amount": _money(cny),
            "rate_date": self.data["exchange_rates"]["as_of"],
        }

    def add_international_payee(
        self, name: str, account_number: str, swift_code: str, bank_name: str, country: str, currency: str
    ) -> dict[str, Any]:
        customer = self._customer()
        if not isinstance(name, str) or not name.strip():
            raise ApiError("invalid_payee", field="name")
        if not isinstance(bank_name, str) or not bank_name.strip():
            raise ApiError("invalid_payee", field="bank_name")
        if country not in COUNTRY_CURRENCY:
            raise ApiError("unsupported_country", country=country, supported=sorted(COUNTRY_CURRENCY))
        if currency != COUNTRY_CURRENCY[country]:
            raise ApiError("currency_not_of_country", country=country, currency=currency, expected=COUNTRY_CURRENCY[country])
        number = account_number.replace(" ", "").upper() if isinstance(account_number, str) else ""
        if country in IBAN_COUNTRIES:
            if not (number.startswith(country) and len(number) == IBAN_COUNTRIES[country] and number[2:4].isdigit() and number.isalnum()):
                raise ApiError("invalid_payee", field="account_number", expected=f"an IBAN of {IBAN_COUNTRIES[country]} characters starting with {country}")
        elif not (number.isdigit() and 6 <= len(number) <= 20):
            raise ApiError("invalid_payee", field="account_number", expected="6 to 20 digits")
        swift = swift_code.upper() if isinstance(swift_code, str) else ""
        if len(swift) not in (8, 11) or not swift[:4].isalpha() or swift[4:6] != country or not swift.isalnum():
            raise ApiError("invalid_payee", field="swift_code", expected=f"8 or 11 characters with {country} in positions 5-6")
        for payee in self.data["payees"].values():
            if payee["customer_id"] == customer["customer_id"] and payee["account_number"] == number:
                raise ApiError("payee_already_exists", payee_id=payee["payee_id"])
        payee_id = self.new_id("payee", "P-")
        record = {
            "payee_id": payee_id,
            "customer_id": customer["customer_id"],
            "name": name.strip(),
            "account_number": number,
            "bank_name": bank_name.strip(),
            "swift_code": swift,
            "country": country,
            "currency": currency,
            "added_on": self.now().date().isoformat(),
        }
        self.data["payees"][payee_id] = record
        return self._public_payee(record)

    def send_international_transfer(
        self,
        from_account_id: str,
        payee_id: str,
        amount: float,
        purpose: str,
        amount_in: str = "foreign",
        memo: str = "",
    ) -> dict[str, Any]:
        customer = self._customer()
        source = self._account(customer, from_account_id)
        payee = self._payee(customer, payee_id)
        if not payee.get("country"):
            raise ApiError("payee_not_abroad", payee_id=payee["payee_id"])
        value = self._amount(amount)
        if purpose not in TRANSFER_PURPOSES:
            raise ApiError("invalid_purpose", purpose=purpose, allowed=list(TRANSFER_PURPOSES))
        currency = payee["currency"]
        rate = self._rate(currency)
        if amount_in == "foreign":
            foreign, cny = value, _money(value * rate)
        else:
            foreign, cny = _money(value / rate), value
        if foreign < 1:
            raise ApiError("invalid_amount", amount=amount)
        usd = _money(cny / self._rate("USD"))
        used = customer.get("fx_used_usd", 0.0)
        if used + usd > FX_ANNUAL_QUOTA_USD:
            raise ApiError("annual_fx_quota_exceeded", quota_usd=FX_ANNUAL_QUOTA_USD, used_usd=used, requested_usd=usd)
        fee = _money(min(max(cny * INTERNATIONAL_FEE_RATE, INTERNATIONAL_FEE_MIN), INTERNATIONAL_FEE_MAX) + CABLE_FEE)
        self._usable(source)
        self._debitable(source, _money(cny + fee))
        out = self._post(source, "international_transfer_out", -cny, payee["name"], memo)
        self._post(source, "fee", -fee, None, f"international transfer fee ({out['transaction_id']})")
        customer["fx_used_usd"] = _money(used + usd)
        transfer_id = self.new_id("international_transfer", "IT-")
        arrival = _business_days_later(self.now().date(), 2).isoformat()
        self.data["international_transfers"][transfer_id] = {
            "customer_id": customer["customer_id"],
            "payee_id": payee["payee_id"],
            "from_account_id": source["account_id"],
            "currency": currency,
            "foreign_amount": _money(foreign),
            "cny_amount": cny,
            "rate": rate,
            "fee": fee,
            "purpose": purpose,
            "memo": memo,
            "status": "processing",
            "sent_at": self.now().isoformat(),
            "expected_arrival": arrival,
        }
        return {
            "transfer_id": transfer_id,
            "transaction_id": out["transaction_id"],
            "payee_id": payee["payee_id"],
            "payee_name": payee["name"],
            "currency": currency,
            "foreign_amount": _money(foreign),
            "rate": rate,
            "cny_amount": cny,
            "fee": fee,
            "total_debited": _money(cny + fee),
            "from_account_id": source["account_id"],
            "balance": source["balance"],
            "fx_quota_left_usd": _money(FX_ANNUAL_QUOTA_USD - customer["fx_used_usd"]),
            "status": "processing",
            "expected_arrival": arrival,
        }
