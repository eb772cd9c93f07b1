"""Whose a fact is: one the model gave to someone or something else is given back to the user,
and one that gives a relative a name the user gave to something else is refused. Pure; whose a
value is read in every language whose file says it (lang/: Attribution), the rest in Chinese
(lang/zh.py).

The 1.5B model, in Chinese above all, writes a value the user gave no one as a relative's
(``given_back``), what the user said of themselves as a possession's (``own_clause``), the user's
"我" as they said it (``in_third_person``), and a name the user gave to a pet as a relative's
(``misnamed``: grounding.py refuses such a fact as ``misattributed``). Each is told from the
user's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_extproc.lang import FILED, either, zh
from memory_extproc.memories.change_words import CLAUSE
from memory_extproc.memories.changes import Change, compare, says_change
from memory_extproc.words import numbers, terms

_PARTS = tuple(language.attribution for language in FILED)
# Whose a value is, at the head of a fact: a relative's or a named person's ("User's sister
# Anna's budget …", "用户的妹妹安娜的预算…", "El presupuesto de su hermana Ana …"), not one
# further in ("… at Trader Joe's", "用户给妹妹安娜的礼物预算"); each language's head alone (its
# groups are its own), with what makes it the user's
_HOLDERS = tuple((re.compile(p.holder), p.user_head) for p in _PARTS if p.holder)
# …and a clause that points back at someone or something ("and her budget is $3,000", "It
# cost $450,000")
_POINTED = re.compile(either([p.pointing for p in _PARTS]), re.I)


def given_back(fact: str, said: str, known: Sequence[str]) -> str | None:
    """The fact with a value it gave someone else given back to the user, where the user gave
    it to no one and already holds that thing (None: it stays as written). "My sister Anna is
    coming too, and the budget for the trip is now $12,000", with the user's budget known: the
    1.5B model wrote "用户的妹妹安娜的旅行预算现在是12000美元" for its Chinese, in every run, and
    the sister's budget took the place of the user's; now "用户的旅行预算现在是12000美元".

    Every number the fact shares with the user's words is in a clause that says a value changed
    ("now", "现在", "ahora") and names no one of the holder's nor points at anyone ("and her
    budget is now $3,000", "It now costs $450,000" stay as they are); the holder is named in
    another clause; and the value given back changes a known fact of the user's, as the truth
    rules read it (``changes.compare``). "My daughter Emma started school. Tuition is $15,000."
    leaves Emma's tuition hers."""
    held = numbers(fact) & numbers(said)
    found = next(((m, u) for p, u in _HOLDERS if (m := p.match(fact))), None)
    if not held or found is None:
        return None
    head, user = found
    who = terms(head["who"])
    clauses = CLAUSE.split(said)
    near = [c for c in clauses if numbers(c) & held]
    elsewhere = set().union(*(terms(c) for c in clauses if not numbers(c) & held))
    if not who & elsewhere or any(
        who & terms(c) or _POINTED.search(c) or not says_change(c) for c in near
    ):
        return None
    mended = head.expand(user) + fact[head.end() :]
    if not any(compare(mended, k) in (Change.CHANGED, Change.CORRECTED) for k in known):
        return None
    return mended


I_ZH = re.compile(zh.ME)  # "我" in a Chinese fact about the user


def in_third_person(fact: str) -> str:
    """A Chinese fact about the user with the user's "我" made "用户": the 1.5B model copies it
    from the user's words ("用户的妹妹安娜也跟我一起去夏威夷旅行"), and injected into a prompt, "me"
    reads as whoever wrote the context. English facts come in the third person already."""
    return I_ZH.sub("用户", fact) if "用户" in fact else fact


_SENTENCE_ZH = re.compile(zh.SENTENCE_END)
_KIN_OF_USER_ZH = re.compile(zh.KIN_OF_USER)
_NAMED_ZH = re.compile(zh.LANGUAGE.named)  # a name, as Chinese tells one ("叫小白")


def misnamed(fact: str, said: str) -> bool:
    """A Chinese fact naming a relative by a name the user gave to something else: "我家有一只
    猫，叫小白。我女儿今年五岁了。" was learned as "用户的女儿叫小白" (and no cat) through
    `make run`. Every sentence of the user's that says the name names none of the fact's
    relatives and points at no one ("我有个女儿。她叫小白。" is hers)."""
    kin = set(_KIN_OF_USER_ZH.findall(fact))
    if not kin:
        return False
    for name in _NAMED_ZH.findall(fact):
        where = [s for s in _SENTENCE_ZH.split(said) if name in s]
        if where and not any(k in s or _POINTED.search(s) for s in where for k in kin):
            return True
    return False


_I_SAID_ZH = re.compile(zh.SAID_OF_SELF)
_CLAUSE_ZH = re.compile(zh.CLAUSE_END)
_REPORTED_ZH = re.compile(zh.REPORTED)


def own_clause(fact: str, said: str) -> str | None:
    """A Chinese fact that gives what the user said of themselves to something of theirs named
    in another clause, as the user's (None: it stays as written): for "我的车是一辆红色的特斯拉，
    我每天早上六点去游泳。", "用户的车每天早上六点去游泳" is "用户每天早上六点去游泳". All that
    follows the possession is what follows "我" in one clause, and the possession (a thing, a
    person: "我的车", not "我的医生建议") is said in other clauses only."""
    if not fact.startswith(zh.POSSESSION):
        return None
    clauses = _CLAUSE_ZH.split(said)
    act = fact.rstrip("。.")
    for match in _I_SAID_ZH.finditer(said):
        rest = match["rest"]
        at = act.find(rest[:4], len(zh.POSSESSION) + 1)
        if at < 0 or act[at:] not in rest:
            continue
        possession = act[len(zh.POSSESSION) : at]
        named = [c for c in clauses if f"我的{possession}" in c or f"我{possession}" in c]
        if named and not _REPORTED_ZH.search(possession) and not any(act[at:] in c for c in named):
            return "用户" + act[at:]
    return None
