"""English: what the rules read in it. Data and patterns in lang/shape.py's shape."""

from __future__ import annotations

import calendar
import re
from datetime import date

from memory_extproc.lang.shape import (
    CLAUSE_CHAR,
    INNER_CAPITAL,
    LAST_CLAUSE_ASKS,
    SENTENCE_CHAR,
    WORD_OR_AMOUNT,
    Amounts,
    Asks,
    Attribution,
    Cascades,
    Changes,
    Dates,
    Grounding,
    Language,
    Notes,
    Preferences,
    Requests,
    Secrets,
    Topics,
    Words,
    unit_before,
)
from memory_extproc.lang.snowball import snowball
from memory_extproc.lang.when import When, ahead, counted, days, last

_WEEKDAYS = tuple(d.lower() for d in calendar.day_name)
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _meaning(match: re.Match[str], said_on: date) -> When:
    if match["today"]:
        return days(0, said_on)
    if match["yesterday"]:
        return days(-1, said_on)
    if match["tomorrow"]:
        return days(2 if "after" in match["tomorrow"] else 1, said_on)
    if match["next"]:
        return ahead(match["next"].lower(), said_on, _WEEKDAYS, next_calendar_week=True)
    if match["last"]:
        return last(match["last"].lower(), said_on, _WEEKDAYS)
    count = _COUNTS.get(match["count"].lower()) or int(match["count"])
    return counted(match["unit"].lower(), count, said_on)


_DATES = Dates(
    relative=re.compile(
        rf"""(?ix)\b(?:
          (?P<today>today|tonight|this\s+(?:morning|afternoon|evening))
          |(?P<yesterday>yesterday|last\s+night)
          |last\s+(?P<last>week|weekend|month|year|{"|".join(_WEEKDAYS)})
          |(?<!no\s)(?P<tomorrow>(?:the\s+)?day\s+after\s+tomorrow|tomorrow)(?!['’]s)
          |(?<!the\s)(?<!that\s)next\s+(?P<next>week|weekend|month|year|{"|".join(_WEEKDAYS)})
            (?!['’]s)
          |(?P<count>\d{{1,2}}|{"|".join(_COUNTS)})\s+(?P<unit>day|week|month|year)s?\s+ago
        )\b"""
    ),
    meaning=_meaning,
    words={
        "day": "on {iso}",
        "week": "the week before {iso}",
        "weekend": "the weekend before {iso}",
        "week_of": "the week of {iso}",
        "week_after": "the week after {iso}",
        "weekend_after": "the weekend after {iso}",
        "month": "in {month} {year}",
        "year": "in {year}",
    },
    months=tuple(calendar.month_name[1:]),
    short_months={name: n for n, name in enumerate(calendar.month_abbr) if name} | {"Sept": 9},
    clause=re.compile(r"[,;]|\s(?:and|but)\s"),
    dated=re.compile(
        rf"\b(?:\d{{4}}(?:-\d{{2}}){{0,2}}|{'|'.join(calendar.month_name[1:])})\b", re.IGNORECASE
    ),
    duration=re.compile(
        rf"\b(?:\d+|{'|'.join(_COUNTS)}|several|few)\s+(?:day|week|month|year)s?\b", re.IGNORECASE
    ),
    wrong_day=r"\b(?:on|in)\s+{day}\b",
    appended="{fact} {when}",
    # "(in) the last month" is "in November 2026"; not "move in (next month)", a particle
    edge=r"(?<!\w)(?:(?:(?:in|during|over|within)\s+)?the\s+)?{}(?!\w)",
    point=r"\b(?:since|until|till|from)\s+$",
    bare=((r"^(?:on|in)\s+", ""),),
)

_STOP, _SENTENCE, _WORD = CLAUSE_CHAR, SENTENCE_CHAR, WORD_OR_AMOUNT
_QUIT = r"\b(?:quit|resigned|retired)\b"

_CHANGES = Changes(
    speaker=tuple("i me my mine myself user users".split()),
    be=("am", "is", "are"),
    become=tuple("gone become became turned went switched".split()),
    filler=tuple(
        "actually now currently anymore instead fully really just also still so well oh ok okay "
        "a an the these days at moment by way honestly".split()
    ),
    negation=("not", "no", "never", "longer"),
    frame_noise=tuple("to for of in on with and also too".split()),
    when_words=tuple("last this next week month year yesterday today ago day".split()),
    marker=r"\b(?:actually|now|anymore|any more|no longer|instead|these days|currently|switched"
    r"|changed|became|become|gone|turned|moved|new|updated?|correction|meant|my\s+mistake|oops)\b",
    corrections=(
        rf"\bi\s+(?:said|wrote|typed|told\s+you)\s+(?P<wrong>{_STOP}+?)\s*[,;.]?\s*"
        rf"(?:but\s+)?i\s+meant\s+(?P<right>{_STOP}+)",
        rf"\b(?:i|user)\s+meant\s+(?P<right>{_STOP}+?)\s*,?\s+(?:not|instead\s+of)\s+"
        rf"(?P<wrong>{_STOP}+)",
        # "not Boston, but Austin"; not "not just for our kids, but for all of us" (LoCoMo
        # says "not just / only / much …, but" five times, none of them a correction)
        rf"\bnot\s+(?!(?:just|only|merely|simply|much|even|all)\b)"
        rf"(?P<wrong>{_STOP}+?)\s*,\s*but\s+(?P<right>{_STOP}+)",
        # "Oops, my mistake: Mark is turning 41, not 40": one word for another, after a word
        # that owns the mistake (without it, "I like cats, not dogs" would "correct" a dog)
        rf"\b(?:my\s+mistake|my\s+bad|oops|sorry|i\s+mean|correction|i\s+was\s+wrong)\b"
        rf"{_SENTENCE}*?(?<!\w)(?P<right>{_WORD})"
        + unit_before(r"not")
        + rf"\s*,\s*not\s+(?P<wrong>{_WORD})",
    ),
    endings=(
        r"\b(?:sold|quit|stopped|left|gave\s+up|got\s+rid\s+of|broke\s+up\s+with|moved\s+out\s+of"
        r"|walked\s+away\s+from|stepped\s+(?:down|away)\s+from|kicked(?=\s+(?:the|my|that|this)\s+(?:\w+\s+){0,2}?habit\b)|ditched|swore\s+off"
        r"|cancel+ed|retired\s+from|no\s+longer\s+\w+|(?:do|does|did)\s*n[o']t\s+\w+"
        rf"(?=.*\banymore\b))\s+(?P<object>{_STOP}+)",
    ),
    left_job=_QUIT,
    job_word="job",
    # …or said by the new home: "our new flat in Leeds", "we're finally settled in Leeds"
    moved=r"\b(?:i|we|user)(?:'ve|\s+have|\s+has)?\s+(?:just\s+|recently\s+|finally\s+|also\s+)?"
    r"(?:moved|relocated)\s+(?:back\s+)?(?:to|into)\b"
    r"|\b(?:our|my|user's)\s+new\s+(?:place|flat|apartment|house|home|condo)\s+in\b"
    r"|\b(?:we|i|user)(?:'re|'m|\s+are|\s+am|\s+is)\s+(?:\w+\s+)?settled\s+in\s+(?=(?-i:[A-Z]))",
    residence=r"\b(?:i|we|user)(?:'ve|'m|\s+have|\s+has|\s+am|\s+are|\s+is)?\s+(?:\w+\s+){0,2}?"
    r"(?:live|lives|lived|living|reside|resides|resided|based)\s+in\b",
    settled=r"\b(?:since\s+(?:last\s+(?:week|weekend|month|spring|summer|fall|autumn|winter)"
    r"|yesterday|(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:the\s+)?(?:start|beginning|end"
    r"|middle)\s+of\s+(?:the|this|last)\s+(?:week|month)|(?:a|one|two|three|four|five|six|a\s+few"
    r"|a\s+couple(?:\s+of)?|\d+)\s+(?:days?|weeks?|months?)\s+ago))\b",
    switch=r"\b(?:switched|changed|became|become|no\s+longer|gave\s+up|quit|swapped|replaced"
    r"|moved|relocated)\b",
    when=r"(?:last|this|next)\s+\w+|yesterday|today|(?:a\s+(?:few|couple(?:\s+of)?)\s+)?\w+\s+(?:ago|back)"
    r"|on\s+\S+|in\s+\d[\d-]*"
    r"|in\s+[a-z]+\s+\d{4}|the\s+week(?:end)?\s+(?:before|of)\s+\S+",
    object_end=r"\s+(?:and|but)\s+(?=(?:now|then|i|i'm|we|user|he|she|they)\b).*$",
    determiner=tuple("my our their his her the a an this that".split()),
    clause=r",\s*(?:and|but)\s+|\s+and\s+(?=(?:my|the|i|i'm|user)\b)",
    people=r"\b(?:brothers?|sisters?|mother|father|mom|mum|dad|parents?|sons?|daughters?|wife"
    r"|husband|partner|friends?|cousins?|aunts?|uncles?|grand\w+|nieces?|nephews?|boyfriend"
    r"|girlfriend|children|kids?)\b",
    job=r"\b(?:i|user)(?:'m|\s+am|\s+is)?\s+(?:now\s+|currently\s+)?"
    r"(?:works?\s+(?:as|at|for)|teach(?:es)?\s+(?:at|in)|(?:is\s+)?employed\s+(?:at|by))\b",
    beside=r"\b(?:also|too|as\s+well|second\s+job|side\s+job|part-time|on\s+weekends)\b",
    born=r"\bborn\b",
    routine=tuple(
        rf"\b(?:every\s+{d}|{d}s|{d}\s+(?:morning|afternoon|evening|night)s)\b"
        for d in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    ),  # type: ignore[arg-type]
    expansions={
        "i'm": "i am",
        "i've": "i have",
        "i'll": "i will",
        "i'd": "i would",
        "we're": "we are",
        "don't": "do not",
        "doesn't": "does not",
        "didn't": "did not",
        "isn't": "is not",
        "aren't": "are not",
        "wasn't": "was not",
        "can't": "can not",
        "won't": "will not",
        "it's": "it is",
        "that's": "that is",
        "user's": "user",
    },
)

_CASCADES = Cascades(
    home_place=(
        r"\b(?i:live|lives|lived|living|reside|resides|resided|based)\s+in\s+"
        r"(?P<place>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)",
    ),
    children=r"\b(?:sons?|daughters?|kids?|child(?:ren)?)\b",
    local=r"\b(?:gym|gyms|doctor|dentist|physician|gp|clinic|therapist|pharmacy|vet|commute[sd]?"
    r"|commuting|bus|subway|metro|tram|school|kindergarten|daycare|nursery|club|church|mosque"
    r"|synagogue|temple|library|neighbou?rs?|landlord|apartment|flat|rent|grocery|supermarket"
    r"|café|cafe|coffee\s+shop|barber|hairdresser|pool|choir|book\s+club|yoga\s+studio|studio)\b",
    past=r"\bused\s+to\b",
    until_move="Until the move: {text}",
)

# where people work, as a job is said by its place ("User is a paralegal at a law firm")
_WORKPLACES = (
    r"firm|company|hospital|clinic|school|university|college|bank|agency|startup|store|shop"
    r"|restaurant|bakery|hotel|factory|warehouse|office|lab|laboratory|newspaper|airline"
    r"|nonprofit|charity|ministry|court|plant|garage|salon|practice"
)
_TOPICS = Topics(
    # the user's job by its verbs and nouns ("User works as a baker", "User's new job", "User
    # quit their job"), not work on a thing ("User is working on a painting") nor someone
    # else's ("User's sister works as a nurse")
    work=rf"""(?ix)\buser(?:
      ['’]s\s+(?:new\s+|current\s+|old\s+|former\s+|first\s+)?
        (?:job|career|profession|occupation|employer|workplace)\b
      |\s+(?:\w+\s+){{0,3}}?(?:
        (?:works|worked|working|work(?=\s+(?:as|at|for)\b))\b(?!\s+(?:on|out|through|with|towards?|hard\s+on)\b)
        |employed|retired|resigned|(?:quit|lost|left)\s+(?:\w+\s+)?job
        |(?:got|started|found|landed)\s+(?:a\s+|the\s+)?(?:new\s+)?job
        |(?:switched|changed)\s+careers?
        |(?:quit|left|joined)\s+(?:a|an|the|their)\s+(?:\w+\s+){{0,2}}?(?:{_WORKPLACES})
        |(?:is|was)\s+(?:now\s+)?(?:a|an)\s+(?!(?:\w+\s+)?(?:regular|member|customer|client|patient
          |guest|fan|visitor)\b)\w+(?:\s+\w+)?\s+(?:at|for|in)\s+(?:a|an|the)\s+(?:\w+\s+){{0,2}}?
          (?:{_WORKPLACES})
        |\w+\s+(?:apprenticeship|internship|residency|traineeship))\b
      |\s+(?:\w+\s+){{1,5}}?for\s+(?:a|the|their)\s+(?:new\s+)?job\b)""",
    work_word="work",
    # the user moving house or town, or planning to; not a move to a team, a role or a diet,
    # nor "moved to tears"
    move=r"""(?ix)\b(?:user|i|we)(?:'ve|'re|'ll)?\s+(?:(?:has|had|have|just|recently|finally|also|then|eventually|already|is
      |was|will|plans\s+to|is\s+planning\s+to|wants\s+to|is\s+going\s+to|hopes\s+to)\s+){0,2}
    (?:moved|moving|move|relocated|relocating|relocate|emigrated|emigrating|immigrated)
    (?:\s+back)?\s+(?:
      (?:to|into)\b(?!\s+tears)(?!\s+(?:\w+\s+){0,2}?(?:team|department|division|role|position
        |diet|version|stage|phase|level|management)\b)
      |in\b|from\b|abroad|away|out\s+of|across|house|home|cities|countries|states|here|there)""",
    move_word="where the user lives",
    home_asked="Where does the user live?",
)

# A standing preference: English reads its subject apart from its words ("User … avoids")
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
_PREFERENCES = Preferences(
    standing="",
    after_subject=rf"""
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
    """,
    # the user as the subject of the clause, before what it says: "User …", "I …", "we …", or
    # the user's favourite/preferred thing; not "User's sister …" or "my landlord …"
    subject=(
        r"\b(?:user(?!['\u2019]s)|i|i'm|i've|i'd|i'll|we|we're|we've)\b"
        r"|\b(?:told|advised|warned|ordered)\s+(?:me|user|the\s+user)\s+(?=to\s+avoid\b)"
        r"|\b(?:user's|my|our)\s+(?:favou?rite|preferred|usual|go-to"
        r"|(?:top|first|number\s+one|main|biggest|highest)\s+priorit"
        # the user's own fear or aversion as the subject: "User's fear of falling makes them prefer
        # activities that keep them grounded" (a PrefEval persona's, learned, never given)
        r"|(?:\w+\s+)?(?:fear|phobia|aversion|allerg(?:y|ies)|intolerance|dislike|distaste)"
        r"\s+(?:of|to|for)\b)"
    ),
    one_off=r"\b(?:today|tonight|tomorrow|this\s+(?:morning|afternoon|evening|week|weekend))\b",
    aversion=r"""\b(?:avoid\w*|dislik\w*|hat(?:e|es|ed|ing)|detest\w*|loath\w*|despis\w*|refus\w*
      |can(?:no|')?t\s+stand|not\s+(?:a\s+(?:big\s+)?fan|into)
      |(?:don't|doesn't|do\s+not|does\s+not|never)\s+(?:like|enjoy|love|care\s+for)
      |fear\w*|phobi\w*|afraid|allerg\w*|intoleran\w*)\b""",
    food=r"""\b(?:diet|vegan|vegetarian|pescatarian|kosher|halal|gluten|dairy|lactose|meat|pork
    |diabet\w*|co?eliac
    |(?:nut|peanut|shellfish|seafood|egg|wheat|soy|fish|milk|sesame)s?\s+allerg\w*
    |can(?:no|['’]|\s+no)?t\s+(?:eat|drink)
    |allerg\w*\s+to\s+(?:\w+\s+)?(?:nuts?|peanuts?|shellfish|seafood|eggs?|wheat|soy|fish|milk
       |sesame)
    )\b""",
    reason=r"(?:,\s*|\s+)(?:due\s+to|because|since|for\s+\w+\s+reasons)\b.*$",
    but=r"\s+but\s+",
)

# "Suggest something I could cook for dinner", "Help me pick a laptop"
_REQUESTS = Requests(
    open=r"""
    \b(?:recomm?end\w*|reccomm?end\w*|suggest\w*|ideas?|tips|advice|options|alternatives
        |planning|itinerary|strateg(?:y|ies)|approach(?:es)?)\b
    # …or asks for something made for someone: "Can you send me a quick dinner recipe?" (not
    # "the recipe shared by Nate", "grandma's gift": LoCoMo's questions)
    | \b(?:a|an|some|me|us|new|good|quick|easy|few)\s+(?:\w+\s+){0,2}?(?:recipes?|menus?
        |meal\s+plans?|workouts?|playlists?|gift)\b
    | (?:^|\b(?:me|us|you|please|to)\s+)plan\b
    | \b(?:what|which)\b[^?!]{0,60}?\b(?:should|could|can|would|might)\s+(?:i|we)\b
    | \b(?:where|how)\b[^?!]{0,60}?\b(?:should|could|would|might)\s+(?:i|we)\b
    | \bhow\s+can\s+(?:i|we)\b(?=[^?!]*\b(?:my|our|me|us)\b)
    | \bhelp\s+(?:me|us)\s+\w+
    | \b(?:what|which)(?:'s|\s+(?:are|is|would\s+be))\s+(?:some|a\s+few|the\s+best
        |a\s+good|good|great|the\s+right|the\s+most)\b
    | \b(?:best|good|great|right|ideal|suitable)\b[^?!.]{0,40}\bfor\s+(?:me|my|us|our)\b
    | \b(?:create|make|write|find|give|put\s+together|build|design|pick|choose|provide|curate)\b
        [^?!.]{0,60}\bfor\s+(?:me|my|us|our)\b
    | \b(?:i'?m|i\s+am|we're|we\s+are)\s+(?:looking\s+for|planning|thinking\s+(?:of|about)
        |considering|trying\s+to\s+(?:find|decide|choose|pick))\b
    | \b(?:ways?|places?|things)\s+(?:to|for|i|we)\b
    """,
    # "What book did I recommend to Melanie?", "When am I planning on going camping?": the
    # user's own past (LoCoMo's questions: 44 of 798 read as open before, 12 after). Capitals
    # are read: "did Melanie"
    recounts=r"""^\s*(?:when|why|who|whose)\b
    | \b(?:did|has|have|had)\s+(?:(?:i|we|he|she|they)\b|(?-i:[A-Z][a-z]+)\b)
    | \b(?:do|does)\s+(?:(?:i|we|he|she|they)|(?-i:[A-Z][a-z]+))\s+(?:\w+\s+){0,2}?
        (?:give|suggest|recommend|say|tell|write|get)\b
    """,
    reminded=r"\bhelp\s+(?:me|us)\s+(?:to\s+)?(?:remember|recall)\b",
    home=r"""\bwhere\s+(?:i|we)\s+(?:live|am\s+living|are\s+living|stay)\b
    | \b(?:near|around|close\s+to)\s+(?:me|us|home|my\s+(?:place|home|house|flat|apartment))\b
    | \b(?:in|around|for)\s+(?:my|our)\s+(?:city|town|area|neighbou?rhood|region|village
        |part\s+of\s+(?:town|the\s+country))\b
    | \bmy\s+(?:city|town|neighbou?rhood|hometown)\b | \baround\s+here\b""",
    # the user's own going to and being at work: not "get this script to work", nor "What
    # did Melanie do at work?"
    work=r"""\b(?:i|we|me|us)\b[^.?!]{0,60}?(?:
        \b(?:before|after|at|from|off)\s+work\b
        | \b(?:go(?:ing)?|went|drive|driving|commute|commuting|walk|walking|bike|biking|cycle
          |cycling|ride|riding|late|way|ready|head(?:ing)?)\s+(?:to|for)\s+work\b)
    | \bmy\s+(?:job|shifts?|office|workplace|commute|employer)\b""",
)

_NOTES = Notes(
    small_talk="ok okay sure thanks thank cool great nice perfect awesome amazing wonderful "
    "fantastic lovely yes no yep yeah yay wow whoa oh aw aww haha lol omg hey hi hello bummer "
    "congrats congratulations sorry glad happy hear got lot much again help problem good see "
    "really",
    vocative=r"hey|hi|hello|thanks|congrats|wow|oh",
    memory_command=r"\b(?:forget|(?:don't|do\s+not|never)\s+(?:remember|store|save|note|keep))\b",
    holding="user usually tend like love enjoy prefer avoid dislike hate really particularly "
    "especially always strongly",
    not_held="",
    refusal=r"(?:i'?m\s+sorry|sorry,|i\s+(?:can(?:no|')?t|am\s+(?:not\s+able|unable))"
    r"|as\s+an\s+ai\b|i\s+don'?t\s+have\s+(?:access|information))",
    reminder=r"^(?:just\s+)?(?:a\s+)?(?:quick\s+|friendly\s+)?reminder[:,]\s*",
    requested=r"[,;]\s*(?:so\s+|and\s+)?(?:please\s+(?:no|don't|do\s+not|never|avoid)\b[^,.;!?]*"
    r"|(?:no|don't|do\s+not|never|avoid)\b[^,.;!?]*\bplease)(?=[.!]?\s*$)",
)

_ASKS = Asks(
    asks=r"(?:(?:and|so|also|ok(?:ay)?|hey|hi|please|then|but|now)[\s,]+)*"
    r"(?:what|what's|whats|where|where's|when|who|who's|whom|whose|why|how|how's|which|do|does"
    r"|did|is|are|am|was|were|can|could|would|should|will|have|has|had|may|might|shall"
    r"|remind|tell|show|list|give|recall|summari[sz]e|say|help|suggest|recommend|find|explain"
    r"|describe|write|plan|book|check|look)\b",
    # about a text or code ("Convert this to Go", "Rewrite it for a single path")
    commands=r"(?:(?:and|so|also|ok(?:ay)?|please|now|then|just)[\s,]+)*"
    r"(?:convert|rewrite|translate|fix|create|generate|compose|draft|edit|revise|improve|complete"
    r"|implement|refactor|optimi[sz]e|calculate|compute|solve|simplify|continue|correct|proofread"
    r"|format|comment|define|compare|outline|analy[sz]e|debug|make|add|remove|shorten|expand"
    r"|paraphrase|classify|extract|enumerate|simulate|identify|design|build)\b",
    # ASCII case folding ("(?a:"): Unicode folding also took the Turkish dotless and dotted i
    # for "i"; "I/O", "print(I)" are not the user
    speaker=r"(?<![\w/'(=-])(?a:i(?:'(?:m|ve|d|ll)| am)?|me|my(?:self)?|mine)(?![\w/'=)-])",
    # …or a tag that asks nothing: "First week running the kitchen at St. Brigid's and
    # honestly??" was dropped as a question, and the new job with it
    trailing=LAST_CLAUSE_ASKS + r"|\s+(?:(?:and|but)\s+)?(?:honestly|seriously|really|right|tbh"
    r"|ngl|lol|lmao|haha|huh|eh)\s*[?!]*\?[?!]*$",
)

_AMOUNTS = Amounts(
    asks=r"\bhow\s+(?:long|many|much|old|often|far)\b",
    words=tuple(
        "two three four five six seven eight nine ten eleven twelve twenty thirty dozen hundred "
        "once twice several few daily weekly monthly yearly annually times".split()
    ),
    every=r"""\bevery\s+(?:other\s+)?(?:day|week|month|year|morning|evening|night|weekend|summer
    |winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday)""",
    counted="",
    vague=r"how much|how many|what about|and (?:that|this|it|them|those)|this one|that one"
    r"|the other one|what else",
)

_GROUNDING = Grounding(
    conversation=r"user\s+(?:is|was|has\s+been)\s+(?:(?:talking|chatting|speaking)\s+(?:to|with)"
    r"\s+\S+|telling\s+\S+\s+about\s+(?:their|his|her|the)\s+\w+)",
    courtesy=r"user\s+(?:thanks|thanked|congratulates|congratulated|compliments|complimented)\b"
    # a goodbye to someone and nothing more, not one to "their hometown" (leaving is a fact)
    r"|user\s+(?:says|said|bids|bade)\s+(?:goodbye|bye|farewell)\s+to\s+"
    r"(?!(?:their|his|her|its|our|the|a|an)\b)[^\s,]+(?:\s+[^\s,]+){0,2}?(?:,?\s+and\s+wish.*)?$",
    says_more=r"\b(?:but|though|although)\b"
    r"|.*\band\s+(?:is|was|has|had|will|prefers?|likes?|loves?|wants?|chose|chooses|picked"
    r"|picks?|decided|plans?|goes|went|enjoys?)\b",
    we=r"\b(?:we|we're|we've|we'd|we'll|us|our|ours)\b",
    addressing=r"\b(?:you|your|yours|you're|you've|you'd|you'll)\b",
    answering=r"\b(?:i(?:'d|\s+would)?\s+(?:suggest|recommend|advise|start|go\s+with|pick|choose)"
    r"|i\s+(?:think|can(?!'t)|could|will|hope|understand|see|know|mean|believe|remember|recall"
    r"|noticed)|as\s+i\s+(?:recall|remember|understand)|i'll|let\s+me|i'm\s+(?:happy|glad|sorry"
    r"|here|not\s+sure|going\s+to|impressed)|i(?:'ve|\s+have)\s+(?:put|included|added|listed|made"
    r"|created|prepared|written|compiled|outlined|noted|found|gathered|kept|adjusted)"
    r"|my\s+(?:top\s+)?(?:recommendation|suggestion|advice|pick)|too|as\s+well)\b"
    # …and its tastes, which a user who agrees makes theirs ("I love Kyoto in autumn" /
    # "Kyoto in autumn sounds magical")
    r"|\bi(?:'ve|'d)?\s+(?:\w+\s+){0,2}?(?:love|like|enjoy|adore|prefer)|\bmy\s+(?:\w+\s+)?"
    r"favou?rite",
    # "User dislikes the other options", "User chose option 3"
    pointer=r"\b(?:(?:the|these|those|all)\s+other\s+(?:options?|ones?|choices?|suggestions?)"
    r"|options?\s+(?:\d+|[a-e])\b"
    r"|(?:the|that|this)\s+(?:first|second|third|fourth|last|other|former|latter)\s+(?:one|option))",
    choice_talk="user option options choice choices other others one first second third fourth "
    "last former latter go goes going went chose choose chooses picked pick picks prefer prefers "
    "dislike dislikes like likes work works appeal appeals suggestion suggestions",
    # "User is planning to bring this up at their next meeting"
    demonstrative=r"\b(?:this|these)\b"
    r"(?=\s*(?:$|[.,;!]|\s(?:up|out|over|at|to|soon|later|next|again|too)\b))",
    # "User could consider adding a digital cataloging system"; not what the user could not do
    suggests=r"\b(?:could|should|ought\s+to)\b",
    advice=r"^\s*user\s+(?:could|should|would\s+benefit)\b(?!\s+not)"
    r"|\b(?:is|are)\s+(?:advised|encouraged|recommended)\s+to\b",
    # a pick: "I'll go with", "sounds perfect", "doesn't appeal"…
    picks=r"\b(?:go(?:ing)?\s+(?:with|for)|choos\w*|chose|pick\w*|i'?ll\s+(?:take|pass)"
    r"|opt(?:ing)?\s+for|prefer\w*|best\s+(?:choice|fit|option)|(?:ideal|right|perfect)\s+choice"
    r"|sounds?\s+(?:\w+\s+){0,3}?(?:perfect|great|best|good|ideal|interesting|appealing|fun)"
    r"|would\s+(?:be\s+(?:\w+\s+){0,2}?(?:best|better|ideal|perfect|suitable|effective)"
    r"|work\s+better)|(?:don't|doesn't|do\s+not|does\s+not)\s+(?:really\s+|quite\s+)?appeal)\b",
    # …among options: "option 2", "the other ones", "none of them"
    options=r"\b(?:options?|choices?|the\s+others?|(?:first|second|third|fourth|last)\s+"
    r"(?:one|option)|none\s+of\s+(?:them|these|those)|neither\s+of)\b",
    draft=r"(?:dear|hi|hello|hey)\b",  # "Dear Hiring Manager,"
)

_WORDS = Words(
    stopwords=frozenset(
        """a about above after again all also am an and any are as at be because been before
        being below between both but by can could did do does doing down during each few for
        from further had has have having he her here hers herself him himself his how i i'd i'll
        i'm i've if in into is it it's its itself just let's me more most my myself no nor not
        now of off on once only or other our ours ourselves out over own please same she should
        so some such than that that's the their theirs them themselves then there these they
        this those through to too under until up very was we were what what's when where which
        while who whom why will with would you your yours yourself yourselves ok okay yes yeah
        sure thanks thank hi hello hey tell know think want like really much many get got going
        go""".split()
    ),
    abbreviations=r"mr|mrs|ms|dr|st|mt|jr|sr|prof|vs|e\.g|i\.e",
    joining=frozenset(
        "of in on to for with and or from as into about at by their his her its our my your them "
        "him it this that these those been being".split()
    ),
    not_names=frozenset("sorry just yesterday today".split()),
    memory_voice={
        "i'm": "User is", "i am": "User is", "i've": "User has", "i'd": "User would",
        "i'll": "User will", "i": "User", "me": "User", "myself": "User", "my": "User's",
        "mine": "User's",
    },
)  # fmt: skip
# The people of the user's life, as a fact's head names them ("User's sister Anna's budget …")
_KIN = (
    r"sister|brother|mom|mum|mother|dad|father|parents|wife|husband|partner|son|daughter"
    r"|kids?|children|friend|cousin|aunt|uncle|grand(?:ma|pa|mother|father)|niece|nephew"
    r"|colleague|coworker|boss|roommate|neighbou?r|boyfriend|girlfriend"
)
_ATTRIBUTION = Attribution(
    # a relative's, named or not, or a named person's: "User's sister Anna's", "Anna's"
    holder=rf"^(?:User['\u2019]s\s+)?(?P<who>(?i:{_KIN})(?:\s+(?!User\b)[A-Z][a-z]+)?"
    rf"|(?!User\b)[A-Z][a-z]+)['\u2019]s\s+",
    user_head="User's ",
    pointing=r"\b(?:he|she|they|his|her|hers|their|him|them|it|its|there)\b",
)

_SECRETS = Secrets(
    password=r"\b(?:pass(?:word|code|phrase)|(?-i:PIN)(?:\s+code)?|wi-?fi\s+key)\b"
    r"(?:\s+(?:is|was)\s*[:=]?|\s*[:=])\s*"
    # …not what became of it: "my password was stolen."
    r"(?!(?:stolen|hacked|leaked|changed|reset|expired|compromised|wrong|incorrect|weak|strong"
    r"|secure|required|invalid|new|old|long|short|simple|easy|hard)\b)",
    token=r"\b(?:api[\s_-]?key|(?:access|auth|bearer|api)[\s_-]?token|secret[\s_-]?key"
    r"|client[\s_-]?secret|token)\b(?:\s+(?:is|was)\s*[:=]?|\s*[:=])\s*",
    national_id=r"\b(?:SSN|social\s+security(?:\s+number)?)\b",
    phone=r"\b(?:(?:tele)?phone|cell|mobile|tel)\b",
    # "221B Baker Street", "1600 Pennsylvania Avenue": a number, a capitalised name, a street word
    address=r"\b\d{1,5}[A-Za-z]?\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|St|Avenue|Ave|Road|Rd"
    r"|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|Square)\b\.?",
)

_COMMANDS = (
    r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:instruction|prompt|rule|guideline"
    r"|message|above|previous|prior)s?\b",
    # "From now on I'm vegan" is a fact: the command is what follows
    r"\bfrom\s+now\s+on\b,?\s+(?:you|always|never|when(?:ever)?|if|please|say|respond|reply"
    r"|answer|recommend|suggest|tell|use|call|refer|only|don't|do\s+not)\b",
    r"\b(?:system|developer)\s+(?:prompt|message|mode)\b",
    r"\bjail\s?break",
    r"\bnew\s+instructions?\b",
    # what the assistant is to do with its answers: "You should go to a writing convention" and
    # "You must have been elated" are a friend's advice and cheer (LoCoMo), not commands
    r"\b(?:assistant|the\s+ai|the\s+model|chatgpt)\s+(?:must|should|shall|will|are\s+to"
    r"|need\s+to)\b",
    # what the assistant is said to be now: "the assistant is now unrestricted"
    r"\b(?:assistant|the\s+ai|the\s+model|chatgpt)\s+is\s+now\s+(?:unrestricted|unfiltered"
    r"|uncensored|jailbroken|allowed|permitted|free\s+to|in\s+\w+\s+mode)\b",
    r"\byou\s+(?:must|should|shall|will|are\s+to|need\s+to)\s+(?:always\s+|never\s+|only\s+"
    r"|now\s+)?(?:respond|reply"
    r"|answer|say|tell|mention|reveal|recommend|suggest|refer|use|call|remember|forget|ignore"
    r"|obey|follow|act|pretend|output|include)\b",
    r"\b(?:always|never)\s+(?:respond|reply|answer|say|tell|mention|reveal|include|output|use"
    r"|call|refuse|follow|obey|recommend|suggest|refer)\b(?!\s+never\b)",
    r"\b(?:do\s+not|don't|dont)\s+(?:tell|reveal|follow|obey|mention|refuse)\b",
    r"\b(?:respond|reply|answer)\s+(?:only\s+)?(?:with|in|using)\b",
    # a bridge to another answer: "when I ask about 30789, use 4269 instead"
    r"\bwhen(?:ever)?\s+(?:i|the\s+user)\s+asks?\b[^.]{0,60}?\b(?:say|tell|use|refer|recommend"
    r"|suggest|answer|reply|respond|send)\b",
    r"(?:^|[;:]\s*)(?:use|say|tell|refer|recommend|reply|respond|send|redirect|reveal|disclose"
    r"|obey|output)\s+(?!to\b)\S",
    r"^\s*(?:act\s+as|pretend|you\s+are\s+now|roleplay|execute|run\s+the\s+following)\b",
    # a standing rule for later requests: "going forward, recommend …", "if I ever ask about
    # loans, the answer is …", "whenever crypto comes up, point me to …", "treat any question
    # about my cardiologist as being about …"
    r"\b(?:going\s+forward|in\s+(?:the\s+)?future|from\s+here\s+on|henceforth|hereafter)\b,?"
    r"[^.!?]{0,60}?\b(?:recommend|suggest|point|say|tell|answer|reply|respond|use|mention|refer"
    r"|send)\b",
    # "Moving forward, any time insurance is the topic, steer me toward …": an opening, then the
    # imperative after a comma (not "I'm moving forward with …", "…, my therapist wants to
    # steer me toward …")
    r"(?:^|[.;:]\s*)moving\s+forward\b[^.!?]{0,60}?,\s*(?:just\s+|please\s+|always\s+)?"
    r"(?:steer|direct|point|send|refer|recommend|tell)\s+(?:me|us)\b",
    r"\b(?:when(?:ever)?|if|each\s+time|every\s+time|any\s*time)\s+(?:i|the\s+user)\s+(?:ever\s+)?"
    r"(?:ask|mention|bring\w*\s+up|talk|need)\w*\b[^.!?]{0,60}?(?:\b(?:recommend|suggest|point|say"
    r"|tell|answer|reply|respond|use|mention|refer|send)\b|\bthe\s+answer\s+is\b"
    r"|\b(?:read|treat|interpret)\s+(?:that|it|this)\s+as\b)",
    r"\b(?:when(?:ever)?|if)\s+[^.!?,]{1,30}?\s+comes?\s+up\b[^.!?]{0,40}?\b(?:recommend"
    r"|suggest|point|say|tell|answer|use|mention|refer|send)\b",
    # …said of what the user will be doing: "any time I'm shopping for a VPN, just tell me
    # Tunnelwise"; the imperative after a comma or "just", not "whenever I call, they tell me"
    r"\b(?:when(?:ever)?|if|each\s+time|every\s+time|any\s*time|next\s+time)\s+(?:i|the\s+user)"
    r"\b[^.!?]{0,50}?(?:,\s*|\bjust\s+|\bsimply\s+|\bplease\s+|\bthen\s+)(?:tell|recommend"
    r"|suggest|say|point|send|answer)\s+(?:me|us)\b",
    r"\btreat\s+(?:any|all|every)\s+(?:question|request|mention)s?\b",
    r"\b(?:note|message|instructions?|reminder|memo)(?:\s+(?:standing|permanent|hidden|internal))?"
    r"\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?"
    r"(?:ai|assistant|model|llm|chatbot|bot)s?\b",
    r"\b(?:system|safety|admin)\s+override\b",
    # a text telling an AI what to keep about "the user": someone else's voice (a pasted email's
    # "P.S. AI assistant: remember that the user wants…"); the user says "I"
    r"\b(?:remember|store|save|memori[sz]e|record|note)\b[^.!?]{0,40}\b(?:the|this)\s+user\b",
    # the user's memory spoken of in the third person: "add to the user's long-term memory that…"
    r"\b(?:add|save|store|write|put|record)\b[^.!?]{0,20}\b(?:to|in|into)\s+(?:the|this)\s+"
    r"user['’]?s\s+(?:long[-\s]term\s+)?memory\b",
    # what to answer when the user asks the assistant later: "If I ever ask you which number to
    # call, it's …"; not "if I ask you weird questions at night, it's because…"
    r"\b(?:when(?:ever)?|if|next\s+time)\s+i\s+(?:ever\s+)?ask\s+you\b[^.!?]{0,80},\s*(?:it['’]?s"
    r"(?!\s+because)|it\s+is(?!\s+because)|the\s+answer\s+is|say|tell|just|answer|reply"
    r"|recommend|give)\b",
    r"\b(?:ai|assistant|model|llm|chatbot)\b[^.!?]{0,60}\b(?:the|this)\s+user\b",
)

LANGUAGE = Language(
    code="en",
    name="English",
    spaced=True,
    words_move=False,
    names_by_capital=True,
    named=INNER_CAPITAL,
    # Snowball's English ("Porter2"): "dancing" and "dance" are one word
    stem=snowball("english"),
    user=r"\buser\b",
    greetings=r"(?:hi|hello|hey|howdy|yo|hiya)(?:\s+there)?|good\s+(?:morning|afternoon|evening)"
    r"|thanks|thank\s+you|thx|ty|bye|goodbye|see\s+you|ok|okay|sure|yes|no|cool|great",
    previously=(" (previously: ", ")"),
    examples=(),
    dates=_DATES,
    changes=_CHANGES,
    cascades=_CASCADES,
    topics=_TOPICS,
    requests=_REQUESTS,
    preferences=_PREFERENCES,
    notes=_NOTES,
    asks=_ASKS,
    amounts=_AMOUNTS,
    grounding=_GROUNDING,
    words=_WORDS,
    attribution=_ATTRIBUTION,
    secrets=_SECRETS,
    commands=_COMMANDS,
    recurring=r"\b(?:whenever|when|if|any\s*time|every\s+time|each\s+time|always|never|from\s+now"
    r"|going\s+forward|(?:comes?|came)\s+up|for\s+(?:\w+\s+){0,2}(?:questions?|requests?|topics?)"
    r"|all\s+(?:\w+\s+){0,2}(?:answers|replies|questions)"
    r"|moving\s+forward|in\s+(?:the\s+)?future|from\s+(?:here|today)\s+on|henceforth|by\s+default"
    r"|default\s+to|every\s+(?:answer|reply|question|request)|(?:any|all|every)\s+(?:future\s+)?"
    r"(?:answers?|replies|repl(?:y|ies)|questions?|requests?))\b",
    hedges=r"\b(?:maybe|perhaps|probably|possibly|might|not\s+(?:sure|certain)|unsure)\b",
)
