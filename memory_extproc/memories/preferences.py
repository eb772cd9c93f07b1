"""Is a memory a standing preference or constraint of its user? Pure; English, Chinese, Spanish.

"User is vegetarian", "User avoids activities involving heights", "User refuses to listen to
mainstream pop" are not the answer to one question: they shape every later request they bear on
("Suggest something for dinner", "Plan a day in Colorado"), which never names them. Such memories
are kept as ``preference`` memories, and an open request is given them (retrieval/service.py)
where ordinary memories must match the request itself.

Read from the memory's words, in every mode (a model's fact, a note of what the user said, an API
add), sentence by sentence: one whose subject is the user ("User …", "I …", "my favourite …")
and that says what they like, dislike, avoid, cannot have, fear, only or never do, keep as a
diet, or choose over something else; a condition that limits what they eat ("I'm diabetic"), a
doctor's order, a habit given up ("I quit drinking") — and not just today ("I won't go to the gym
today").
Someone else's ("User's sister loves jazz", "User's landlord refuses to fix the heating") is not
the user's preference.

Chinese and Spanish the same way ("用户是素食者", "用户对坚果过敏", "El usuario evita los
lugares altos", "No como carne roja"): without them every preference of a user writing Chinese
was stored as an ordinary memory, and open requests were given none (PrefEval's explicit items
in Chinese, eval/RESULTS.md). As in memories/change_words.py, the languages are merged, not
chosen per text: a short fact is too short for a language detector to be sure.
"""

from __future__ import annotations

import re

from memory_extproc.store.model import MemoryType

_VERBS = (
    "like|love|enjoy|adore|dislike|hate|detest|loathe|despise|avoid|prefer|fear|refuse"
    "|prioriti[sz]e|oppose|value|care\\s+(?:deeply\\s+|a\\s+lot\\s+|most\\s+)?about"
)
# A taste for what the assistant just offered is no standing preference: "I especially like the
# escape room suggestion", "I love the mural idea!" (PrefEval's persona talks say dozens); but
# what someone of the user's gave is theirs ("I love the advice my grandma gave me")
_OFFERED = (
    r"(?:the|these|those|your)\s+(?:[\w\"'-]+\s+(?:and\s+)?){0,4}?"
    r"(?:ideas?|suggestions?|concepts?|tips?|advice|recommendations?)\b"
    r"(?!\s+(?:(?:from|of|by)\s+)?(?:my|our|their|his|her)\b)"
)
_STANDING = re.compile(
    rf"""(?ix)
    \b(?:(?:likes|loves|enjoys|adores|dislikes|hates|detests|loathes|despises|avoids|prefers|fears
         |refuses|prioriti[sz]es|opposes|cares\s+(?:deeply\s+|a\s+lot\s+|most\s+)?about)
         (?!\s+{_OFFERED})
      |user\s+(?:\w+ly\s+)?values  # not the noun: "inspired by her words and values"
      |(?:i|we|and|to)\s+(?:(?:\w+ly|really|also|just|do|much|try\s+to|tend\s+to|always)\s+)*
         (?:{_VERBS})
         (?!\s+(?:that|this|it|your|to\s+(?:know|ask|think|say|hear|bother|admit)|{_OFFERED}))
      |prefer(?:red|ence|ences)|favou?rites?|fond\s+of|aversion|avoiding|refusing|unwilling
      |(?:dislike|hatred|distaste|disdain)\s+(?:for|of)|stance\s+against|not\s+into
      |(?:un|not\s+)comfortable\s+(?:with|in|around|at|when|\w+ing)|sensitive\s+to
      |fan\s+of|passionate\s+about|fascinated\s+(?:by|with)|obsessed\s+with|keen\s+on
      |crazy\s+about|(?:is|am|are|'m|'re)\s+(?:really\s+|very\s+|totally\s+|so\s+|big\s+)?into
         (?!\s+(?:\w+\s+)?(?:weeks?|days?|months?|years?)\b)
      |(?:top|first|number\s+one|main|biggest|highest)\s+priorit(?:y|ies)
      |(?:doesn't|don't|does\s+not|do\s+not|never)\s+trust|distrusts?|wary\s+of
      |s[ck]eptical\s+(?:of|about)
      |gets?\s+(?:very\s+|really\s+|easily\s+)?(?:anxious|nervous|uncomfortable|overwhelmed
         |claustrophobic|stressed)|claustrophob\w*
      |(?:motion|sea|car|air|travel)[\s-]?sick\w*|prone\s+to|suffers?\s+from
      |(?:uses?|in)\s+a\s+wheelchair|wheelchair\s+user|(?:limited|reduced)\s+mobility
      |can(?:no|'|\s+no)?t\s+afford|(?:tight|limited|strict|modest|small|shoestring)\s+budget
      |on\s+a\s+budget
      |(?:is|am|'m|are|'re)\s+(?:a\s+)?(?:type\s+[12]\s+)?(?:diabetic|co?eliac|sober)
      |(?:has|have)\s+(?:type\s+[12]\s+)?(?:diabetes|co?eliac\s+disease)
      |quit\s+(?:drinking|smoking|alcohol|sugar|caffeine|coffee|meat|dairy)
      |cut(?:ting)?\s+(?:back|down)\s+on
      |not\s+a\s+(?:morning|night|people|beach|city|outdoors|outdoorsy)\s+person|night\s+owl
      |early\s+(?:bird|riser)|(?:committed|devoted|opposed|averse)\s+to
      |against\s+(?:using|eating|buying|watching|wearing)|low\s+tolerance\s+for
      |(?:learns?|works?|thrives?)\s+best|thrives?\s+in|only\s+interested\s+in
      |(?:doesn't|don't|does\s+not|do\s+not)\s+interest\s+me
      |finds?\s+[\w\s-]{{0,40}}\b(?:unsettling|distressing|boring|uncomfortable|off-putting
         |overwhelming|unappealing|ineffective|difficult|hard|distracting|disorienting|unengaging
         |stressful|annoying)
      |steers?\s+clear|stays?\s+away
      |can(?:no|'|\s+no)?t\s+(?:stand|bear|tolerate|eat|drink|have|handle|digest|consume)
      |can(?:no|'|\s+no)?t\s+(?:(?:fly|drive|walk\s+far)(?!\s+(?:you|him|her|them|us)\b)
         |(?:use|take|climb)\s+(?:the\s+)?(?:public\s+transport|stairs|subway|metro|bus|planes?))
      |(?:doesn't|does\s+not|don't|do\s+not|won't|will\s+not|never)\s+(?:like|enjoy|eat|drink|wear
         |use|buy|watch|read|listen\s+to|fly|drive|travel|stay|consume|want)
      |not\s+(?:a\s+)?fan|(?:has|have)\s+no\s+interest|not\s+interested
      |(?:only|strictly|exclusively)\s+(?:eats?|drinks?|wears?|buys?|uses?|reads?|watch(?:es)?
         |listens?|stays?|travels?|avoids?|consumes?|follows?|enjoys?|purchases?)
      |allerg\w*|intoleran\w*|vegetarian|vegan|pescatarian|plant-based|gluten-free|dairy-free
      |lactose-free|halal|kosher|teetotal\w*
      |(?:follows?|keeps?|sticks?\s+to|adheres?\s+to)\s+(?:an?\s+)?[\w\s,-]{{0,40}}\bdiet
      |on\s+an?\s+[\w\s,-]{{0,40}}\bdiet
      |afraid\s+of|fear\s+of|phobi\w*|scared\s+of|terrified\s+of
      |(?:chose|chooses|picked|picks|opted\s+for|opts\s+for)\b[^.;]{{0,80}}\b
         (?:over|instead\s+of|rather\s+than)
    )\b
    """
)
# The user as the subject of the clause, before what it says: "User …", "I …", "we …", or the
# user's favourite/preferred thing; not "User's sister …" or "my landlord …".
_SUBJECT = re.compile(
    r"(?i)\b(?:user(?!['\u2019]s)|i|i'm|i've|i'd|i'll|we|we're|we've)\b"
    r"|\b(?:told|advised|warned|ordered)\s+(?:me|user|the\s+user)\s+(?=to\s+avoid\b)"
    r"|\b(?:user's|my|our)\s+(?:favou?rite|preferred|usual|go-to"
    r"|(?:top|first|number\s+one|main|biggest|highest)\s+priorit"
    # the user's own fear or aversion as the subject: "User's fear of falling makes them prefer
    # activities that keep them grounded" (a PrefEval persona's, learned, never given)
    r"|(?:\w+\s+)?(?:fear|phobia|aversion|allerg(?:y|ies)|intolerance|dislike|distaste)"
    r"\s+(?:of|to|for)\b)"
)
# Chinese: cannot eat or drink ("不能吃辣", "无法饮酒", "吃不了辣"); not "能不能吃" (a question),
# "不是不能" (it is not that …), how much ("不能吃太多", "吃不完") or an idiom ("吃亏", "吃苦")
_CANNOT_ZH = r"(?<!不是)(?:(?<!能)不(?:太|怎么)?能再?|(?<!可)不可以|无法|没法|不宜|不适合)"
_INTAKE_ZH = (
    r"吃(?!太多|多|完|饱|亏|苦|惊|力|醋|透|什么|哪)|喝(?!太多|多|完|什么|哪)|食用|饮|进食|沾"
)
_CANNOT_INTAKE_ZH = r"(?:吃|喝|沾)不(?:了|得)(?!这么|那么|太多|多少)"
# someone does not let the user ("医生不让我吃辣"), and conditions that limit what one eats
_FORBIDDEN_ZH = r"不(?:让|许|准)(?:我|用户)"
_DIET_CONDITION_ZH = r"糖尿病|乳糜泻|痛风"
# whose the statement is: "我妈妈不能吃辣" is the user's mother's
KIN_ZH = (
    r"妈|爸|母亲|父亲|女儿|儿子|孩子|老婆|老公|妻子|丈夫|太太|先生|朋友|妹|姐|哥|弟|家人|同事"
    r"|男朋友|女朋友|室友|奶奶|爷爷|外婆|外公|父母"
)
# Spanish: cannot eat, drink or stand ("no puedo comer gluten"), not how much ("no puedo comer
# más") nor "tomar" a decision, a holiday or a train
_CANNOT_ES = (
    r"(?:comer|beber|ingerir|consumir|soportar|tolerar|digerir"
    r"|tomar(?!\s+(?:vacaciones|decisiones|una\s+decisión|el\s+(?:tren|autobús|avión|metro))))"
    r"\w*(?!\s+(?:más|tanto|nada)\b)"
)
# Chinese: the user, not someone of theirs ("用户的妹妹喜欢爵士乐"), then what they like,
# dislike, avoid, fear, find boring, cannot have or keep as a diet, within the sentence (a
# clause after a comma keeps its subject: "我深怕高处，强烈避免…"); the taste said in English
# words, as bilingual users do ("我很 dislike 这种音乐", "…都有强烈的 dislike")
_STANDING_ZH = re.compile(
    rf"""(?x)(?:用户|我们?)(?![的们]|{KIN_ZH})[^。；！？他她]{{0,24}}?
    (?:喜欢|喜爱|热爱|爱吃|爱喝|偏爱|偏好|钟爱|讨厌|厌恶|反感|抵触|受不了|无法忍受|忍受不了
      |避免|避开|回避|远离|拒绝|反对|(?<![恐哪])怕|恐惧|畏惧|过敏|不耐受|素食|吃素|纯素|蛋奶素
      |清真|犹太(?:洁食|教?饮食|食品)|不吃|不喝|不碰|忌口|从不|绝不
      |{_CANNOT_ZH}(?:{_INTAKE_ZH}|忍受|耐受|碰(?![到面头见上]))|{_CANNOT_INTAKE_ZH}
      |只(?:吃|喝|穿|用|使用|买|看|听|住|读|开|坐|去|选)
      |不感兴趣|没(?:有|什么)?兴趣|敏感|无麸质|无乳糖|尽量(?:减少|避免|不|少)
      |(?:遵守|遵循|坚持|奉行)[^，,。；！？]{{0,10}}饮食
      |(?:觉得|发现|认为)[^，,。；！？]{{0,20}}(?:无聊|乏味|没意思|难受|不舒服|困惑|烦)
      |(?:选择|选)了?[^，,。；！？]{{1,40}}(?:而不是|而非)
      |粉丝|迷恋|着迷|痴迷|热衷|充满热情|看重|注重|重视|在意|在乎|不信任|晕车|晕船|晕机
      |(?:坐|使用|靠)轮椅|预算(?:有限|紧张|不多)|夜猫子|不是(?:早起|起得早)|(?:会|容易)(?:紧张|焦虑)
      |(?:有|得了|患有)(?:{_DIET_CONDITION_ZH})|戒(?:酒|烟|糖|咖啡)|控(?:糖|盐)
      |{_CANNOT_ZH}(?:(?:使用|用|坐|乘坐|搭乘?)(?:公共交通|公交|地铁|飞机|电梯)|开车|爬楼梯|走远路)
      |(?<![A-Za-z])(?i:dislike|hate|prefer|avoid|love|like|enjoy)(?![a-z]))
    (?!这个?(?:主意|想法|建议|回答)|你的)
    |(?:用户|我们?)的?最(?:喜欢|爱)的|(?:用户|我们?)的(?:首要|第一)(?:考虑|要求|原则)
    |{_FORBIDDEN_ZH}(?:{_INTAKE_ZH}|碰|沾)"""
)
# Spanish drops the pronoun: the user's own verb form ("prefiero", "no como", "me encanta",
# "soy alérgico"), or "(el/al) usuario" before a third person's, not "… del usuario"
_STANDING_ES = re.compile(
    rf"""(?ix)\b(?:
      me\s+(?:gusta|gustan|encanta|encantan|fascina|horroriza|apasiona|apasionan|mareo)
      |no\s+me\s+(?:gusta|gustan|interesa)|soy\s+(?:una?\s+)?(?:gran\s+|muy\s+)?(?:fan|aficionad)
      |valoro|no\s+confío|mi\s+(?:máxima\s+|principal\s+|primera\s+)?prioridad
      |(?:uso|en)\s+silla\s+de\s+ruedas|presupuesto\s+(?:ajustado|limitado|reducido)
      |no\s+soy\s+(?:una\s+persona\s+)?madrugador|me\s+pongo\s+nervios
      |no\s+puedo\s+con\s+(?:el|la|los|las)\b|no\s+me\s+dejan?\s+{_CANNOT_ES}
      |no\s+puedo\s+(?:conducir|volar|subir\s+escaleras
        |(?:usar|tomar|coger)\s+(?:el\s+)?(?:transporte\s+público|metro|autobús|avión))
      |soy\s+(?:diabétic|abstemi)|tengo\s+diabetes|dejé\s+de\s+(?:beber|fumar|comer|tomar)
      |no\s+tomo\s+(?:alcohol|café|cafeína|lácteos|leche|azúcar|vino|cerveza|refrescos|carne)
      |prefiero|odio|detesto|evito|temo|rechazo|soy\s+(?:vegetarian|vegan|alérgic|celíac|intolerante)
      |no\s+(?:como|bebo|soporto|tolero|uso|consumo)|solo\s+(?:como|bebo|uso|compro|visto)
      |(?:no|tampoco|nunca)\s+(?:l[oae]s?\s+)?(?:puedo|podemos)\s+{_CANNOT_ES}
      |tengo\s+(?:miedo|fobia|alergia|intolerancia|aversión)|sigo\s+una\s+dieta)\w*
    |(?<!del\s)\busuario\b[^,.;!?]{{0,40}}?\b(?:
      gusta|gustan|encanta|encantan|prefiere|odia|detesta|evita|teme|rechaza|se\s+opone
      |es\s+(?:vegetarian|vegan|alérgic|celíac|intolerante)|no\s+(?:come|bebe|soporta|tolera|usa
      |consume)
      |(?:no|tampoco|nunca)\s+(?:l[oae]s?\s+)?pueden?\s+{_CANNOT_ES}
      |solo\s+(?:come|bebe|usa|compra|viste)|es\s+(?:una?\s+)?(?:gran\s+|muy\s+)?(?:fan|aficionad)
      |le\s+apasiona|valora|no\s+confía|se\s+marea|usa\s+silla\s+de\s+ruedas
      |es\s+(?:diabétic|abstemi)|tiene\s+diabetes|no\s+puede\s+con\s+(?:el|la|los|las)\b
      |tiene\s+(?:miedo|fobia|alergia
      |intolerancia|aversión)|sigue\s+una\s+dieta|favorit|preferid|no\s+le\s+interesa)\w*"""
)
_ONE_OFF = re.compile(
    r"(?i)\b(?:today|tonight|tomorrow|this\s+(?:morning|afternoon|evening|week|weekend)"
    r"|hoy|esta\s+(?:noche|mañana|tarde|semana)|mañana|este\s+fin\s+de\s+semana)\b"
    r"|今天|今晚|明天|今早|明晚|后天|这周|本周|这个周末|这几天|这两天|待会|等会|一会儿"
)
_SENTENCE = re.compile(r"[.;!?]\s+|\s+(?:but|pero)\s+|[。；！？]|[，,]?(?:但是|不过|可是)", re.I)


def states_preference(text: str) -> bool:
    """ "User follows a strict vegan diet" yes; "User lives in Porto", "User's sister loves jazz"
    and "I won't go to the gym today" no."""
    for sentence in _SENTENCE.split(text.replace("\u2019", "'")):
        if _ONE_OFF.search(sentence):
            continue
        for standing in _STANDING.finditer(sentence):
            if _SUBJECT.search(sentence[: standing.end()]):
                return True
        if _STANDING_ZH.search(sentence) or _STANDING_ES.search(sentence):
            return True
    return False


# Something held against: avoided, disliked, refused, feared, not tolerated. "I tend to avoid
# restaurants with loud live music" folded by the model into "User enjoys taking their students
# to historical reenactments" is a constraint lost, not a taste kept (worker/turn_notes.py).
_AVERSION = re.compile(
    r"""(?ix)\b(?:avoid\w*|dislik\w*|hat(?:e|es|ed|ing)|detest\w*|loath\w*|despis\w*|refus\w*
      |can(?:no|')?t\s+stand|not\s+(?:a\s+(?:big\s+)?fan|into)
      |(?:don't|doesn't|do\s+not|does\s+not|never)\s+(?:like|enjoy|love|care\s+for)
      |fear\w*|phobi\w*|afraid|allerg\w*|intoleran\w*
      |odi\w*|evit\w*|no\s+me\s+gusta\w*|miedo|alérgic\w*)\b
    |讨厌|不喜欢|避免|避开|厌恶|反感|受不了|无法忍受|害怕|恐惧|过敏"""
)


def states_aversion(text: str) -> bool:
    """ "User avoids crowded places", "I can't stand country music" yes; "User loves jazz" no."""
    return bool(_AVERSION.search(text.replace("\u2019", "'")))


def kind_said(content: str) -> MemoryType:
    """The type of what someone added without naming one: "I am vegetarian" is a preference."""
    return MemoryType.PREFERENCE if states_preference(content) else MemoryType.SEMANTIC


# What eating shapes, whoever learned the preference: the 1.5B model's kinds of request for a
# peanut allergy named recipes, not restaurants ("Thai restaurants" was given the user's
# shopping preferences instead), and notes have none (eval/RESULTS.md, "Food constraints").
_FOOD = re.compile(
    rf"""(?ix)\b(?:diet|vegan|vegetarian|pescatarian|kosher|halal|gluten|dairy|lactose|meat|pork
    |diabet\w*|co?eliac
    |(?:nut|peanut|shellfish|seafood|egg|wheat|soy|fish|milk|sesame)s?\s+allerg\w*
    |can(?:no|['’]|\s+no)?t\s+(?:eat|drink)
    |allerg\w*\s+to\s+(?:\w+\s+)?(?:nuts?|peanuts?|shellfish|seafood|eggs?|wheat|soy|fish|milk
       |sesame)
    )\b
    |(?:素食|吃素|纯素|蛋奶素|清真|犹太洁食|饮食|忌口|麸质|乳糖|乳制品|不吃(?:肉|猪肉|牛肉|海鲜|鱼)
      |{_CANNOT_ZH}(?:{_INTAKE_ZH})|{_CANNOT_INTAKE_ZH}|{_FORBIDDEN_ZH}(?:吃|喝)
      |{_DIET_CONDITION_ZH}|控糖|控盐
      |(?:花生|坚果|海鲜|贝类|鸡蛋|小麦|大豆|鱼|牛奶|芝麻)[^，,。；]{{0,8}}过敏)
    |\b(?:dieta|vegetarian[oa]s?|vegan[oa]s?|kosher|halal|gluten|lactosa|carne|cerdo|mariscos
      |diabétic[oa]s?|diabetes|celíac[oa]s?
      |(?:no|tampoco|nunca)\s+(?:l[oae]s?\s+)?(?:puedo|puede|podemos)\s+(?:comer|beber|tomar|ingerir)\w*
      (?!\s+(?:más|tanto|nada)\b)
      |alérgic\w*\s+a\s+(?:(?:los|las|la|el)\s+)?(?:cacahuetes|maní|frutos\s+secos|nueces
        |mariscos|huevos?|trigo|soja|pescado|leche|sésamo))\b"""
)
FOOD_REQUESTS = (
    "restaurants", "recipes", "meal ideas", "desserts", "snacks", "dining out while travelling",
)  # fmt: skip


# Why a preference is held is not what it bears on: "User only wears clothing free of leather
# … due to their vegan lifestyle" is about clothing.
_REASON = re.compile(
    r"(?i)(?:,\s*|\s+)(?:due\s+to|because|since|for\s+\w+\s+reasons|porque|debido\s+a|ya\s+que"
    r"|por\s+razones)\b.*$|[，,]?\s*(?:因为|由于|出于).*$"
)


def requests_implied(content: str) -> tuple[str, ...]:
    """The kinds of request a preference bears on by what it is about, without a model. They
    replace a model's: joined with them, a small model's ("kosher travel", "kosher clothing")
    pulled a Kosher diet away from "top dining spots in Chicago"."""
    return FOOD_REQUESTS if _FOOD.search(_REASON.sub("", content)) else ()
