"""The nine truth scenarios and their variants as a speaker of German says them in a chat: the
same behaviours as scenarios/cases.py, which says what each field means; data only.

The scripted model's facts and the expected values are German too, in the voice a model writes
memory in ("Der Nutzer wohnt in Hamburg"). Amounts are written as Germans write them, a dot
between thousands ("8.000 Euro"), which the verdict reads as 8000 in a German text. Diets and
seats are given as the words a note or a fact may use ("vegan|Veganerin", "Gang|Gangplatz"):
a value is found as a whole word, and German builds words ("Fensterplatz").
"""

from __future__ import annotations

from scenarios.cases import ECHO, Scenario, Turn

TOLD = "Du hast mir erzählt: {}."

HAWAII = Turn(
    "Für unsere Hawaii-Reise haben wir ein Budget von 8.000 Euro.",
    "Super, mit 8.000 Euro habt ihr auf Hawaii einige Möglichkeiten.",
    ("Der Nutzer hat für die Hawaii-Reise ein Budget von 8.000 Euro",),
)
BUDGET_QUESTION = "Wie hoch ist nochmal mein Budget für die Hawaii-Reise?"

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        1, "Hawaii budget updated in a later session",
        ((HAWAII,), (Turn("Kleines Update: Unser Budget für die Hawaii-Reise liegt jetzt bei "
                          "9.500 Euro.",
                          f"{ECHO} Alles klar, dann plane ich mit 9.500 Euro.",
                          ("Der Nutzer hat für die Hawaii-Reise jetzt ein Budget von "
                           "9.500 Euro",)),)),
        BUDGET_QUESTION, current=("9.500 Euro",), old=("8.000 Euro",),
    ),
    Scenario(
        2, "preference changes: vegetarian to vegan",
        ((Turn("Ich bin Vegetarierin.",
               "Alles klar, dann schlage ich dir vegetarische Gerichte vor.",
               ("Der Nutzer ist Vegetarierin",)),),
         (Turn("Ich lebe inzwischen komplett vegan.",
               "Super, ab jetzt gibt es von mir nur noch vegane Vorschläge.",
               ("Der Nutzer lebt vegan",)),)),
        "Bin ich Vegetarierin oder Veganerin?", current=("vegan|Veganerin|Veganer",),
        old=("vegetarisch|Vegetarierin|Vegetarier",),
    ),
    Scenario(
        3, "a correction: Boston, I meant Austin",
        ((Turn("Ich wohne in Mainz.", "Mainz ist eine schöne Stadt.",
               ("Der Nutzer wohnt in Mainz",)),),
         (Turn("Sorry, ich hab Mainz geschrieben, meinte aber Mannheim.",
               "Danke für die Korrektur, also Mannheim.",
               ("Der Nutzer wohnt in Mannheim",)),)),
        "Wo wohne ich?", current=("Mannheim",), old=("Mainz",),
    ),
    Scenario(
        4, "no longer true: sold the car",
        ((Turn("Ich fahre einen VW Golf, Baujahr 2015.", "Der Golf ist ein zuverlässiges Auto.",
               ("Der Nutzer fährt einen VW Golf, Baujahr 2015",)),),
         (Turn("Ich hab letzte Woche mein Auto verkauft.",
               "Das Auto zu verkaufen ist ein großer Schritt.",
               ("Der Nutzer hat sein Auto verkauft",), ends=True),)),
        "Was für ein Auto fahre ich?", current=("verkauft",), old=("Golf",),
    ),
    Scenario(
        5, "an unrelated new fact touches nothing else",
        ((HAWAII,), (Turn("Ich hab letzten Monat angefangen, Cello zu lernen.",
                          "Wie schön! Das Cello ist ein wunderbares Instrument.",
                          ("Der Nutzer hat im Oktober 2026 angefangen, Cello zu lernen",)),)),
        "Welches Instrument lerne ich gerade?", current=("Cello",), kept=("8.000 Euro",),
    ),
    Scenario(
        6, "the same fact restated in other words",
        ((HAWAII,), (Turn("Nur damit du's weißt: Für die Hawaii-Reise hab ich 8.000 Euro zur "
                          "Seite gelegt.",
                          "Danke, das deckt sich mit dem, was ich notiert habe.",
                          ("Der Nutzer hat 8.000 Euro für die Hawaii-Reise zur Seite "
                           "gelegt",)),)),
        BUDGET_QUESTION, current=("8.000 Euro",), kept=("8.000 Euro",),
    ),
    Scenario(
        7, "a question about what is remembered stores nothing",
        ((HAWAII,), (Turn(BUDGET_QUESTION, ECHO),)),
        BUDGET_QUESTION, current=("8.000 Euro",), kept=("8.000 Euro",), unchanged=True,
    ),
    Scenario(
        8, "the answer restates injected memories: no echo stored",
        # two sentences: a statement ending in a question states nothing to the product
        ((HAWAII,), (Turn("Ich fange jetzt an, die Flüge für die Hawaii-Reise zu buchen. "
                          "Worauf sollte ich beim Budget achten?",
                          f"Gute Idee, früh zu buchen. {ECHO}",
                          ("Der Nutzer bucht gerade die Flüge für die Hawaii-Reise",)),)),
        BUDGET_QUESTION, current=("8.000 Euro",), kept=("8.000 Euro",), added=("Flüge",),
    ),
    Scenario(
        9, "two facts in one message, one an update",
        ((HAWAII,), (Turn("Meine Schwester Julia kommt mit, und unser Budget für die "
                          "Hawaii-Reise liegt jetzt bei 9.000 Euro.",
                          "Wie schön! Mit 9.000 Euro könnt ihr sogar etwas länger bleiben.",
                          ("Der Nutzer nimmt seine Schwester Julia mit auf die Hawaii-Reise",
                           "Der Nutzer hat für die Hawaii-Reise jetzt ein Budget von "
                           "9.000 Euro")),)),
        BUDGET_QUESTION, current=("9.000 Euro",), old=("8.000 Euro",), added=("Julia",),
    ),
)  # fmt: skip

RENT = Turn(
    "Ich zahle 850 Euro Miete im Monat.",
    "Das ist für die Gegend ganz normal.",
    ("Der Nutzer zahlt 850 Euro Miete im Monat",),
)
RENT_QUESTION = "Wie viel Miete zahle ich eigentlich?"

VARIANTS: tuple[Scenario, ...] = (
    Scenario(
        1, "rent goes up",
        ((RENT,), (Turn("Meine Miete wurde erhöht, ich zahle jetzt 920 Euro im Monat.",
                        f"{ECHO} Notiert, 920 Euro.",
                        ("Der Nutzer zahlt jetzt 920 Euro Miete im Monat",)),)),
        RENT_QUESTION, current=("920 Euro",), old=("850 Euro",),
    ),
    Scenario(
        2, "seat preference switches",
        ((Turn("Im Flugzeug sitze ich am liebsten am Fenster.", "Alles klar, Fensterplatz.",
               ("Der Nutzer sitzt im Flugzeug am liebsten am Fenster",)),),
         (Turn("Mittlerweile sitze ich im Flugzeug lieber am Gang.",
               "Gut, dann ab jetzt Gangplatz.",
               ("Der Nutzer sitzt im Flugzeug am liebsten am Gang",)),)),
        "Wo sitze ich im Flugzeug am liebsten?", current=("Gang|Gangplatz",),
        old=("Fenster|Fensterplatz",),
    ),
    Scenario(
        3, "a name corrected",
        ((Turn("Meine Tochter heißt Lea.", "Was für ein schöner Name.",
               ("Der Nutzer hat eine Tochter namens Lea",)),),
         (Turn("Sorry, vertippt: Meine Tochter heißt Lena, nicht Lea.", "Lena, alles klar.",
               ("Der Nutzer hat eine Tochter namens Lena",)),)),
        "Wie heißt meine Tochter?", current=("Lena",), old=("Lea",),
    ),
    Scenario(
        4, "a job ends",
        ((Turn("Ich arbeite als Grafikdesigner bei einer Werbeagentur.",
               "Design ist ein spannendes Feld.",
               ("Der Nutzer arbeitet als Grafikdesigner bei einer Werbeagentur",)),),
         (Turn("Ich hab letzten Monat bei der Agentur gekündigt.",
               "Das ist eine große Veränderung!",
               ("Der Nutzer hat seinen Job bei der Werbeagentur gekündigt",), ends=True),)),
        "Wo arbeite ich?", current=("gekündigt",), old=("Grafikdesigner",),
    ),
    Scenario(
        5, "a new favourite band, rent untouched",
        ((RENT,), (Turn("Meine Lieblingsband sind Die Ärzte.", "Guter Geschmack!",
                        ("Der Nutzer nennt Die Ärzte als seine Lieblingsband",)),)),
        "Was ist meine Lieblingsband?", current=("Die Ärzte",), kept=("850 Euro",),
    ),
    Scenario(
        6, "an allergy said again",
        ((Turn("Ich bin allergisch gegen Erdnüsse.", "Das behalte ich im Hinterkopf.",
               ("Der Nutzer ist allergisch gegen Erdnüsse",)),),
         (Turn("Nur zur Erinnerung: Ich hab eine Erdnussallergie, also bitte keine Erdnüsse.",
               "Na klar.",
               ("Der Nutzer ist allergisch gegen Erdnüsse",)),)),
        "Wogegen bin ich allergisch?", current=("Erdnüsse",), kept=("Erdnüsse",),
    ),
    Scenario(
        7, "asking about the rent stores nothing",
        ((RENT,), (Turn(RENT_QUESTION, ECHO),)),
        RENT_QUESTION, current=("850 Euro",), kept=("850 Euro",), unchanged=True,
    ),
    Scenario(
        8, "apartment hunting, the answer echoes the rent",
        ((RENT,), (Turn("Ich schaue mich gerade nach einer neuen Wohnung um. Worauf sollte ich "
                        "bei der Miete achten?",
                        f"Vergleich am besten die Gesamtkosten. {ECHO}",
                        ("Der Nutzer sucht eine neue Wohnung",)),)),
        RENT_QUESTION, current=("850 Euro",), kept=("850 Euro",), added=("Wohnung",),
    ),
    Scenario(
        9, "a new cat and a new rent in one message",
        ((RENT,), (Turn("Ich hab jetzt eine Katze, sie heißt Luna, und meine Miete ist auf "
                        "980 Euro im Monat gestiegen.", "Glückwunsch zu Luna!",
                        ("Der Nutzer hat eine Katze namens Luna",
                         "Der Nutzer zahlt jetzt 980 Euro Miete im Monat")),)),
        RENT_QUESTION, current=("980 Euro",), old=("850 Euro",), added=("Luna",),
    ),
)  # fmt: skip

# The changes of scenarios/cases.py's CHANGES, as a speaker of German says them
CHANGES: tuple[Scenario, ...] = (
    Scenario(
        1, "a move in a later conversation",
        ((Turn("Ich wohne seit fünf Jahren in Köln.", "Köln ist eine tolle Stadt zum Leben.",
               ("Der Nutzer wohnt seit fünf Jahren in Köln",)),),
         (Turn("Neuigkeiten: Wir sind letzten Monat nach Hamburg umgezogen.",
               "Glückwunsch zum Umzug!",
               ("Der Nutzer ist letzten Monat nach Hamburg umgezogen",), ends=True),)),
        "Wo wohne ich?", current=("Hamburg",), old=("Köln",),
    ),
    Scenario(
        2, "a number corrected after a relative date",
        ((Turn("Mein Mann Markus wird nächste Woche 40, hast du Ideen für die Party?",
               "Ein Überraschungsessen mit seinen Freunden ist ein Klassiker.",
               ("Der Mann des Nutzers, Markus, wird nächste Woche 40",)),
          Turn("Ups, mein Fehler: Markus wird 41, nicht 40.", "Alles klar, also 41.",
               ("Der Mann des Nutzers, Markus, wird 41",))),),
        "Wie alt wird Markus?", current=("41",), old=("40",),
    ),
    Scenario(
        3, "a job left for another",
        ((Turn("Ich arbeite als Krankenschwester im Krankenhaus.",
               "Pflege ist ein anstrengender Job.",
               ("Der Nutzer arbeitet als Krankenschwester im Krankenhaus",)),),
         (Turn("Ich habe letzten Monat gekündigt und arbeite jetzt als Lehrerin an einer "
               "Grundschule.", "Was für ein Wechsel, herzlichen Glückwunsch!",
               ("Der Nutzer hat letzten Monat im Krankenhaus gekündigt und arbeitet jetzt als "
                "Lehrerin an einer Grundschule",), ends=True),)),
        "Was mache ich beruflich?", current=("Grundschule",), old=("Krankenschwester",),
    ),
)  # fmt: skip

# The cascades of scenarios/cases.py's CASCADES, as a speaker of German says them
CASCADES: tuple[Scenario, ...] = (
    Scenario(
        1, "a move ends the gym in the old city, not a brother's home",
        ((Turn("Ich wohne in München und gehe zweimal die Woche in eine Kletterhalle hier in "
               "München.", "Klettern hält super fit.",
               ("Der Nutzer wohnt in München",
                "Der Nutzer geht zweimal pro Woche in eine Kletterhalle in München")),
          Turn("Mein Bruder Tobias wohnt auch in München.",
               "Schön, die Familie in der Nähe zu haben.",
               ("Der Bruder des Nutzers, Tobias, wohnt in München",))),
         (Turn("Wir sind letzten Monat nach Hamburg gezogen!", "Glückwunsch zum Umzug!",
               ("Der Nutzer ist letzten Monat nach Hamburg gezogen",), ends=True),)),
        "Wo wohne ich?", current=("Hamburg",), old=("Kletterhalle",), kept=("Tobias",),
    ),
    Scenario(
        2, "a move ends the family doctor there, not the birthplace",
        ((Turn("Ich wohne schon seit Jahren in Leipzig, meine Hausärztin ist Dr. Schneider, "
               "auch in Leipzig.", "Gut, eine Ärztin zu haben, der man vertraut.",
               ("Der Nutzer wohnt seit Jahren in Leipzig",
                "Die Hausärztin des Nutzers ist Dr. Schneider in Leipzig")),
          Turn("Ich bin übrigens in Leipzig geboren.", "Also ein echtes Leipziger Kind!",
               ("Der Nutzer ist in Leipzig geboren",))),
         (Turn("Ich bin vor zwei Wochen nach Berlin gezogen.",
               "Berlin ist eine ganz schöne Umstellung!",
               ("Der Nutzer ist vor zwei Wochen nach Berlin gezogen",), ends=True),)),
        "Wo wohne ich?", current=("Berlin",), old=("Schneider",), kept=("geboren",),
    ),
    Scenario(
        3, "a move ends the commute there",
        ((Turn("Ich wohne in Köln und fahre jeden Tag mit der Straßenbahn zur Arbeit in "
               "Köln-Deutz.", "Zur Rushhour ist die Bahn ganz schön voll.",
               ("Der Nutzer wohnt in Köln",
                "Der Nutzer fährt jeden Tag mit der Straßenbahn zur Arbeit in Köln-Deutz")),),
         (Turn("Ich bin letzte Woche nach Düsseldorf gezogen.", "Willkommen in Düsseldorf!",
               ("Der Nutzer ist letzte Woche nach Düsseldorf gezogen",), ends=True),)),
        "Wo wohne ich?", current=("Düsseldorf",), old=("Straßenbahn",),
    ),
    Scenario(
        4, "a move leaves a favourite team alone",
        ((Turn("Ich wohne in Dortmund und bin riesiger BVB-Fan.", "Echte Liebe!",
               ("Der Nutzer wohnt in Dortmund", "Der Nutzer ist ein riesiger BVB-Fan")),),
         (Turn("Wir sind letzten Monat nach Stuttgart gezogen.", "Glückwunsch zum Umzug!",
               ("Der Nutzer ist letzten Monat nach Stuttgart gezogen",), ends=True),)),
        "Wo wohne ich?", current=("Stuttgart",), kept=("BVB",),
    ),
)  # fmt: skip
