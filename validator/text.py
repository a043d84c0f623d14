"""Language facts about text: does it contain Chinese, outside quoted names?"""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002a6df]")
# quoted spans in English text may hold Chinese proper nouns: "湖畔小厨", “西湖”, 「…」, ‘…’
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|「[^」]*」|『[^』]*』|‘[^’]*’|《[^》]*》")


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


def cjk_outside_quotes(text: str) -> bool:
    return has_cjk(_QUOTED.sub("", text))
