"""The words that say a statement restates, changes, corrects or ends another, in the languages
the rules read: English, Spanish and Chinese. Data and the patterns built from it, no logic:
memories/changes.py applies them.

The languages are merged, not chosen per text: a short fact ("El usuario es vegano") is too
short for a language detector to be sure, and no word here means one thing in one of these
languages and another thing in another. Chinese has no spaces: a run of its characters is read
character by character (words.CJK), after its filler words are dropped and its words for the user
and for "is" are read as such.
"""

from __future__ import annotations

import re

# the speaker, as statements and memories name them
SELF = frozenset("i me my mine myself user users yo mi mis mí usuario usuaria usuarios".split())
SELF_ZH = ("用户", "我")
BE = frozenset("am is are es soy eres somos está estoy".split())  # not "son" (a son)
BE_ZH = "是"
# "改吃纯素" (switched to eating vegan), "变成": is now
BECOME_ZH = re.compile("改成|改为|变成|成为|改")
# Spanish drops the pronoun: "soy vegano" is "yo soy vegano"
PRO_DROP = {"soy": "yo soy", "estoy": "yo estoy"}
# Words that say "this changed" without being part of the fact; dropped before comparing.
FILLER = frozenset(
    # English
    "actually now currently anymore instead fully really just also still so well oh ok okay "
    "a an the these days at moment by way honestly "
    # Spanish
    "ahora actualmente realmente también todavía completamente totalmente últimamente bueno "
    "pues ya".split()
)
# "更" of "更喜欢" (prefer) as well: "我更喜欢靠过道的座位" says one value in the frame of "我喜欢
# 靠窗的座位", not a restatement of it (not the 更 of 更新, 更换: update, replace)
FILLER_ZH = re.compile(
    "现在|目前|如今|其实|实际上|已经|完全|彻底|真的|最近|对了|另外|也|了|更(?=喜欢|爱|偏爱)"
    "|即将|将要|快要|就要"  # "about to": when, not what ("马克即将满41岁" / "马克满40岁")
)
NEGATION = frozenset("not no never longer nunca jamás 不 没 别".split())
# "I've gone vegan", "I became vegan", "me volví vegano": I am vegan now
BECOME = frozenset("gone become became turned went switched".split())

_STOP = r"[^,.;!?，。；！？]"  # a character of the same clause
_SENTENCE = r"[^.;!?。；！？]"  # a character of the same sentence
_WORD = r"[$€£]?\w+(?:[.,]\d+)*"  # one word or amount: "41", "$1,350", "Austin"

CHANGE_MARKER = re.compile(
    r"\b(?:actually|now|anymore|any more|no longer|instead|these days|currently|switched"
    r"|changed|became|become|gone|turned|moved|new|updated?|correction|meant|my\s+mistake|oops"
    r"|ahora|actualmente|ya\s+no|en\s+realidad|últimamente|hoy\s+en\s+día|cambi(?:é|ó|ado|o)"
    r"|pas(?:é|ó)\s+a|me\s+volví|se\s+volvió|me\s+hice|se\s+hizo|nuev[oa]s?|me\s+mudé|se\s+mudó"
    r"|sub(?:ió|ieron)|baj(?:ó|aron)|quise\s+decir|corrección|me\s+equivoqué)\b"
    r"|现在|目前|如今|其实|实际上|改成|改为|改吃|改用|换成|换了|变成|变了|不再|已经不|最近|更新"
    r"|口误|说错|打错|写错|我是说|意思是|想说的是|纠正|更正|搬到|搬去|涨了|涨到|降到|降了",
    re.IGNORECASE,
)
# "I said Boston, I meant Austin": groups ``wrong`` and ``right``
CORRECTIONS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\bi\s+(?:said|wrote|typed|told\s+you)\s+(?P<wrong>{_STOP}+?)\s*[,;.]?\s*"
        rf"(?:but\s+)?i\s+meant\s+(?P<right>{_STOP}+)",
        rf"\b(?:i|user)\s+meant\s+(?P<right>{_STOP}+?)\s*,?\s+(?:not|instead\s+of)\s+"
        rf"(?P<wrong>{_STOP}+)",
        rf"\bnot\s+(?P<wrong>{_STOP}+?)\s*,\s*but\s+(?P<right>{_STOP}+)",
        # "Oops, my mistake: Mark is turning 41, not 40": one word for another, after a word
        # that owns the mistake (without it, "I like cats, not dogs" would "correct" a dog)
        rf"\b(?:my\s+mistake|my\s+bad|oops|sorry|i\s+mean|correction|i\s+was\s+wrong)\b"
        rf"{_SENTENCE}*?(?<!\w)(?P<right>{_WORD})\s*,\s*not\s+(?P<wrong>{_WORD})",
        rf"\b(?:dije|escribí|puse)\s+(?P<wrong>{_STOP}+?)\s*[,;.]?\s*(?:pero\s+)?quise\s+decir\s+"
        rf"(?P<right>{_STOP}+)",
        rf"\bquise\s+decir\s+(?P<right>{_STOP}+?)\s*,?\s+no\s+(?P<wrong>{_STOP}+)",
        rf"\bno\s+(?P<wrong>{_STOP}+?)\s*,\s*sino\s+(?P<right>{_STOP}+)",
        rf"\b(?:me\s+equivoqué|me\s+confundí|perd(?:ón|ona)|error|corrijo)\b"
        rf"{_SENTENCE}*?(?<!\w)(?P<right>{_WORD})\s*,\s*no\s+(?P<wrong>{_WORD})",
        # 我之前说波士顿是口误，我想说的是奥斯汀
        rf"(?:说|写|打)(?:的|成)?是?(?P<wrong>{_STOP}{{1,12}}?)(?:是口误|说错了|打错了|写错了|不对)"
        rf"[，,。；]?\s*(?:我|其实)?(?:想说的是|要说的是|的意思是|应该是|是)(?P<right>{_STOP}+)",
        # 不是波士顿，是奥斯汀
        rf"不是(?P<wrong>[^,.;!?，。；！？是]{{1,12}})[，,]?\s*而?是(?P<right>{_STOP}+)",
        # 我女儿叫欣怡，不是心怡
        rf"(?P<right>[^,.;!?，。；！？是叫在说]{{1,12}})[，,]\s*(?:而)?不是(?P<wrong>{_STOP}+)",
    )
)
# "I sold my car": group ``object``
ENDINGS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"\b(?:sold|quit|stopped|left|gave\s+up|got\s+rid\s+of|broke\s+up\s+with|moved\s+out\s+of"
        r"|cancel+ed|retired\s+from|no\s+longer\s+\w+|(?:do|does|did)\s*n[o']t\s+\w+"
        rf"(?=.*\banymore\b))\s+(?P<object>{_STOP}+)",
        r"\b(?:vend(?:í|i|ió|imos|ieron)|dej(?:é|ó)|renunci(?:é|ó)\s+a|cancel(?:é|ó)"
        r"|me\s+deshice\s+de|se\s+deshizo\s+de|termin(?:é|ó)\s+con|me\s+jubilé\s+de"
        r"|se\s+jubiló\s+de|me\s+salí\s+de|se\s+salió\s+de|regal(?:é|ó)|ya\s+no\s+\w+)"
        rf"\s+(?P<object>{_STOP}+)",
        rf"(?:把|将)(?P<object>{_STOP}+?)给?(?:卖掉|卖|退掉|退|处理掉|送人|扔掉|扔|转让)了",
        rf"(?:从|在)(?P<object>{_STOP}+?)(?:辞职|离职|退休|退出|毕业)",
        rf"(?:辞掉|辞去|卖掉|卖了|戒掉|戒了|退掉|退了|离开了|取消了|退出了|不再)了?(?P<object>{_STOP}+)",
        rf"和(?P<object>{_STOP}+?)分手",
        # "I quit.", "Renuncié la semana pasada", "我上个月辞职了": what was left unnamed is the
        # job (LEFT_JOB)
        r"\b(?:quit|resigned|retired|renunci(?:é|ó)|dimit(?:í|ió))\b(?P<object>)",
        r"(?P<object>)(?:辞职|离职)",
    )
)
# An ending that names nothing else ("I quit last month", "我辞职了") ended the job, in the
# language of the verb
LEFT_JOB = (
    (re.compile(r"\b(?:quit|resigned|retired)\b", re.IGNORECASE), "job"),
    (re.compile(r"\b(?:renunci(?:é|ó)|dimit(?:í|ió)|me\s+jubilé|se\s+jubiló)\b", re.I), "trabajo"),
    (re.compile("辞职|离职|退休"), "工作"),
)
# The user moved ("we moved to Seattle", "El usuario se mudó a Sevilla", "我们上个月搬到西雅图"):
# it ends where the user lived (RESIDENCE). Not a relative's move ("my sister moved to …", "mi
# hermana se mudó …", "我妹妹搬到 …"): the user is the subject, with only when between.
MOVED = re.compile(
    r"\b(?:i|we|user)(?:'ve|\s+have|\s+has)?\s+(?:just\s+|recently\s+|finally\s+|also\s+)?"
    r"(?:moved|relocated)\s+(?:back\s+)?(?:to|into)\b"
    r"|\b(?:me\s+mud(?:é|o)|nos\s+mud(?:amos|aremos)|me\s+he\s+mudado|nos\s+hemos\s+mudado"
    r"|(?:el\s+usuari[oa]|la\s+usuaria)\s+(?:\w+\s+){0,2}?se\s+(?:mudó|ha\s+mudado))\s+(?:a|para)\b"
    r"|(?:我们?|用户)(?:\d+[年月日号]|[\d一两二三四五六七八九十几]*个?(?:星期|[天周月年])(?:以?前)?"
    r"|[上下这去今前]个?[月周年天]|刚刚?|已经|最近|终于|也|都|一家人?|全家)*"
    r"(?:搬到|搬去|搬家到|迁到|移居)",
    re.IGNORECASE,
)
# Where the user lives: "I've lived in Denver", "User lives in Boston", "El usuario vive en …",
# "Vivo en …", "用户住在…", "我在丹佛住了五年" (not "User's brother lives in …")
RESIDENCE = re.compile(
    r"\b(?:i|we|user)(?:'ve|'m|\s+have|\s+has|\s+am|\s+are|\s+is)?\s+(?:\w+\s+){0,2}?"
    r"(?:live|lives|lived|living|reside|resides|resided|based)\s+in\b"
    r"|(?:^|[¡¿.,;:!?]\s*|\b(?:el\s+usuari[oa]|la\s+usuaria|yo|nosotr[oa]s)\s+(?:\w+\s+){0,2}?)"
    r"(?:vivo|vivimos|vive|viven|resido|reside)\s+en\b"
    r"|(?:我们?|用户)(?:一直|现在|目前|已经)?(?:住在|居住在|定居在|在[^，。；！？,.;!?的]{1,10}?住)",
    re.IGNORECASE,
)
# "switched careers", "became a baker", "no longer …", "me hice panadero", "转行当了面包师":
# one thing replaced another, whatever it was (not "now" or "new": "User got a new puppy"
# replaces nothing)
SWITCH = re.compile(
    r"\b(?:switched|changed|became|become|no\s+longer|gave\s+up|quit|swapped|replaced"
    r"|cambi(?:é|ó)|me\s+volví|se\s+volvió|me\s+hice|se\s+hizo|ya\s+no|dej(?:é|ó)"
    r"|renunci(?:é|ó)|reemplac(?:é|ó)|pas(?:é|ó)\s+a)\b"
    r"|改行|转行|换了|换成|改成|变成|不再|辞职|改吃|当上了|成为"
    r"|\b(?:moved|relocated|me\s+mudé|nos\s+mudamos|se\s+mudó)\b|搬到|搬去|搬家",
    re.IGNORECASE,
)
# when something ended, after what ended or alone: "my car last week", "mi carro la semana
# pasada", "last month" (of "I quit last month")
_WHEN = (
    r"(?:last|this|next)\s+\w+|yesterday|today|\w+\s+ago|on\s+\S+|in\s+\d[\d-]*"
    r"|in\s+[a-z]+\s+\d{4}|the\s+week(?:end)?\s+(?:before|of)\s+\S+"
    r"|(?:la|el)\s+(?:semana|mes|año)\s+pasad[oa]|ayer|hoy|hace\s+\w+(?:\s+\w+)?"
    r"|en\s+\d{4}|en\s+[a-z]+\s+de\s+\d{4}"
)
# what an ending names stops where a new clause starts: "my job last month and now I teach …"
# (not "my car and my bike")
OBJECT_END = re.compile(
    r"\s+(?:(?:and|but)\s+(?=(?:now|then|i|i'm|we|user|he|she|they)\b)|(?:y|pero)\s+(?=(?:ahora"
    r"|luego|ya|yo|el\s+usuari[oa]|soy|es|estoy|está|trabajo|trabaja)\b)).*$"
    r"|[，,]?(?:现在|而且|并且|但是).*$",
    re.IGNORECASE,
)
WHEN_SUFFIX = re.compile(rf"(\s+({_WHEN}))+\s*$|^\s*({_WHEN})\s*$", re.IGNORECASE)
WHEN = frozenset("last this next week month year yesterday today ago day".split())
# what an ending names, without its determiner: "my car" → "car", "mi carro" → "carro"
DETERMINER = re.compile(
    r"^(?:(?:my|our|their|his|her|the|a|an|this|that|mi|mis|su|sus|el|la|los|las|un|una"
    r"|este|esta|ese|esa)\s+)+|^(?:我的|他的|她的|用户的|我们的)",
    re.IGNORECASE,
)
# "my budget" / "the budget", "trip to Hawaii" / "Hawaii trip", "我的预算" / "预算": not a
# different slot
FRAME_NOISE = frozenset(
    "self be to for of in on with and also too de del para con 的 在 把 给".split()
)
# a statement of several clauses: "…, and my budget is now $12,000", "…，另外预算现在是…"
CLAUSE = re.compile(
    r"[.;!?]\s+|,\s*(?:and|but|y|pero)\s+|\s+and\s+(?=(?:my|the|i|i'm|user)\b)"
    r"|[。；！？]\s*|[，,]\s*(?:另外|而且|还有|并且|同时|但是|不过)",
    re.IGNORECASE,
)
# The people of a user's life: "User's brother lives in Denver" is not "User lives in Denver"
# restated, and a brother's gym is not the user's (memories/cascades.py)
PEOPLE = re.compile(
    r"\b(?:brothers?|sisters?|mother|father|mom|mum|dad|parents?|sons?|daughters?|wife|husband"
    r"|partner|friends?|cousins?|aunts?|uncles?|grand\w+|nieces?|nephews?|boyfriend|girlfriend"
    r"|children|kids?|herman[oa]s?|madre|padre|mamá|papá|padres|hij[oa]s?|espos[oa]|marido|mujer"
    r"|pareja|amig[oa]s?|prim[oa]s?|tí[oa]s?|abuel[oa]s?|novi[oa])\b"
    r"|哥哥|姐姐|弟弟|妹妹|父亲|母亲|爸爸|妈妈|父母|儿子|女儿|孩子|妻子|老婆|丈夫|老公|朋友"
    r"|表[哥姐弟妹]|堂[哥姐弟妹]|阿姨|叔叔|爷爷|奶奶|外公|外婆",
    re.IGNORECASE,
)
# The user's work: "User works as a nurse at a hospital", "I teach at a primary school",
# "用户在一家医院当护士", "El usuario trabaja de enfermera" (not a relative's: "User's sister
# works as …", "用户的妹妹在医院当护士")
_JOBS_ES = (
    r"(?:maestr|profesor|enfermer|médic|ingenier|abogad|cociner|panader|carpinter|diseñador"
    r"|programador)\w*"
)
JOB = re.compile(
    r"\b(?:i|user)(?:'m|\s+am|\s+is)?\s+(?:now\s+|currently\s+)?"
    r"(?:works?\s+(?:as|at|for)|teach(?:es)?\s+(?:at|in)|(?:is\s+)?employed\s+(?:at|by))\b"
    rf"|(?:\bel\s+usuari[oa]|\bla\s+usuaria|^|[.!¡,]\s*|\by\s+)\s*(?:ahora\s+|actualmente\s+)?"
    rf"(?:trabaj[ao]\s+(?:de|como|en|para)|(?:es|soy)\s+{_JOBS_ES}|da\s+clases|doy\s+clases)"
    r"|(?:我|用户)(?:现在|目前|已经|一直)?(?:在[^，。；！的,.;!]{1,12}?)?(?:当|做|担任|任职|工作)",
    re.IGNORECASE,
)
# A second job beside the first, not one for the other: "also", "on weekends", "兼职"
BESIDE = re.compile(
    r"\b(?:also|too|as\s+well|second\s+job|side\s+job|part-time|on\s+weekends|además|también"
    r"|los\s+fines\s+de\s+semana|a\s+tiempo\s+parcial)\b|也|还|兼职|周末",
    re.IGNORECASE,
)
# Where and when the user was born: a fact of the past that changes nothing said of the present
# ("I was born in Austin, actually" does not replace "User lives in Austin")
BORN = re.compile(r"\bborn\b|\bnac(?:í|ió|ido|ida)\b|出生|出身", re.IGNORECASE)
