"""Spanish: what the rules read in it. Data and patterns in lang/shape.py's shape."""

from __future__ import annotations

import re
from datetime import date

import stopwordsiso

from memory_extproc.lang.shape import (
    CLAUSE_CHAR,
    INNER_CAPITAL,
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

_WEEKDAYS = ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo")
_COUNTS = {"un": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6}
_MONTHS = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
           "septiembre", "octubre", "noviembre", "diciembre")  # fmt: skip
_PERIODS = {"semana": "week", "fin de semana": "weekend", "mes": "month", "año": "year"}


def _meaning(match: re.Match[str], said_on: date) -> When:
    if match["today"]:
        return days(0, said_on)
    if match["yesterday"]:
        return days(-2 if match["yesterday"] == "anteayer" else -1, said_on)
    if match["tomorrow"]:
        return days(2 if match["tomorrow"].lower().startswith("pasado") else 1, said_on)
    if coming := match["next"] or match["coming"]:
        return ahead(_PERIODS.get(coming.lower(), coming.lower()), said_on, _WEEKDAYS)
    for period in ("week", "weekend", "month", "year"):
        if match[period]:
            return last(period, said_on, _WEEKDAYS)
    if weekday := (match["weekday"] or "").lower():
        return last(weekday, said_on, _WEEKDAYS)
    count = _COUNTS.get(match["count"].lower()) or int(match["count"])
    unit = {"día": "day", "semana": "week", "mes": "month", "año": "year"}[match["unit"].lower()]
    return counted(unit, count, said_on)


_DATES = Dates(
    relative=re.compile(
        rf"""(?ix)(?<!\w)(?:
          (?P<today>hoy|esta\s+(?:mañana|tarde|noche))
          |(?P<yesterday>ayer|anoche|anteayer)
          |(?<!la\s)(?<!una\s)(?<!cada\s)(?<!por\s)(?<!de\s)(?<!esta\s)(?<!el\s)
            (?<!media\s)(?<!turno\s)(?P<tomorrow>pasado\s+mañana|mañana)
          |(?:el\s+|la\s+)?próxim[oa]\s+(?P<next>fin\s+de\s+semana|semana|mes|año
            |{"|".join(_WEEKDAYS)})(?!\s+(?:santa|nuevo)\b)
          |(?:el\s+|la\s+)?(?P<coming>fin\s+de\s+semana|semana|mes|año)\s+que\s+viene
          |(?:el\s+)?(?P<weekend>fin\s+de\s+semana)\s+pasado
          |(?:la\s+)?(?P<week>semana)\s+pasada
          |(?:el\s+)?(?P<month>mes)\s+pasado
          |(?:el\s+)?(?P<year>año)\s+pasado
          |(?:el\s+)?(?P<weekday>{"|".join(_WEEKDAYS)})\s+pasado
          |hace\s+(?P<count>\d{{1,2}}|{"|".join(_COUNTS)})\s+(?P<unit>día|semana|mes|año)(?:e?s)?
        )(?!\w)"""
    ),
    meaning=_meaning,
    words={
        "day": "el {iso}",
        "week": "la semana antes del {iso}",
        "weekend": "el fin de semana antes del {iso}",
        "week_of": "la semana del {iso}",
        "week_after": "la semana después del {iso}",
        "weekend_after": "el fin de semana después del {iso}",
        "month": "en {month} de {year}",
        "year": "en {year}",
    },
    months=_MONTHS,
    short_months={},
    clause=re.compile(r"[,;]|\s(?:y|pero)\s"),
    dated=re.compile(rf"\b(?:\d{{4}}(?:-\d{{2}}){{0,2}}|{'|'.join(_MONTHS)})\b", re.IGNORECASE),
    duration=re.compile(
        rf"(?<!hace\s)\b(?:\d+|{'|'.join(_COUNTS)}|varios|varias|unos|unas)\s+"
        r"(?:días?|semanas?|mes(?:es)?|años?)\b",
        re.IGNORECASE,
    ),
    wrong_day=r"\b(?:el|en)\s+{day}\b",
    appended="{fact} {when}",
    # "(en) el mes pasado" is "en noviembre de 2026"
    edge=r"(?<!\w)(?:(?:en|durante)\s+)?{}(?!\w)",
    point=r"\b(?:desde|hasta)\s+$",
    bare=((r"^en\s+", ""),),
)

_STOP, _SENTENCE, _WORD = CLAUSE_CHAR, SENTENCE_CHAR, WORD_OR_AMOUNT
# the jobs a statement names, by their stems ("enfermera", "profesores")
_JOBS = (
    r"ingenier|médic|enfermer|profesor|maestr|abogad|programador|diseñador|contador|contable"
    r"|cociner|periodista|arquitect|carpinter|panader|camarer|conductor|gerente|director"
    r"|vendedor|policía|agricultor|técnic|analista|consultor"
)
# a move to a team, a department or a post is not a move of home
_NOT_A_HOME = r"(?!\s+a(?:l|\s+la|\s+otr[oa])?\s+(?:equipo|departamento|puesto|área|sección))"

_CHANGES = Changes(
    speaker=tuple("yo mi mis mí usuario usuaria usuarios".split()),
    be=tuple("es soy eres somos está estoy".split()),  # not "son" (a son)
    become=(),  # "me volví vegano" reads as a change (marker), the verb as a word
    filler=tuple(
        "ahora actualmente realmente también todavía completamente totalmente últimamente bueno "
        "pues ya".split()
    ),
    negation=("no", "nunca", "jamás"),
    frame_noise=("de", "del", "para", "con"),
    when_words=tuple("pasado pasada semana mes año ayer hoy hace día".split()),
    marker=r"\b(?:ahora|actualmente|ya\s+no|en\s+realidad|últimamente|hoy\s+en\s+día"
    r"|cambi(?:é|ó|ado|o)|pas(?:é|ó)\s+a|me\s+volví|se\s+volvió|me\s+hice|se\s+hizo|nuev[oa]s?"
    r"|me\s+mudé|se\s+mudó|sub(?:ió|ieron)|baj(?:ó|aron)|quise\s+decir|corrección"
    r"|me\s+equivoqué)\b",
    corrections=(
        rf"\b(?:dije|escribí|puse)\s+(?P<wrong>{_STOP}+?)\s*[,;.]?\s*(?:pero\s+)?quise\s+decir\s+"
        rf"(?P<right>{_STOP}+)",
        rf"\bquise\s+decir\s+(?P<right>{_STOP}+?)\s*,?\s+no\s+(?P<wrong>{_STOP}+)",
        # "no solo …, sino también …" adds, it corrects nothing
        rf"\bno\s+(?!(?:s[oó]lo|solamente|únicamente|simplemente)\b)"
        rf"(?P<wrong>{_STOP}+?)\s*,\s*sino\s+(?P<right>{_STOP}+)",
        rf"\b(?:me\s+equivoqué|me\s+confundí|perd(?:ón|ona)|error|corrijo)\b"
        rf"{_SENTENCE}*?(?<!\w)(?P<right>{_WORD})"
        + unit_before(r"no")
        + rf"\s*,\s*no\s+(?P<wrong>{_WORD})",
    ),
    endings=(
        r"\b(?:vend(?:í|i|ió|imos|ieron)|dej(?:é|ó)|renunci(?:é|ó)\s+a|cancel(?:é|ó)"
        r"|me\s+deshice\s+de|se\s+deshizo\s+de|termin(?:é|ó)\s+con|me\s+jubilé\s+de"
        r"|se\s+jubiló\s+de|me\s+salí\s+de|se\s+salió\s+de|regal(?:é|ó)|ya\s+no\s+\w+)"
        rf"\s+(?P<object>{_STOP}+)",
    ),
    left_job=r"\b(?:renunci(?:é|ó)|dimit(?:í|ió)|me\s+jubilé|se\s+jubiló)\b",
    job_word="trabajo",
    moved=r"\b(?:me\s+mud(?:é|o)|nos\s+mud(?:amos|aremos)|me\s+he\s+mudado|nos\s+hemos\s+mudado"
    r"|(?:el\s+usuari[oa]|la\s+usuaria)\s+(?:\w+\s+){0,2}?(?:se\s+)?(?:mudó|ha\s+mudado))"
    r"\s+(?:a|para)\b"
    # …or said by the new home: "el depa nuevo en Querétaro", "ya instalados en Querétaro"
    r"|\b(?:el|un|mi|nuestro|nuestra|la|una)\s+(?:depa|departamento|piso|apartamento|casa)"
    r"\s+nuev[oa]\s+en\b|\bya\s+(?:estamos\s+)?instalad[oa]s\s+en\s+(?:(?-i:[A-ZÁÉÍÓÚÑ])|(?:el|la|nuestro"
    r"|nuestra)\s+(?:depa|departamento|piso|apartamento|casa))",
    # the user's home: the first person, said alone ("Vivo en Puebla"), or "el usuario" (not "El
    # hermano del usuario, Tomás, vive en Denver")
    residence=r"(?:(?:^|[¡¿.,;:!?]\s*|\b(?:yo|nosotr[oa]s)\s+(?:\w+\s+){0,2}?)(?:vivo|vivimos|resido)"
    r"|\b(?:el\s+usuari[oa]|la\s+usuaria)\b[^.;!?]{0,40}?\b(?:vive|viven|reside))"
    r"\s+(?:\w+\s+){0,2}?en\b",
    settled=r"\bdesde\s+(?:hace\s+(?:un|una|unos|unas|dos|tres|cuatro|cinco|seis|pocos|pocas"
    r"|\d+)\s+(?:días?|semanas?|mes(?:es)?)|el\s+(?:mes|fin\s+de\s+semana)\s+pasado|la\s+semana"
    r"\s+pasada|ayer|(?:principios|inicios|finales|mediados)\s+de(?:l)?\s+mes|el\s+(?:lunes"
    r"|martes|miércoles|jueves|viernes|sábado|domingo))\b",
    switch=r"\b(?:cambi(?:é|ó)|me\s+volví|se\s+volvió|me\s+hice|se\s+hizo|ya\s+no|dej(?:é|ó)"
    r"|renunci(?:é|ó)|reemplac(?:é|ó)|pas(?:é|ó)\s+a|me\s+mudé|nos\s+mudamos|se\s+mudó)\b",
    when=r"(?:la|el)\s+(?:semana|mes|año)\s+pasad[oa]|ayer|hoy|hace\s+\w+(?:\s+\w+)?"
    r"|en\s+\d{4}|en\s+[a-z]+\s+de\s+\d{4}",
    object_end=r"\s+(?:y|pero)\s+(?=(?:ahora|luego|ya|yo|el\s+usuari[oa]|soy|es|estoy|está"
    r"|trabajo|trabaja)\b).*$",
    determiner=tuple("mi mis su sus el la los las un una este esta ese esa".split()),
    clause=r",\s*(?:y|pero)\s+",
    people=r"\b(?:herman[oa]s?|madre|padre|mamá|papá|padres|hij[oa]s?|espos[oa]|marido|mujer"
    r"|pareja|amig[oa]s?|prim[oa]s?|tí[oa]s?|abuel[oa]s?|novi[oa])\b",
    job=r"(?:\bel\s+usuari[oa]|\bla\s+usuaria|^|[.!¡,]\s*|\by\s+)\s*(?:ahora\s+|actualmente\s+)?"
    rf"(?:trabaj[ao]\s+(?:de|como|en|para)|(?:es|soy)\s+(?:{_JOBS})\w*|da\s+clases"
    r"|doy\s+clases)",
    beside=r"\b(?:además|también|los\s+fines\s+de\s+semana|a\s+tiempo\s+parcial)\b",
    born=r"\bnac(?:í|ió|ido|ida)\b",
    routine=tuple(
        rf"\b(?:los\s+{many}|cada\s+{one})\b"
        for one, many in (
            ("lunes", "lunes"),
            ("martes", "martes"),
            ("miércoles", "miércoles"),
            ("jueves", "jueves"),
            ("viernes", "viernes"),
            ("sábado", "sábados"),
            ("domingo", "domingos"),
        )
    ),  # type: ignore[arg-type]
    expansions={"soy": "yo soy", "estoy": "yo estoy"},  # the pronoun dropped
)

_CASCADES = Cascades(
    home_place=(
        r"\b(?i:vivo|vivimos|vive|viven|resido|reside)\s+en\s+"
        r"(?P<place>[A-ZÁÉÍÓÚÑ][\w'-]*(?:\s+[A-ZÁÉÍÓÚÑ][\w'-]*)*)",
    ),
    children=r"\b(?:hij[oa]s?|niñ[oa]s?|pequeñ[oa]s?)\b",
    local=r"\b(?:gimnasio|médic[oa]|dentista|clínica|terapeuta|farmacia|veterinari[oa]|trayecto"
    r"|autobús|escuela|colegio|guardería|iglesia|biblioteca|vecin[oa]s?|caser[oa]|apartamento"
    r"|piso|alquiler|renta|supermercado|cafetería|peluquería|piscina|coro)\b",
    past=r"\bsolía\b",
    until_move="Hasta la mudanza: {text}",
)

_TOPICS = Topics(
    # "El usuario …" (not "… del usuario") or the user's own verb ("trabajo de", "soy enfermera")
    work=rf"""(?ix)(?<!del\s)\busuario\b[^,.;!?]{{0,40}}?\b(?:
      trabaj|emplead|desemplead|profesión|oficio|jubil|renunci|dimiti|despedid
      |dejó\s+su\s+(?:trabajo|empleo|puesto)|es\s+(?:una?\s+)?(?:{_JOBS}))
    |\b(?:trabajo\s+(?:de|como|en|para)|soy\s+(?:una?\s+)?(?:{_JOBS})|me\s+jubilé|renuncié
      |dejé\s+mi\s+(?:trabajo|empleo|puesto)|me\s+despidieron)""",
    work_word="trabajo",
    move=rf"""(?ix)(?<!del\s)(?<!de\sla\s)\busuari[oa]\b(?:\s+y\s+su\s+\w+)?
      (?:\s+(?:ya|también|recientemente|finalmente|quiere|va\s+a|piensa|planea|está))?
      \s+(?:se\s+(?:ha\s+|han\s+|va\s+a\s+|van\s+a\s+|está\s+)?)?
      (?:mud(?:ó|aron|ado|ará|arán|a|an|ando|arse)|traslad(?:ó|aron|ado|ará|arse)|emigró
        |(?:fue|fueron|ido)\s+a\s+vivir){_NOT_A_HOME}\b
    |\bme\s+(?:mudé|he\s+mudado|acabo\s+de\s+mudar|voy\s+a\s+mudar|mudo|trasladé
      |fui\s+a\s+vivir){_NOT_A_HOME}\b""",
    move_word="vive en",
    home_asked="¿Dónde vive el usuario?",
)

# Cannot eat, drink or stand ("no puedo comer gluten"), not how much ("no puedo comer más")
# nor "tomar" a decision, a holiday or a train
_CANNOT = (
    r"(?:comer|beber|ingerir|consumir|soportar|tolerar|digerir"
    r"|tomar(?!\s+(?:vacaciones|decisiones|una\s+decisión|el\s+(?:tren|autobús|avión|metro))))"
    r"\w*(?!\s+(?:más|tanto|nada)\b)"
)
_PREFERENCES = Preferences(
    # Spanish drops the pronoun: the user's own verb form ("prefiero", "no como", "me encanta",
    # "soy alérgico"), or "(el/al) usuario" before a third person's, not "… del usuario"
    standing=rf"""\b(?:
      me\s+(?:gusta|gustan|encanta|encantan|fascina|horroriza|apasiona|apasionan|mareo)
        (?!\s*(?:mucho|much[ií]simo)?\s*[!.…]*\s*$)  # of nothing named: "…, ¡me encanta!"
      |no\s+me\s+(?:gusta|gustan|interesa)|soy\s+(?:una?\s+)?(?:gran\s+|muy\s+)?(?:fan|aficionad)
      |valoro|no\s+confío|mi\s+(?:máxima\s+|principal\s+|primera\s+)?prioridad
      |(?:uso|en)\s+silla\s+de\s+ruedas|presupuesto\s+(?:ajustado|limitado|reducido)
      |no\s+soy\s+(?:una\s+persona\s+)?madrugador|me\s+pongo\s+nervios
      |no\s+puedo\s+con\s+(?:el|la|los|las)\b|no\s+me\s+dejan?\s+{_CANNOT}
      |no\s+puedo\s+(?:conducir|volar|subir\s+escaleras
        |(?:usar|tomar|coger)\s+(?:el\s+)?(?:transporte\s+público|metro|autobús|avión))
      |soy\s+(?:diabétic|abstemi)|tengo\s+diabetes|dejé\s+de\s+(?:beber|fumar|comer|tomar)
      |no\s+tomo\s+(?:alcohol|café|cafeína|lácteos|leche|azúcar|vino|cerveza|refrescos|carne)
      |prefiero|odio|detesto|evito|temo|rechazo|soy\s+(?:ahora\s+|ya\s+)?(?:\w*vegetarian|vegan|pescetarian
        |flexitarian|alérgic|celíac|intolerante)
      |no\s+(?:como|bebo|soporto|tolero|uso|consumo)|solo\s+(?:como|bebo|uso|compro|visto)
      |(?:no|tampoco|nunca)\s+(?:l[oae]s?\s+)?(?:puedo|podemos)\s+{_CANNOT}
      |tengo\s+(?:miedo|fobia|alergia|intolerancia|aversión)|sigo\s+una\s+dieta)\w*
    |(?<!del\s)\busuario\b[^,.;!?]{{0,40}}?\b(?:
      gusta|gustan|encanta|encantan|prefiere|odia|detesta|evita|teme|rechaza|se\s+opone
      |es\s+(?:ahora\s+|ya\s+)?(?:\w*vegetarian|vegan|pescetarian|flexitarian|alérgic|celíac
        |intolerante)|no\s+(?:come|bebe|soporta|tolera|usa
      |consume)
      |(?:no|tampoco|nunca)\s+(?:l[oae]s?\s+)?pueden?\s+{_CANNOT}
      |solo\s+(?:come|bebe|usa|compra|viste)|es\s+(?:una?\s+)?(?:gran\s+|muy\s+)?(?:fan|aficionad)
      |le\s+apasiona|valora|no\s+confía|se\s+marea|usa\s+silla\s+de\s+ruedas
      |es\s+(?:diabétic|abstemi)|tiene\s+diabetes|no\s+puede\s+con\s+(?:el|la|los|las)\b
      |tiene\s+(?:miedo|fobia|alergia
      |intolerancia|aversión)|sigue\s+una\s+dieta|favorit|preferid|no\s+le\s+interesa)\w*""",
    after_subject="",
    subject="",
    one_off=r"\b(?:hoy|esta\s+(?:noche|mañana|tarde|semana)|mañana|este\s+fin\s+de\s+semana)\b",
    aversion=r"\b(?:odi\w*|evit\w*|no\s+me\s+gusta\w*|miedo|alérgic\w*)\b",
    food=r"""\b(?:dieta|vegetarian[oa]s?|vegan[oa]s?|kosher|halal|gluten|lactosa|carne|cerdo|mariscos
      |diabétic[oa]s?|diabetes|celíac[oa]s?
      |(?:no|tampoco|nunca)\s+(?:l[oae]s?\s+)?(?:puedo|puede|podemos)\s+(?:comer|beber|tomar|ingerir)\w*
      (?!\s+(?:más|tanto|nada)\b)
      |alérgic\w*\s+a\s+(?:(?:los|las|la|el)\s+)?(?:cacahuetes|maní|frutos\s+secos|nueces
        |mariscos|huevos?|trigo|soja|pescado|leche|sésamo))\b""",
    reason=r"(?:,\s*|\s+)(?:porque|debido\s+a|ya\s+que|por\s+razones)\b.*$",
    but=r"\s+pero\s+",
)

# "recomiéndame", "¿qué me sugieres…?", "ideas para…", "¿qué debería…?"
_REQUESTS = Requests(
    open=r"""\b(?:recomi[eé]nd\w*|recomendaci\w*|suger\w*|sugi[eé]r\w*|ideas?|consejos?|opciones
        |planifica\w*|planea\w*|itinerario)\b
    | \bqu[eé]\b[^?!]{0,60}?\b(?:deber[ií]a|podr[ií]a|puedo|debo)\b
    | \b(?:para\s+m[ií]|ay[uú]dame\s+a)\b
    | \b(?:una?s?|alg[uú]na?s?|me|nos|nuevas?|buenas?)\s+(?:\w+\s+){0,2}?(?:recetas?|men[uú]s?
        |rutinas?\s+de\s+ejercicio|lista\s+de\s+reproducci[oó]n|regalo)\b
    """,
    recounts=r"^\s*(?:cu[aá]ndo|por\s+qu[eé]|qui[eé]n)\b|\b(?:recomend[eé]|suger[ií]|me\s+dijo)\b",
    reminded=r"\bay[uú]dame\s+a\s+recordar\b",
    home=r"""\bdonde\s+(?:vivo|vivimos)\b
    | \bcerca\s+de\s+(?:mí|nosotros|casa|mi\s+casa|donde\s+vivo)(?!\w)
    | \b(?:en|por|de)\s+(?:mi|nuestra?)\s+(?:ciudad|zona|barrio|pueblo|región|colonia|área)\b
    | \bmi\s+(?:ciudad|barrio|pueblo)\b""",
    work=r"""\b(?:antes|después)\s+de\s+(?:ir\s+a\s+)?(?:trabajar|el\s+trabajo|la\s+chamba)\b
    | \b(?:voy|ir|llegar|llego)\s+a\s+trabajar\b
    | \bmis?\s+(?:trabajo|turnos?|oficina|empleo|curro|chamba|guardias?)\b""",
)

_NOTES = Notes(
    small_talk="gracias vale perfecto genial claro sí bueno buenísimo",
    vocative=r"hola|gracias",
    memory_command=r"\b(?:olvida\s+(?:eso|lo\s+que)|no\s+(?:recuerdes|guardes|anotes))\b",
    holding="usuario normalmente suele gusta gustan encanta prefiere prefiero evita odia "
    "realmente especialmente siempre",
    not_held="",
    refusal=r"(?:lo\s+siento|no\s+puedo\s+ayudar)",
    reminder=r"^(?:nada\s+más\s+|solo\s+)?te\s+recuerdo\s+que\s+",
    requested=r"[,;]\s*(?:así\s+que\s+|y\s+)?(?:por\s+favor\s*,?\s*(?:nada\s+de|sin|no)\b[^.;!?]*"
    r"|(?:nada\s+de|sin|no)\b[^.;!?]*\bpor\s+favor)(?=[.!]?\s*$)",
)

_ASKS = Asks(
    asks=r"¿|(?:dime|dame|hazme|recomi[eé]ndame|ay[uú]dame|expl[ií]came|sugi[eé]reme|mu[eé]strame"
    r"|cu[eé]ntame|escr[ií]beme|trad[uú]ceme|res[uú]meme|puedes|podr[ií]as)\b",
    commands=r"(?:ignora|traduce|resume|escribe|genera|crea|calcula|corrige|reescribe|enumera"
    r"|haz)\b",
    speaker=r"\b(?:yo|mi|mis|soy|estoy|tengo|vivo|prefiero|no\s+como)\b",
    # a question opened with "¿", whatever clauses it holds: "Me mudé a Sevilla, ¿qué barrios me
    # recomiendas?"
    trailing=r"[，,]\s*¿[^?]*\?$",
)

_AMOUNTS = Amounts(
    asks=r"\bcu[aá]nt[oa]s?\b",
    words=tuple(
        "dos tres cuatro cinco seis siete ocho nueve diez vez veces cada diario semanal".split()
    ),
    every=r"\bcada\s+(?:día|semana|mes|año|lunes|martes|miércoles|jueves|viernes|sábado|domingo)",
    counted="",
    vague=r"¿?y\s+(?:eso|esto|el\s+otro|la\s+otra)|¿?qu[eé]\s+m[aá]s",
)

_GROUNDING = Grounding(
    conversation=r"el\s+usuario\s+(?:está|estaba)\s+(?:hablando|charlando|conversando)\s+con\s+\S+",
    courtesy=r"el\s+usuario\s+(?:agradece|agradeció|le\s+da\s+las\s+gracias|felicita|felicitó)\b"
    r"|el\s+usuario\s+se\s+(?:despide|despidió)\s+de\s+(?!(?:su|sus|la|el|los|las)\b)"
    r"[^\s,]+(?:\s+[^\s,]+){0,2}?$",
    says_more=r"\b(?:pero|aunque)\b",
    we=r"\b(?:nosotr[oa]s|nuestr[oa]s?)\b",
    addressing=r"\b(?:te|tu|tus|usted|ustedes)\b",
    answering=r"\bme\s+(?:encanta|gusta)n?\b",
    pointer="",
    choice_talk="",
    demonstrative="",
    suggests=r"\b(?:podría|podrían|debería|deberían)\b",
    advice="",
    picks="",
    options="",
    draft="",
)

_WORDS = Words(
    stopwords=frozenset(stopwordsiso.stopwords("es")),
    abbreviations=r"sra|srta|dra|uds?|p\.\s?ej",
    joining=frozenset(),
    not_names=frozenset(),
    memory_voice={},
)

# The people of the user's life, as a fact's head names them ("El presupuesto de su hermana Ana
# …"), and a name
_KIN = (
    r"herman[oa]s?|madre|padre|mamá|papá|padres|hij[oa]s?|espos[oa]|marido|mujer|novi[oa]"
    r"|amig[oa]s?|prim[oa]|tí[oa]|abuel[oa]|sobrin[oa]|compañer[oa]|jefe|jefa|pareja|vecin[oa]"
)
_NAME = r"[A-ZÁÉÍÓÚÑ][a-záéíóúñ]+"
_ATTRIBUTION = Attribution(
    holder=rf"^(?P<head>(?i:el|la|los|las)\s+\w+)\s+(?i:de(?:l|\s+(?:su|sus|la|el))?)\s+"
    rf"(?P<who>(?i:{_KIN})(?:\s+{_NAME})?|{_NAME})\b",
    user_head=r"\g<head> del usuario",
    pointing=r"\b(?:su|sus|él|ella|ellos|ellas|allí|ahí)\b",
)

_SECRETS = Secrets(
    # "la clave es practicar": a key to something, unless it is the speaker's
    password=r"\b(?:contraseña|(?:mi|tu|su)\s+clave|(?-i:PIN))\b(?:\s+del?\s+\w+(?:\s+\w+)?)?"
    r"(?:\s+(?:es|era)\s*[:=]?|\s*[:=])\s*"
    # …not what became of it: "mi contraseña es incorrecta."
    r"(?!(?:robada|hackeada|incorrecta|segura|insegura|débil|fuerte|nueva|vieja|larga|corta"
    r"|obligatoria|válida|inválida)\b)",
    token=r"\b(?:clave\s+de\s+(?:la\s+)?API|API\s+key|token(?:\s+de\s+acceso)?)\b"
    r"(?:\s+(?:es|era)\s*[:=]?|\s*[:=])\s*",
    national_id=r"\b(?:DNI|NIE|NIF|documento\s+(?:nacional\s+)?de\s+identidad"
    r"|número\s+de\s+(?:identidad|la\s+seguridad\s+social))\b",
    phone=r"\b(?:tel[ée]fono|m[óo]vil|celular|tel)\b",
    # "Calle Mayor 5", "Avenida de la Constitución, 23": the street word, its name, the number
    address=r"\b(?i:calle|c/|avenida|avda\.?|av\.|plaza|paseo|carrera|camino|ronda|traves[íi]a)"
    r"\s+(?:(?:de|del)\s+(?:la\s+|los\s+|las\s+)?)?[A-ZÁÉÍÓÚÑ][\wáéíóúñ]+"
    r"(?:\s+[A-ZÁÉÍÓÚÑ][\wáéíóúñ]+){0,3},?\s+(?:n[º°o]\.?\s*)?\d{1,4}\b",
)

_COMMANDS = (
    r"\b(?:ignora|ignoren|olvida|omite|descarta)\b.{0,40}\b(?:instrucci(?:ón|on|ones)"
    r"|indicaciones|reglas|mensajes?|anteriores|previas)\b",
    r"\b(?:a\s+partir\s+de\s+ahora|de\s+ahora\s+en\s+adelante)\b,?\s+(?:tú|siempre|nunca|cuando"
    r"|si|responde|contesta|recomienda|di|dime|usa|menciona)\b",
    r"\b(?:siempre|nunca)\s+(?:recomienda\w*|responde\w*|contesta\w*|di|dile|digas|menciona\w*"
    r"|incluye\w*|usa|sigue\w*|obedece\w*|revela\w*)\b",
    r"\b(?:recomienda|responde|contesta|usa)\s+siempre\b",
    r"\bno\s+(?:digas|reveles|menciones|sigas|obedezcas)\b",
    r"\b(?:responde|contesta)\s+(?:solo|solamente|únicamente)\b",
    r"\b(?:modo|mensaje|instrucciones?|indicaciones)\s+(?:del?\s+)?(?:sistema|desarrollador)\b",
    r"\b(?:el\s+asistente|la\s+ia|el\s+modelo)\s+(?:debe|tiene\s+que)\b",
    r"\bcuando\s+(?:pregunte|el\s+usuario\s+pregunte)\b[^.]{0,60}?\b(?:usa|di|responde|contesta"
    r"|recomienda)\b",
    r"(?:^|[;:]\s*)(?:usa|di|responde|contesta|recomienda|manda|envía)\s+\S",
    r"^\s*(?:actúa\s+como|finge|ahora\s+eres|eres\s+ahora)\b",
    r"(?:^|\s)(?:\#{1,6}[ \t]*)?\[?sistema\]?[ \t]*:",
    r"\[\s*sistema\s*\]",
    # a standing rule for later requests: "de ahora en más, cuando hable de bancos, sugerime …"
    r"\b(?:de\s+ahora\s+en\s+(?:más|adelante)|en\s+adelante|en\s+el\s+futuro|de\s+aquí\s+en"
    r"\s+adelante)\b,?[^.!?]{0,60}?\b(?:suger\w*|recomend\w*|recomi[eé]nd\w*|dec[ií]\w*|di(?:me)?"
    r"|menciona\w*|nombra\w*|contest\w*|respond\w*|us[aá]\w*)\b",
    # "si te pregunto…", "cada vez que pregunte…": "te", the assistant asked; "cuando le pregunto a
    # mi médico, me recomienda…" is the user's life
    r"\b(?:cuando\s+(?:hable|pregunte|mencione|consulte|necesite)|(?:cuando|si|cada\s+vez\s+que"
    r"|siempre\s+que)\s+(?:alguna\s+vez\s+|otra\s+vez\s+)?te\s+(?:pregunt[oe]|habl[oe]|consult[oe]"
    r"|mencion[oe]))\b[^.!?]{0,60}?\b(?:suger\w*|recomend\w*|recomi[eé]nd\w*|dec[ií]\w*|d[ií]me"
    r"|menciona\w*|nombra\w*|la\s+respuesta\s+es)\b",
    # "asistentes" alone are a congress' attendees, "el asistente" a teacher's: only virtual
    # ones, or an AI
    r"\b(?:nota|mensaje|instrucci(?:ón|on|ones)|recordatorio|aviso)(?:\s+\w+)?\s+para\s+(?:la\s+"
    r"|el\s+|los\s+|las\s+|cualquier\s+)?(?:ias?\b|asistentes?\s+(?:virtual(?:es)?|de\s+ia)"
    r"|modelos?\s+de\s+(?:ia|lenguaje)|chatbots?\b)",
    r"\b(?:recuerda|guarda|almacena|memoriza|anota)\b[^.!?]{0,40}\b(?:el|la|este|esta)\s+"
    r"usuari[oa]\b",
    r"\b(?:guard|añad|anot|registr)\w*\b[^.!?]{0,30}\ben\s+la\s+memoria\s+(?:a\s+largo\s+plazo\s+)?"
    r"del\s+usuari[oa]\b",
    # "si te pregunto a qué número llamo, es el …": what to answer when the assistant is asked;
    # not "si te pregunto algo de noche, es porque…"
    r"\b(?:si|cuando|cada\s+vez\s+que)\s+(?:alguna\s+vez\s+)?te\s+pregunt[oe]\b[^.!?]{0,80},\s*"
    r"(?:es\s+(?:el|la|los|las)\b|la\s+respuesta|dime\b|di\b|recomiéndame|con\s+que\s+me\s+digas)",
)

LANGUAGE = Language(
    code="es",
    name="Spanish",
    spaced=True,
    words_move=False,
    names_by_capital=True,
    named=INNER_CAPITAL,
    stem=snowball("spanish"),
    user=r"\busuari[oa]s?\b",
    greetings=r"hola|buenas|buenos\s+d[ií]as|buenas\s+(?:tardes|noches)|gracias|muchas\s+gracias"
    r"|adi[oó]s|hasta\s+luego|vale|claro|s[ií]|perfecto",
    previously=(" (antes: ", ")"),
    # the 1.5B model wrote "User said Boston, but wanted to say Austin" for "Dije Boston, pero
    # quise decir Austin" when no correction in the user's language was shown
    examples=(
        Example(
            (),
            "Trabajo de enfermera en Valencia desde 2019.",
            ("El usuario trabaja de enfermera en Valencia desde 2019",),
        ),
        Example(
            ("El usuario tiene clase de cerámica los martes",),
            "Perdona, dije los martes, pero quería decir los jueves.",
            ("El usuario tiene clase de cerámica los jueves",),
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
    recurring=r"\b(?:siempre|nunca|cada\s+vez|cuando|a\s+partir\s+de\s+ahora|de\s+ahora\s+en|en\s+adelante"
    r"|en\s+lo\s+sucesivo|en\s+el\s+futuro|por\s+defecto|para\s+(?:cualquier|toda|todas)"
    r"|(?:para|en)\s+(?:las\s+)?preguntas|sale\s+el\s+tema|si\s+(?:pregunto|hablo|sale))\b",
    hedges=r"\b(?:quizás?|tal\s+vez|a\s+lo\s+mejor|probablemente|posiblemente|puede\s+que"
    r"|no\s+estoy\s+segur[oa])\b",
)
