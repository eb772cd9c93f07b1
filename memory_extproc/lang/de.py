"""German: what the rules read in it. Data and patterns in lang/shape.py's shape.

German puts the participle last ("Ich habe mein Auto verkauft", "Wir sind nach Hamburg
umgezogen"): what ended or where one moved stands between the auxiliary and the verb. Nouns are
capitalised, so a place is not told from a noun by its capital alone (cascades read the words
after "in").
"""

from __future__ import annotations

import re
from datetime import date

import stopwordsiso

from memory_extproc.lang.shape import (
    CLAUSE_CHAR,
    LAST_CLAUSE_ASKS,
    SENTENCE_CHAR,
    WORD_OR_AMOUNT,
    Amounts,
    Asks,
    Attribution,
    Cascades,
    Changes,
    Dates,
    Example,
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

_WEEKDAYS = ("montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag")
_COUNTS = {"einem": 1, "einer": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6}
_MONTHS = ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September",
           "Oktober", "November", "Dezember")  # fmt: skip
_PERIODS = {"woche": "week", "wochenende": "weekend", "monat": "month", "jahr": "year"}
_UNITS = {"tag": "day", "tagen": "day", "woche": "week", "wochen": "week", "monat": "month",
          "monaten": "month", "jahr": "year", "jahren": "year"}  # fmt: skip


def _meaning(match: re.Match[str], said_on: date) -> When:
    if match["today"]:
        return days(0, said_on)
    if yesterday := match["yesterday"]:
        return days(-2 if yesterday.lower() == "vorgestern" else -1, said_on)
    if tomorrow := match["tomorrow"]:
        return days(2 if tomorrow.lower() == "übermorgen" else 1, said_on)
    if coming := match["next"]:
        return ahead(_PERIODS.get(coming.lower(), coming.lower()), said_on, _WEEKDAYS)
    if before := match["last"]:
        return last(_PERIODS.get(before.lower(), before.lower()), said_on, _WEEKDAYS)
    count = _COUNTS.get(match["count"].lower()) or int(match["count"])
    return counted(_UNITS[match["unit"].lower()], count, said_on)


_DATES = Dates(
    relative=re.compile(
        rf"""(?ix)(?<!\w)(?:
          (?P<today>heute(?:\s+(?:morgen|früh|mittag|nachmittag|abend))?)
          |(?P<yesterday>gestern|vorgestern)
          |(?<!am\s)(?<!jeden\s)(?<!guten\s)(?<!heute\s)(?P<tomorrow>übermorgen|morgen)
          |(?:nächste[nmrs]?|kommende[nmrs]?)\s+(?P<next>wochenende|woche|monat|jahr
            |{"|".join(_WEEKDAYS)})
          |(?:letzte[nmrs]?|vorige[nmrs]?|vergangene[nmrs]?)\s+(?P<last>wochenende|woche|monat|jahr
            |{"|".join(_WEEKDAYS)})
          |vor\s+(?P<count>\d{{1,2}}|{"|".join(_COUNTS)})\s+(?P<unit>tag(?:en)?|wochen?|monat(?:en)?
            |jahr(?:en)?)
        )(?!\w)"""
    ),
    meaning=_meaning,
    words={
        "day": "am {iso}",
        "week": "in der Woche vor dem {iso}",
        "weekend": "am Wochenende vor dem {iso}",
        "week_of": "in der Woche vom {iso}",
        "week_after": "in der Woche nach dem {iso}",
        "weekend_after": "am Wochenende nach dem {iso}",
        "month": "im {month} {year}",
        "year": "im Jahr {year}",
    },
    months=_MONTHS,
    short_months={},
    clause=re.compile(r"[,;]|\s(?:und|aber)\s"),
    dated=re.compile(rf"\b(?:\d{{4}}(?:-\d{{2}}){{0,2}}|{'|'.join(_MONTHS)})\b", re.IGNORECASE),
    duration=re.compile(
        r"(?<!vor\s)\b(?:\d+|einen|eine|ein|zwei|drei|vier|fünf|sechs|mehrere|einige)\s+"
        r"(?:tage?n?|wochen?|monate?n?|jahre?n?)\b",
        re.IGNORECASE,
    ),
    wrong_day=r"\b(?:am|im)\s+{day}\b",
    appended="{fact} {when}",
    # each wording has its preposition: "(im) letzten Monat" is "im November 2026"
    edge=r"(?<!\w)(?:(?:im|am|vom|in\s+de[rmn]|an\s+dem)\s+)?{}(?!\w)",
    point=r"\b(?:seit|bis|ab|von)\s+$",
    bare=((r"^im\s+Jahr\b", "dem Jahr"), (r"^(?:im|am|in)\s+", "")),
)

_STOP, _SENTENCE, _WORD = CLAUSE_CHAR, SENTENCE_CHAR, WORD_OR_AMOUNT
# the user, as a German fact names them (not "des Nutzers", another's)
_USER = r"(?:der\s+|die\s+)?(?:be)?nutzer(?:in)?\b"
_JOBS = (
    r"lehrer|krankenpfleger|krankenschwester|pflegekraft|ärzt|arzt|ingenieur|anwält|anwalt"
    r"|entwickler|programmierer|designer|grafikdesigner|koch|köchin|bäcker|erzieher|verkäufer"
    r"|polizist|journalist|architekt|schreiner|tischler|elektriker|kellner|berater|buchhalter"
)
_LOCAL_ENDINGS = (
    r"fitnessstudio|gym|halle|arzt|ärztin|praxis|klinik|apotheke|therapeut\w*|pendel\w*|bahn"
    r"|bus|schule|kita|kindergarten|verein|kirche|moschee|bibliothek|nachbar\w*|vermieter\w*"
    r"|wohnung|miete|supermarkt|café|friseur\w*|bad|chor|studio"
)

_CHANGES = Changes(
    # …and "des Nutzers" (the user's: "Der Mann des Nutzers, Markus, …")
    speaker=tuple(
        "ich mich mir mein meine meinen meinem meiner nutzer nutzers nutzerin benutzer benutzers "
        "benutzerin".split()
    ),
    be=("bin", "ist", "sind", "bist"),
    # "Ich lebe vegan": I am vegan
    become=("geworden", "wurde", "wurden", "lebe", "lebt"),
    filler=tuple(
        "jetzt inzwischen mittlerweile eigentlich tatsächlich nun doch wirklich noch schon ganz "
        "komplett derzeit aktuell übrigens lieber liebsten gern gerne".split()
    ),
    negation=("nicht", "kein", "keine", "keinen", "keinem", "keiner", "nie", "niemals"),
    frame_noise=("zu", "für", "von", "im", "auf", "mit", "und", "auch", "nach", "des"),
    when_words=tuple(
        "letzte letzten letztes letzter vorige vorigen woche monat jahr gestern heute vor tag "
        "wochen monaten jahren tagen".split()
    ),
    marker=r"\b(?:jetzt|inzwischen|mittlerweile|eigentlich|tatsächlich|nicht\s+mehr"
    r"|kein\w*\s+\w+\s+mehr|stattdessen|neue[nmrs]?|umgezogen|gezogen|gewechselt|geändert"
    r"|geworden|korrektur|meinte|mein\s+fehler|vertan|vertippt|verschrieben|ups|hoppla"
    r"|erhöht|gestiegen|gesenkt)\b",
    corrections=(
        rf"\bich\s+(?:hab|habe)\s+(?P<wrong>{_STOP}+?)\s+(?:gesagt|geschrieben|getippt)\s*[,;.]?"
        rf"\s*(?:aber\s+)?(?:ich\s+)?meinte\s+(?:aber\s+|eigentlich\s+)?(?P<right>{_STOP}+)",
        rf"\bich\s+meinte\s+(?P<right>{_STOP}+?)\s*,?\s+nicht\s+(?P<wrong>{_STOP}+)",
        # "nicht nur …, sondern auch …" adds, it corrects nothing
        rf"\bnicht\s+(?!(?:nur|bloß|bloss|einfach|allein)\b)"
        rf"(?P<wrong>{_STOP}+?)\s*,\s*sondern\s+(?P<right>{_STOP}+)",
        rf"\b(?:mein\s+fehler|sorry|entschuldigung|pardon|korrektur|ups|hoppla|vertippt"
        rf"|verschrieben|(?:hab|habe)\s+mich\s+vertan)\b"
        rf"{_SENTENCE}*?(?<!\w)(?P<right>{_WORD})"
        + unit_before(r"nicht")
        + rf"\s*,\s*nicht\s+(?P<wrong>{_WORD})",
    ),
    endings=(
        # "Ich habe mein Auto verkauft": between the auxiliary and the participle
        rf"\b(?:hab|habe|hat|haben|hatte)\s+(?P<object>{_STOP}+?)\s+(?:verkauft|aufgegeben"
        r"|abgemeldet|abgeschafft|verlassen|gekündigt|abgegeben|beendet|weggegeben|verschenkt"
        r"|an\s+den\s+nagel\s+gehängt)\b",
        rf"\b(?:verkaufte|verließ|kündigte|beendete)\s+(?P<object>{_STOP}+)",
        rf"\b(?:hab|habe|hat|haben)\s+mit\s+(?P<object>{_STOP}+?)\s+(?:aufgehört|schluss\s+gemacht)",
        r"\b(?:kein\w*)\s+(?P<object>\w+)\s+mehr\b",
        # "Mit Fußball ist Schluss"
        rf"\bmit\s+(?P<object>{_STOP}+?)\s+ist\s+(?:jetzt\s+|endgültig\s+|erstmal\s+)?schluss\b",
    ),
    left_job=r"\b(?:gekündigt|kündigte|in\s+rente\s+gegangen|pensioniert)\b",
    job_word="Stelle",
    # "Wir sind letzten Monat nach Hamburg umgezogen", "Der Nutzer zog nach Berlin"
    # (a model writes "Der Nutzer hat nach Hamburg gezogen" too)
    moved=rf"\b(?:ich\s+(?:bin|habe|hab)|wir\s+(?:sind|haben)|{_USER}\s+(?:ist|hat))\s+"
    rf"{_SENTENCE}{{0,60}}?\b(?:umgezogen|(?:nach|in\s+die|in\s+den|ins)\s+\S+(?:\s+\S+){{0,4}}?"
    rf"\s+(?:gezogen|hingezogen))\b|\b(?:ich|wir|{_USER})\s+(?:zog|zogen)\s+(?:\w+\s+){{0,3}}?nach\b"
    # …or said by the new home: "unsere neue Wohnung in Leipzig"
    r"|\b(?:unsere|meine)\s+neue\s+wohnung\s+in\b|\b(?:unser|mein)\s+neues\s+(?:haus|zuhause)\s+in\b",
    # "ich wohn(e)", and the verb first: "seit letztem Monat wohnen wir in Hamburg"
    residence=rf"\b(?:(?:ich|wir|{_USER})\s+(?:\w+\s+){{0,2}}?(?:wohne|wohnen|wohnt|wohn|lebe"
    r"|leben|lebt|leb)|(?:wohne|wohnen|wohn|lebe|leben|leb)\s+(?:ich|wir))\s+(?:\w+\s+){0,4}?in\b",
    settled=r"\bseit\s+(?:(?:letzte[mnr]?|vorige[mnr]?|diese[mnr]?)\s+(?:woche|wochenende|monat)"
    r"|kurzem|neuestem|gestern|(?:einer|einem|ein\s+paar|wenigen|zwei|drei|vier|fünf|sechs|\d+)"
    r"\s+(?:tag(?:en)?|wochen?)|(?:einem|zwei|drei)\s+monaten?|(?:anfang|mitte|ende)\s+(?:des"
    rf"\s+monats|der\s+woche|(?:{'|'.join(_MONTHS)})(?!\s+\d))|montag|dienstag|mittwoch|donnerstag"
    r"|freitag|samstag|sonntag)\b",
    switch=r"\b(?:gewechselt|umgestiegen|umgesattelt|geworden|nicht\s+mehr|aufgegeben"
    r"|gekündigt|ersetzt|umgezogen|gezogen)\b",
    when=r"(?:letzte[nmrs]?|vorige[nmrs]?|diese[nmrs]?|nächste[nmrs]?)\s+\w+|gestern|heute"
    r"|vorgestern|vor\s+\w+\s+\w+|am\s+\S+|im\s+\w+\s+\d{4}|im\s+jahr\s+\d{4}",
    object_end=r"\s+(?:und|aber)\s+(?=(?:jetzt|dann|ich|wir|der\s+nutzer|arbeite|bin)\b).*$",
    determiner=tuple(
        "mein meine meinen meinem meiner sein seine seinen seinem ihr ihre ihren ihrem der die "
        "das den dem ein eine einen einem unser unsere unseren".split()
    ),
    clause=r",\s*(?:und|aber)\s+|\s+und\s+(?=(?:mein|meine|ich|der\s+nutzer)\b)",
    people=r"\b(?:bruder|brüder|schwester\w*|mutter|vater|mama|papa|eltern|sohn|söhne|tochter"
    r"|töchter|frau|mann|ehemann|ehefrau|partner\w*|freund\w*|cousin\w*|tante|onkel|oma|opa"
    r"|großeltern|großmutter|großvater|kinder|kind|neffe|nichte)\b",
    job=rf"\b(?:ich|{_USER})\s+(?:\w+\s+){{0,2}}?(?:arbeite|arbeitet|unterrichte|unterrichtet)"
    rf"\s+(?:\w+\s+){{0,2}}?(?:als|bei|im|in|an)\b|\b(?:ich\s+bin|{_USER}\s+ist)\s+(?:\w+\s+)?"
    rf"(?:{_JOBS})\w*",
    beside=r"\b(?:zusätzlich|nebenbei|nebenher|nebenjob|teilzeit|am\s+wochenende"
    r"|an\s+wochenenden|außerdem)\b",
    born=r"\bgeboren\b|\bgebürtig\w*",
    routine=tuple(
        rf"\b(?:{d}s|{d}(?:morgen|vormittag|nachmittag|abend)s|jeden\s+{d})\b"
        for d in ("montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag")
    ),  # type: ignore[arg-type]
    expansions={},
)

_CASCADES = Cascades(
    home_place=(
        r"\b(?i:wohne|wohnen|wohnt|wohn|lebe|leben|lebt|leb)\s+(?:\w+\s+){0,4}?in\s+"
        r"(?P<place>[A-ZÄÖÜ][\w'-]*(?:\s+[A-ZÄÖÜ][\w'-]*)*)",
    ),
    children=r"\b(?:sohn|söhne|tochter|töchter|kind|kinder)\b",
    local=rf"\b\w*(?:{_LOCAL_ENDINGS})\b",
    past=r"\bfrüher\b|\behemals\b",
    until_move="Bis zum Umzug: {text}",
)

_TOPICS = Topics(
    work=rf"""(?ix)(?<!des\s)\b{_USER}[^,.;!?]{{0,40}}?\b(?:arbeit\w*|beruf\w*|job\w*|stelle
      |angestellt|gekündigt|kündigt\w*|rente|ruhestand|selbstständig|unterrichtet
      |ist\s+(?:\w+\s+)?(?:{_JOBS}))
    |\b(?:ich\s+arbeite|ich\s+unterrichte|ich\s+bin\s+(?:\w+\s+)?(?:{_JOBS}))""",
    work_word="Arbeit und Beruf",  # the job and the profession: questions ask by either
    # the user moving house or town ("Der Nutzer ist … nach Düsseldorf gezogen"), not a rope
    # pulled ("hat am Seil gezogen"); the window is wide: a resolved date lengthens it
    move=rf"""(?ix)(?<!des\s)\b(?:{_USER}|ich\s+bin|wir\s+sind)[^,;!?]{{0,80}}?\b(?:umgezogen
      |umziehen|zieht\s+um|zog\s+um|ausgewandert|ausgezogen|zog\s+nach
      |(?:nach|ins|in\s+die|in\s+den)\s+\S+(?:\s+\S+){{0,3}}?\s+(?:gezogen|hingezogen))\b
    |\bich\s+ziehe\b""",
    move_word="wohnt in",
    home_asked="Wo wohnt der Nutzer?",
)

_PREFERENCES = Preferences(
    # the user ("ich", "der Nutzer"; not "des Nutzers"), then within the sentence what they
    # like, avoid, cannot have, fear or keep as a diet
    standing=r"""(?<!des\s)\b(?:ich|wir|(?:der\s+|die\s+)?(?:be)?nutzer(?:in)?)\b
      [^.;!?]{0,40}?\b(?:mag|mögen|liebe|liebt|hasse|hasst|vermeide|vermeidet|meide|meidet
      |bevorzuge|bevorzugt|(?:esse|isst|trinke|trinkt)\s+(?:\w+\s+)?(?:kein\w*|nie|nicht)
      |\w*vegetari\w*|vegan\w*|pescetari\w*|flexitari\w*|allergi\w*|unverträglich\w*|angst\s+vor
      |fürchte\w*
      |(?:kann|darf)\s+(?:kein\w*|nicht)\s+\w+|am\s+liebsten|lieber|lieblings\w*|fan\s+von
      |halal|koscher|glutenfrei|laktosefrei|diabetiker\w*|zöliakie)\b
    |\bmein(?:e|en|em)?\s+lieblings\w*""",
    after_subject="",
    subject="",
    one_off=r"\b(?:heute|heute\s+abend|diese\s+woche|dieses\s+wochenende)\b",
    aversion=r"\b(?:hass(?:e|t|en)|vermeid\w*|meide\w*|mag\s+(?:\w+\s+)?(?:kein\w*|nicht)|angst|phobie"
    r"|allergi\w*|unverträglich\w*)\b",
    food=r"""\b(?:diät|ernährung|vegan\w*|vegetari\w*|koscher|halal|gluten\w*|laktose\w*|fleisch
      |schweinefleisch|diabet\w*|zöliakie|(?:erd)?nuss\w*allergi\w*|(?:esse|isst)\s+kein\w*
      |allergisch\s+(?:gegen|auf)\s+(?:\w+\s+)?(?:erdnüss\w*|nüss\w*|nuss\w*|eier\w*|weizen|soja
        |fisch|milch|sesam|meeresfrüchte|schalentier\w*))\b""",
    reason=r"(?:,\s*|\s+)(?:weil|wegen|aufgrund)\b.*$",
    but=r"\s+aber\s+",
)

# "Kannst du mir ein Restaurant empfehlen?", "Was soll ich heute kochen?", "Hilf mir, …"
_REQUESTS = Requests(
    open=r"""\b(?:empfiehl\w*|empfehl\w*|vorschl\w*|vorschläge|ideen?|tipps?|ratschl\w*
        |optionen|alternativen|planen|planung\w*|reiseplan\w*|anregung\w*)\b
    | \bschlag\s+(?:mir|uns)\b
    | \b(?:was|welche[nmrs]?|wo|wie|wohin)\b[^?!]{0,60}?\b(?:soll(?:te)?n?|könnte[nm]?|kann
        |würde[nm]?)\s+(?:ich|wir)\b
    | \bhilf\s+(?:mir|uns)\b
    | \b(?:gut|gute[nmrs]?|beste[nmrs]?|passend\w*)\b[^?!.]{0,40}\bfür\s+(?:mich|uns)\b
    | \b(?:ich\s+suche|wir\s+suchen|ich\s+plane|wir\s+planen)\b
    | \b(?:ein\w*|paar|neue\w*|gute\w*|mir|uns)\s+(?:\w+\s+){0,2}?(?:rezept\w*|menüs?
        |speiseplan\w*|trainingsplan\w*|playlist\w*|geschenk\w*)\b
    """,
    recounts=r"^\s*(?:wann|warum|wer)\b|\b(?:habe|hab|hat)\s+(?:ich|er|sie)\b[^?!]{0,40}"
    r"\b(?:empfohlen|vorgeschlagen|gesagt)\b",
    reminded=r"\bhilf\s+mir[,\s]+(?:mich\s+)?(?:zu\s+)?(?:erinnern|daran\s+zu\s+erinnern)\b",
    home=r"""\bwo\s+(?:ich|wir)\s+(?:wohne|wohnen|lebe|leben)\b
    | \bin\s+(?:meiner|unserer)\s+(?:Nähe|Stadt|Gegend|Region|Umgebung|Nachbarschaft)\b
    | \b(?:meine[rnms]?|unsere[rnms]?)\s+(?:Stadt|Gegend|Wohnort|Heimatstadt|Nachbarschaft
        |Viertel|Kiez|Umgebung)\b
    | \bbei\s+(?:mir|uns)\s+(?:in\s+der\s+(?:Nähe|Gegend|Stadt)|um\s+die\s+Ecke)\b
    | \bhier\s+in\s+der\s+Gegend\b""",
    work=r"""\b(?:ich|wir|mir|mich|uns|mein\w*)\b[^.?!]{0,60}?
        \b(?:(?:vor|nach|bei|auf)\s+der\s+Arbeit|zur\s+Arbeit|Arbeitsweg)\b
    | \b(?:meine[rnms]?)\s+(?:Job|Beruf|Schicht|Schichten|Büro|Arbeitsplatz|Arbeitgeber
        |Arbeitsstelle|Dienst)\b""",
)

_NOTES = Notes(
    small_talk="danke toll genau klar prima cool schön gut okay ja nein stimmt wow "
    "glückwunsch gerne",
    vocative=r"hey|hallo|danke",
    memory_command=r"\b(?:vergiss|merk\s+dir\s+(?:das\s+)?nicht|nicht\s+(?:merken|speichern))\b",
    holding="nutzer mag liebe liebt gerne normalerweise meistens wirklich besonders immer",
    not_held="",
    refusal=r"(?:es\s+tut\s+mir\s+leid|entschuldigung,|ich\s+kann\s+(?:dir\s+)?(?:dabei\s+)?"
    r"nicht\s+helfen)",
    reminder=r"^nur\s+zur\s+erinnerung[:,]\s*",
    requested=r"[,;]\s*(?:also\s+|und\s+)?bitte\s+(?:kein\w*|nicht|ohne)\b[^.;!?]*(?=[.!]?\s*$)",
)

_ASKS = Asks(
    asks=r"(?:(?:und|also|ok(?:ay)?|hey|hallo|bitte)[\s,]+)*(?:was|wo|wann|wer|wie|warum|welche[nmrs]?"
    r"|kannst|könntest|hast|gibt|sag|erzähl|erinnere|zeig|empfiehl|hilf|schreib|erklär)\b",
    commands=r"(?:übersetze|übersetz|schreibe?|fasse|erstelle|korrigiere|berechne|formuliere"
    r"|generiere|ignoriere|liste)\b",
    speaker=r"\b(?:ich|mein\w*|mir|mich)\b",
    trailing=LAST_CLAUSE_ASKS,
)

_AMOUNTS = Amounts(
    asks=r"\bwie\s+(?:lange|viele?|oft|alt|weit)\b",
    words=tuple(
        "zwei drei vier fünf sechs sieben acht neun zehn zwölf zwanzig dutzend hundert einmal "
        "zweimal dreimal mehrmals täglich wöchentlich monatlich jährlich".split()
    ),
    every=r"\bjede[nsm]?\s+(?:tag|woche|monat|jahr|morgen|abend|montag|dienstag|mittwoch"
    r"|donnerstag|freitag|samstag|sonntag|wochenende)",
    counted="",
    vague=r"und\s+(?:das|dies|die\s+andere|der\s+andere)|was\s+noch",
)

_GROUNDING = Grounding(
    conversation=r"der\s+nutzer\s+(?:spricht|sprach|plaudert|unterhält\s+sich)\s+mit\s+\S+",
    courtesy=r"der\s+nutzer\s+(?:dankt|bedankt\s+sich\s+bei|gratuliert|verabschiedet\s+sich\s+von)"
    r"\s+(?!(?:seine[mnr]?|ihre[mnr]?|der|dem|den)\b)[^\s,]+(?:\s+[^\s,]+){0,2}?$",
    says_more=r"\b(?:aber|obwohl|jedoch)\b",
    we=r"\b(?:wir|uns|unser(?:e[mnrs]?)?)\b",
    addressing=r"\b(?:du|dich|dir|dein\w*)\b",
    answering=r"\bich\s+(?:würde|empfehle|schlage|denke|glaube|hoffe|verstehe)\b",
    pointer="",
    choice_talk="",
    demonstrative="",
    suggests=r"\b(?:könnte|könnten|sollte|sollten)\b",
    advice="",
    # "Ich nehme die zweite Option", "Das klingt gut", "Die anderen Vorschläge sagen mir nicht zu";
    # not "ich nehme an" (I suppose)
    picks=r"\b(?:nehme(?!\s+an\b)|nehmen\s+wir|wähl(?:e|en|te)|entscheide\s+mich\s+für"
    r"|entscheiden\s+uns\s+für|klingt\s+(?:\w+\s+){0,3}?(?:perfekt|gut|toll|super|ideal|interessant)"
    r"|gefällt\s+mir\s+am\s+besten|(?:wäre|passt)\s+(?:\w+\s+){0,2}?am\s+besten"
    r"|(?:sagt|sagen)\s+mir\s+nicht\s+zu)\b",
    options=r"\b(?:option(?:en)?|möglichkeit(?:en)?|vorschl(?:ag|äge)|die\s+anderen"
    r"|(?:erste|zweite|dritte|vierte|letzte)n?\s+(?:option|vorschlag)|keine[rns]?\s+davon)\b",
    draft="",
)

_WORDS = Words(
    # stopwords-iso's, but for "Mann" (man, husband): a person of the user's, as "Frau" is
    stopwords=frozenset(stopwordsiso.stopwords("de")) - {"mann"},
    abbreviations=r"z\.\s?b|d\.\s?h|bzw|usw|nr|str",
    joining=frozenset(),
    not_names=frozenset(),
    memory_voice={},
)
_ATTRIBUTION = Attribution(holder="", user_head="", pointing="")

_SECRETS = Secrets(
    password=r"\b(?:Passwort|Kennwort|Zugangscode|(?-i:PIN))\b"
    r"(?:\s+(?:ist|lautet|war)\s*[:=]?|\s*[:=])\s*"
    # …not what became of it: "mein Passwort ist falsch."
    r"(?!(?:gestohlen|gehackt|falsch|sicher|unsicher|abgelaufen|neu|alt|lang|kurz|schwach"
    r"|stark|ungültig|geändert)\b)",
    token=r"\b(?:API-?Schlüssel|API[\s-]?Key|Zugangstoken|Access[\s-]?Token|Token)\b"
    r"(?:\s+(?:ist|lautet|war)\s*[:=]?|\s*[:=])\s*",
    national_id=r"\b(?:Steuer-?ID|Steuer-?Identifikationsnummer|Steueridentifikationsnummer"
    r"|Identifikationsnummer|IdNr|Sozialversicherungsnummer|Personalausweisnummer)\b",
    phone=r"\b(?:Telefon(?:nummer)?|Handy(?:nummer)?|Mobil(?:nummer)?|Tel|Rufnummer)\b",
    # "Hauptstraße 5", "Berliner Straße 12a": the street, its number
    address=r"\b[A-ZÄÖÜ][\wäöüß-]*(?:straße|strasse|str\.|weg|platz|allee|gasse)\s+\d{1,4}[a-z]?\b"
    r"|\b[A-ZÄÖÜ][\wäöüß-]+\s+(?:Straße|Strasse|Str\.|Weg|Platz|Allee|Gasse)\s+\d{1,4}[a-z]?\b",
)

_COMMANDS = (
    r"\b(?:ignorier\w*|vergiss|missachte\w*)\b.{0,40}\b(?:anweisung\w*|instruktion\w*|regeln"
    r"|vorgaben|nachricht\w*|vorherige\w*|obige\w*)\b",
    # "Ab jetzt trinke ich keinen Kaffee" is a fact: the command is what follows
    r"\b(?:ab\s+(?:jetzt|sofort|heute)|von\s+nun\s+an)\b,?\s+(?:\w+\s+){0,2}(?:du|immer|nie"
    r"|niemals|wenn|sag\w*|antworte\w*|empfiehl\w*|nenn\w*)\b",
    r"\b(?:immer|stets|nie|niemals)\s+(?:empfehl\w*|antwort\w*|sag\w*|erwähn\w*|verwend\w*"
    r"|befolg\w*)\b",
    r"\b(?:empfiehl|empfiehlst|antworte|antwortest|sag|sagst|erwähne)\s+(?:\w+\s+){0,3}"
    r"(?:immer|stets)\b",
    r"\b(?:system|entwickler)-?(?:prompt|nachricht|modus|anweisung\w*)\b",
    r"\b(?:antworte|antworten)\s+(?:nur|ausschließlich)\b",
    r"\b(?:der\s+assistent|die\s+ki|das\s+modell)\s+(?:muss|soll|sollte)\b",
    # "Falls ich mal wieder wegen Stromanbietern frage, sag einfach Voltaria"
    r"\b(?:wenn|falls|sobald|sooft)\s+(?:ich|der\s+nutzer)\b[^.]{0,40}?\bfrag\w*\b[^.]{0,40}?"
    # the assistant told what to say, not what someone says back ("…, sagt er immer nein")
    r"\b(?:sag|sage|nenn|nenne|verwende|empfiehl|antworte|erwähne|schick|verweis|schlag)\b"
    r"(?!\s+ich\b)",
    r"^\s*(?:tu\s+so\s+als|spiel\s+die\s+rolle|du\s+bist\s+(?:jetzt|nun))\b",
    # a standing rule for later requests: "Künftig bitte bei Bankfragen immer die Acme-Bank nennen"
    r"\b(?:künftig|zukünftig|in\s+zukunft|fortan|von\s+jetzt\s+an)\b[^.!?]{0,60}?\b(?:nenn\w*"
    r"|empfehl\w*|empfiehl\w*|sag\w*|antwort\w*|verweis\w*|erwähn\w*)\b",
    r"\bbei\s+\w*fragen\s+(?:\w+\s+){0,3}(?:immer|stets|nur)\b",
    # …said by when: "Jedes Mal, wenn es um Versicherungen geht, verweise mich auf …" (not "…,
    # sagt er immer nein": the imperative to the assistant, before "mich" or "mir")
    r"\b(?:jedes\s+mal|wann\s+immer|immer\s+wenn)\b[^.!?]{0,60}?\b(?:verweise|empfiehl|nenne?"
    r"|sag|sage|schick|schicke|erwähne|schlag|antworte)\s+(?:mich|mir|uns)\b",
    r"\b(?:hinweis|anweisung\w*|notiz|nachricht)\s+(?:an|für)\s+(?:die\s+|den\s+|das\s+|alle\s+)?"
    r"(?:automatisierte\w*\s+)?(?:ki\b(?:-\w+)?|ki-assistent\w*|assistenten\b|assistenzsystem\w*"
    r"|sprachmodell\w*|modell\b|chatbots?)",
    r"\b(?:im|ins)\s+gedächtnis\s+des\s+nutzers\s+(?:\w+\s+){0,2}(?:hinterleg|speicher|ablegen"
    r"|vermerk|eintrag)",
    # "wenn ich dich frage, an wen …, dann ist das …": what to answer when the assistant is asked
    r"\b(?:wenn|falls|sobald)\s+ich\s+dich\b[^.!?]{0,60}\bfrag\w*\b(?:\s*,[^.!?,]{0,60})?\s*,\s*"
    r"(?:dann\s+(?!weil\b|deshalb\b)\w+\b(?!\s+ich\b)|ist\s+(?:das|es)|lautet|sag|nenn|antworte"
    r"|empfiehl)\b",
    r"\b(?:merk\w*|speicher\w*|notier\w*)\b[^.!?]{0,40}\b(?:der|dieser|die|diese|den|diesen"
    r"|dem|diesem)\s+nutzer(?:in)?\b",
)

LANGUAGE = Language(
    code="de",
    name="German",
    spaced=True,
    words_move=True,
    names_by_capital=False,
    named="",
    stem=snowball("german"),
    user=r"\b(?:be)?nutzer(?:in|s)?\b",  # "des Nutzers": the user's, as "del usuario"
    greetings=r"hallo|hi|hey|moin|servus|guten\s+(?:morgen|tag|abend)|danke(?:\s+(?:schön|sehr))?"
    r"|vielen\s+dank|tschüss?|bis\s+dann|alles\s+klar|super|ja|nein|gerne|klar",
    previously=(" (vorher: ", ")"),
    examples=(
        Example(
            (),
            "Ich arbeite seit 2019 als Krankenpflegerin in Leipzig.",
            ("Der Nutzer arbeitet seit 2019 als Krankenpflegerin in Leipzig",),
        ),
        Example(
            ("Der Nutzer hat dienstags Töpferkurs",),
            "Sorry, ich hab Dienstag gesagt, aber ich meinte Donnerstag.",
            ("Der Nutzer hat donnerstags Töpferkurs",),
        ),
    ),
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
    recurring=r"\b(?:immer|nie|niemals|stets|jedes\s+mal|wann\s+immer|wenn|künftig|zukünftig|in\s+zukunft"
    r"|ab\s+(?:jetzt|sofort|heute)|fortan|standardmäßig|bei\s+\w*fragen|wenn\s+es\s+um)\b",
    hedges=r"\b(?:vielleicht|wahrscheinlich|möglicherweise|eventuell|vermutlich|nicht\s+sicher)\b",
)
