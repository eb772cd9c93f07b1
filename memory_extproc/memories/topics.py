"""What a memory is about, where its reader cannot tell: a job, a move. Pure.

multilingual-e5-small scores a question about a kind of thing far from a memory that names only
one of its kind: "我是做什么工作的？" / "用户是一名软件工程师" 0.42 and "¿En qué trabajo?" / "El
usuario es ingeniero de software" 0.32, under the 0.45 threshold, where MiniLM puts "What do I do
for a living?" / "User is a software engineer" at 0.82. Such a memory is stored leaning toward the
word for its kind (memories/writer.py), as a preference leans toward the requests it bears on:
0.42 → 0.52 and 0.32 → 0.57, while questions about other things stay under the threshold (in
Chinese they move by less than 0.05, in Spanish by up to 0.13: eval/RESULTS.md). Where the user
lives (but a move), allergies, pets and family pass as they are. English too: MiniLM reads most
jobs near "work", but not every one ("User works as a baker" / "What do I do for a living?"
0.448 → 0.569 keyed).

A move is where the user lives, and its reader misses that once the move says why ("User moved
to Porto for a new job as a nurse" / "Where do I live now?" 0.31), or in e5 at all ("用户上个月
搬家到了成都" / "我现在住在哪里？" 0.33). It leans toward the words for where one lives: 0.31 →
0.56 and 0.33 → 0.49; a plain English move ("User relocated to Berlin", 0.56) already passed.
"""

from __future__ import annotations

import re

from memory_extproc.memories.preferences import KIN_ZH

# the user (not "用户的妹妹", "我妈妈"), then, within the sentence, a job, a workplace or its end
_WORK_ZH = re.compile(
    rf"""(?x)(?:用户|我)(?![的们]|{KIN_ZH})[^。；！？他她]{{0,20}}?
    (?:工作|上班|职业|辞职|离职|退休|失业|入职|跳槽
      |(?:是|做|当|担任)(?:一名|一位|一个|个)?[^，,。；]{{0,8}}?
       (?:师|(?<![会成队学])员|医生|护士|司机|作家|画家|歌手|经理|主管|总监|老板|警察|记者|编辑|销售|工人|农民))"""
)
_JOBS_ES = (
    r"ingenier|médic|enfermer|profesor|maestr|abogad|programador|diseñador|contador|contable"
    r"|cociner|periodista|arquitect|carpinter|panader|camarer|conductor|gerente|director"
    r"|vendedor|policía|agricultor|técnic|analista|consultor"
)
# "El usuario …" (not "… del usuario") or the user's own verb ("trabajo de", "soy enfermera")
_WORK_ES = re.compile(
    rf"""(?ix)(?<!del\s)\busuario\b[^,.;!?]{{0,40}}?\b(?:
      trabaj|emplead|desemplead|profesión|oficio|jubil|renunci|dimiti|despedid
      |dejó\s+su\s+(?:trabajo|empleo|puesto)|es\s+(?:una?\s+)?(?:{_JOBS_ES}))
    |\b(?:trabajo\s+(?:de|como|en|para)|soy\s+(?:una?\s+)?(?:{_JOBS_ES})|me\s+jubilé|renuncié
      |dejé\s+mi\s+(?:trabajo|empleo|puesto)|me\s+despidieron)"""
)
# English: the user's job by its verbs and nouns ("User works as a baker", "User's new job",
# "User quit their job"), not work on a thing ("User is working on a painting") nor someone
# else's ("User's sister works as a nurse")
_WORK_EN = re.compile(
    r"""(?ix)\buser(?:
      ['’]s\s+(?:new\s+|current\s+|old\s+|former\s+|first\s+)?
        (?:job|career|profession|occupation|employer|workplace)\b
      |\s+(?:\w+\s+){0,3}?(?:
        (?:works|worked|working)\b(?!\s+(?:on|out|through|with|towards?|hard\s+on)\b)
        |employed|retired|resigned|(?:quit|lost|left)\s+(?:\w+\s+)?job
        |(?:got|started|found|landed)\s+(?:a\s+|the\s+)?(?:new\s+)?job
        |(?:switched|changed)\s+careers?)\b
      |\s+(?:\w+\s+){1,5}?for\s+(?:a|the|their)\s+(?:new\s+)?job\b)"""
)
# the user moving house or town, or planning to: not someone else's move ("用户帮妹妹搬家",
# "User thinks their friend moved"), a thing moved ("用户把沙发搬到了客厅"), a move to a team,
# a role or a diet, "moved on", nor a move not made ("用户不想搬家")
_MOVE_ZH = re.compile(
    rf"""(?x)(?:用户|我(?:们(?=[上下这去今前]?个?[月周年天]|刚|已经|最近|终于|一家|全家))?)
    (?![的们]|{KIN_ZH}|公司)[^。；！？他她把帮说不没对想，,]{{0,20}}?
    (?:搬到|搬去|搬进|搬家|搬回|搬离|移居|迁居|定居|移民|安家)"""
)
_NOT_A_HOME_ES = r"(?!\s+a(?:l|\s+la|\s+otr[oa])?\s+(?:equipo|departamento|puesto|área|sección))"
_MOVE_ES = re.compile(
    rf"""(?ix)(?<!del\s)(?<!de\sla\s)\busuari[oa]\b(?:\s+y\s+su\s+\w+)?
      (?:\s+(?:ya|también|recientemente|finalmente|quiere|va\s+a|piensa|planea|está))?
      \s+(?:se\s+(?:ha\s+|han\s+|va\s+a\s+|van\s+a\s+|está\s+)?)?
      (?:mud(?:ó|aron|ado|ará|arán|a|an|ando|arse)|traslad(?:ó|aron|ado|ará|arse)|emigró
        |(?:fue|fueron|ido)\s+a\s+vivir){_NOT_A_HOME_ES}\b
    |\bme\s+(?:mudé|he\s+mudado|acabo\s+de\s+mudar|voy\s+a\s+mudar|mudo|trasladé
      |fui\s+a\s+vivir){_NOT_A_HOME_ES}\b"""
)
_MOVE_EN = re.compile(
    r"""(?ix)\b(?:user|i|we)(?:'ve|'re|'ll)?\s+(?:(?:has|had|have|just|recently|finally|also|then|eventually|already|is
      |was|will|plans\s+to|is\s+planning\s+to|wants\s+to|is\s+going\s+to|hopes\s+to)\s+){0,2}
    (?:moved|moving|move|relocated|relocating|relocate|emigrated|emigrating|immigrated)
    (?:\s+back)?\s+(?:
      (?:to|into)\b(?!\s+tears)(?!\s+(?:\w+\s+){0,2}?(?:team|department|division|role|position
        |diet|version|stage|phase|level|management)\b)
      |in\b|from\b|abroad|away|out\s+of|across|house|home|cities|countries|states|here|there)"""
)
_RULES = (
    (_WORK_ZH, "工作"),
    (_WORK_ES, "trabajo"),
    (_WORK_EN, "work"),
    (_MOVE_ZH, "居住地"),
    (_MOVE_ES, "vive en"),
    (_MOVE_EN, "where the user lives"),
)


def topic_words(text: str) -> tuple[str, ...]:
    """The words for what ``text`` is about, in its language, where its reader needs them
    ("用户是一名软件工程师" → "工作", "User moved to Porto for a new job" → "where the user
    lives"); none otherwise. A move for a job is about both."""
    return tuple(word for rule, word in _RULES if rule.search(text))
