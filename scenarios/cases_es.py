"""The nine truth scenarios and their variants as a speaker of Spanish says them in a chat: the
same behaviours as scenarios/cases.py, which says what each field means; data only.

The scripted model's facts and the expected values are Spanish too. The Spanish is Mexico's
("carro", "renta", "departamento", "cacahuate"), and so are its amounts: a comma between
thousands ("10,000 dólares"), which the verdict reads as 10000; Spain's "10.000" it would read
as another number.
"""

from __future__ import annotations

from scenarios.cases import ECHO, Scenario, Turn

TOLD = "Me dijiste: {}."

HAWAII = Turn(
    "Mi presupuesto para el viaje a Hawái es de 10,000 dólares.",
    "Perfecto, con 10,000 dólares tienes muchas opciones en Hawái.",
    ("El usuario tiene un presupuesto de 10,000 dólares para el viaje a Hawái",),
)
BUDGET_QUESTION = "¿Cuál es mi presupuesto para el viaje a Hawái?"

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        1, "Hawaii budget updated in a later session",
        ((HAWAII,), (Turn("Por cierto, ahora mi presupuesto para el viaje a Hawái es de 15,000 "
                          "dólares.",
                          f"{ECHO} Entendido, entonces son 15,000 dólares.",
                          ("El usuario ahora tiene un presupuesto de 15,000 dólares para el "
                           "viaje a Hawái",)),)),
        BUDGET_QUESTION, current=("15,000 dólares",), old=("10,000 dólares",),
    ),
    Scenario(
        2, "preference changes: vegetarian to vegan",
        ((Turn("Soy vegetariano.", "Anotado, te voy a sugerir platillos vegetarianos.",
               ("El usuario es vegetariano",)),),
         (Turn("Ahora ya soy completamente vegano.",
               "¡Qué bien! De ahora en adelante te sugiero solo platillos veganos.",
               ("El usuario es vegano",)),)),
        "¿Soy vegetariano o vegano?", current=("vegano",), old=("vegetariano",),
    ),
    Scenario(
        3, "a correction: Boston, I meant Austin",
        ((Turn("Vivo en Boston.", "Boston es una ciudad muy bonita.",
               ("El usuario vive en Boston",)),),
         (Turn("Dije Boston, pero quise decir Austin.",
               "Gracias por la corrección: entonces es Austin.",
               ("El usuario vive en Austin",)),)),
        "¿Dónde vivo?", current=("Austin",), old=("Boston",),
    ),
    Scenario(
        4, "no longer true: sold the car",
        ((Turn("Manejo un Honda Civic 2015.", "Los Civic son carros muy confiables.",
               ("El usuario maneja un Honda Civic 2015",)),),
         (Turn("Vendí mi carro la semana pasada.", "Vender el carro es un paso importante.",
               ("El usuario vendió su carro",), ends=True),)),
        "¿Qué carro manejo?", current=("vendió|vendí",), old=("Civic",),
    ),
    Scenario(
        5, "an unrelated new fact touches nothing else",
        ((HAWAII,), (Turn("Empecé a tomar clases de violonchelo el mes pasado.",
                          "¡Qué emoción! El violonchelo es un instrumento precioso.",
                          ("El usuario empezó a aprender violonchelo en octubre de 2026",)),)),
        "¿Qué instrumento estoy aprendiendo?", current=("violonchelo",),
        kept=("10,000 dólares",),
    ),
    Scenario(
        6, "the same fact restated in other words",
        ((HAWAII,), (Turn("Para que lo sepas, tengo 10,000 dólares apartados para mi viaje a "
                          "Hawái.",
                          "Gracias, coincide con lo que tenía anotado.",
                          ("El usuario tiene 10,000 dólares apartados para el viaje a "
                           "Hawái",)),)),
        BUDGET_QUESTION, current=("10,000 dólares",), kept=("10,000 dólares",),
    ),
    Scenario(
        7, "a question about what is remembered stores nothing",
        ((HAWAII,), (Turn(BUDGET_QUESTION, ECHO),)),
        BUDGET_QUESTION, current=("10,000 dólares",), kept=("10,000 dólares",),
        unchanged=True,
    ),
    Scenario(
        8, "the answer restates injected memories: no echo stored",
        # two sentences: a statement ending in a question (", ¿qué…?") states nothing to the
        # product, which reads trailing questions in English only
        ((HAWAII,), (Turn("Ya empecé a reservar los vuelos para el viaje a Hawái. ¿Qué debo "
                          "tener en cuenta sobre mi presupuesto?",
                          f"Buena idea reservar con tiempo. {ECHO}",
                          ("El usuario está reservando vuelos para el viaje a Hawái",)),)),
        BUDGET_QUESTION, current=("10,000 dólares",), kept=("10,000 dólares",),
        added=("vuelos",),
    ),
    Scenario(
        9, "two facts in one message, one an update",
        ((HAWAII,), (Turn("Mi hermana Ana se viene conmigo, y el presupuesto para el viaje a "
                          "Hawái ahora es de 12,000 dólares.",
                          "¡Qué padre! Con 12,000 dólares Ana y tú pueden quedarse un poco más.",
                          ("El usuario va al viaje a Hawái con su hermana Ana",
                           "El usuario ahora tiene un presupuesto de 12,000 dólares para el "
                           "viaje a Hawái")),)),
        BUDGET_QUESTION, current=("12,000 dólares",), old=("10,000 dólares",),
        added=("Ana",),
    ),
)  # fmt: skip

RENT = Turn(
    "Pago 12,000 pesos de renta al mes.",
    "Es una renta normal para la zona.",
    ("El usuario paga 12,000 pesos de renta al mes",),
)
RENT_QUESTION = "¿Cuánto pago de renta?"

VARIANTS: tuple[Scenario, ...] = (
    Scenario(
        1, "rent goes up",
        ((RENT,), (Turn("Me subieron la renta, ahora son 13,500 pesos al mes.",
                        f"{ECHO} Anotado, 13,500 pesos.",
                        ("El usuario paga 13,500 pesos de renta al mes",)),)),
        RENT_QUESTION, current=("13,500 pesos",), old=("12,000 pesos",),
    ),
    Scenario(
        2, "seat preference switches",
        ((Turn("En los vuelos prefiero el asiento de ventanilla.", "Ventanilla, entendido.",
               ("El usuario prefiere asiento de ventanilla en los vuelos",)),),
         (Turn("Últimamente en los vuelos prefiero el asiento de pasillo.",
               "De ahora en adelante, pasillo.",
               ("El usuario prefiere asiento de pasillo en los vuelos",)),)),
        "¿Qué asiento prefiero en los vuelos?", current=("pasillo",), old=("ventanilla",),
    ),
    Scenario(
        3, "a name corrected",
        ((Turn("Mi hija se llama Valeria.", "Qué nombre tan bonito.",
               ("El usuario tiene una hija llamada Valeria",)),),
         (Turn("Perdón, dije Valeria, pero quise decir Valentina.", "Valentina, entendido.",
               ("El usuario tiene una hija llamada Valentina",)),)),
        "¿Cómo se llama mi hija?", current=("Valentina",), old=("Valeria",),
    ),
    Scenario(
        4, "a job ends",
        ((Turn("Trabajo como diseñador en Acme Corp.", "El diseño es un campo muy bonito.",
               ("El usuario trabaja como diseñador en Acme Corp",)),),
         (Turn("Renuncié a mi trabajo en Acme Corp el mes pasado.", "¡Qué cambio!",
               ("El usuario renunció a su trabajo en Acme Corp",), ends=True),)),
        "¿Dónde trabajo?", current=("renunció|renuncié",), old=("diseñador",),
    ),
    Scenario(
        5, "a new favourite band, rent untouched",
        ((RENT,), (Turn("Mi banda favorita es Café Tacvba.", "¡Buen gusto!",
                        ("El usuario tiene como banda favorita a Café Tacvba",)),)),
        "¿Cuál es mi banda favorita?", current=("Café Tacvba",), kept=("12,000 pesos",),
    ),
    Scenario(
        6, "an allergy said again",
        ((Turn("Soy alérgico al cacahuate.", "Lo tendré en cuenta.",
               ("El usuario es alérgico al cacahuate",)),),
         (Turn("Nada más te recuerdo que soy alérgico al cacahuate, así que nada de cacahuate, "
               "por favor.", "Claro que sí.",
               ("El usuario es alérgico al cacahuate",)),)),
        "¿A qué soy alérgico?", current=("cacahuate",), kept=("cacahuate",),
    ),
    Scenario(
        7, "asking about the rent stores nothing",
        ((RENT,), (Turn(RENT_QUESTION, ECHO),)),
        RENT_QUESTION, current=("12,000 pesos",), kept=("12,000 pesos",), unchanged=True,
    ),
    Scenario(
        8, "apartment hunting, the answer echoes the rent",
        ((RENT,), (Turn("Estoy buscando departamento nuevo. ¿Hay algo que deba tomar en cuenta "
                        "sobre mi renta?", f"Compara los costos totales. {ECHO}",
                        ("El usuario está buscando departamento nuevo",)),)),
        RENT_QUESTION, current=("12,000 pesos",), kept=("12,000 pesos",),
        added=("departamento",),
    ),
    Scenario(
        9, "a new cat and a new rent in one message",
        ((RENT,), (Turn("Adopté una gatita que se llama Luna, y ahora pago 14,000 pesos de "
                        "renta al mes.", "¡Felicidades por Luna!",
                        ("El usuario tiene una gata llamada Luna",
                         "El usuario paga 14,000 pesos de renta al mes")),)),
        RENT_QUESTION, current=("14,000 pesos",), old=("12,000 pesos",), added=("Luna",),
    ),
)  # fmt: skip

# The changes of scenarios/cases.py's CHANGES, as a speaker of Spanish says them
CHANGES: tuple[Scenario, ...] = (
    Scenario(
        1, "a move in a later conversation",
        ((Turn("Vivo en Denver desde hace cinco años.", "Denver es una gran ciudad para vivir.",
               ("El usuario vive en Denver desde hace cinco años",)),),
         (Turn("¡Tengo noticias! Nos mudamos a Seattle el mes pasado.",
               "¡Felicidades por la mudanza!",
               ("El usuario se mudó a Seattle el mes pasado",), ends=True),)),
        "¿Dónde vivo?", current=("Seattle",), old=("Denver",),
    ),
    Scenario(
        2, "a number corrected after a relative date",
        ((Turn("Mi marido Marcos cumple 40 la semana que viene, ¿alguna idea para la fiesta?",
               "Una cena sorpresa con sus amigos nunca falla.",
               ("El marido del usuario, Marcos, cumple 40 años la semana que viene",)),
          Turn("Uy, me equivoqué: Marcos cumple 41, no 40.", "Entendido, 41.",
               ("El marido del usuario, Marcos, cumple 41 años",))),),
        "¿Cuántos años cumple Marcos?", current=("41",), old=("40",),
    ),
    Scenario(
        3, "a job left for another",
        ((Turn("Trabajo de enfermera en un hospital.", "La enfermería es un trabajo exigente.",
               ("El usuario trabaja de enfermera en un hospital",)),),
         (Turn("Dejé el trabajo el mes pasado y ahora soy maestra en una escuela primaria.",
               "¡Qué cambio, felicidades!",
               ("El usuario dejó su trabajo en el hospital el mes pasado y ahora es maestra en "
                "una escuela primaria",), ends=True),)),
        "¿En qué trabajo ahora?", current=("escuela primaria",), old=("enfermera",),
    ),
)  # fmt: skip

# The cascades of scenarios/cases.py's CASCADES, as a speaker of Spanish says them
CASCADES: tuple[Scenario, ...] = (
    Scenario(
        1, "a move ends the gym in the old city, not a brother's home",
        ((Turn("Vivo en Denver y voy a un gimnasio de escalada en Denver dos veces por semana.",
               "La escalada es una gran forma de mantenerse en forma.",
               ("El usuario vive en Denver",
                "El usuario va a un gimnasio de escalada en Denver dos veces por semana")),
          Turn("Mi hermano Tomás también vive en Denver.", "Qué bien tener a la familia cerca.",
               ("El hermano del usuario, Tomás, vive en Denver",))),
         (Turn("¡Nos mudamos a Seattle el mes pasado!", "¡Felicidades por la mudanza!",
               ("El usuario se mudó a Seattle el mes pasado",), ends=True),)),
        "¿Dónde vivo?", current=("Seattle",), old=("escalada",), kept=("Tomás",),
    ),
    Scenario(
        2, "a move ends the family doctor there, not the birthplace",
        ((Turn("Vivo en Austin desde hace años y mi médica de cabecera es la doctora Patel, "
               "en Austin.", "Es bueno tener una médica de confianza.",
               ("El usuario vive en Austin desde hace años",
                "La médica de cabecera del usuario es la doctora Patel, en Austin")),
          Turn("De hecho, nací en Austin.", "¡Toda una local!", ("El usuario nació en Austin",))),
         (Turn("Me mudé a Chicago hace dos semanas.", "¡Chicago es un gran cambio!",
               ("El usuario se mudó a Chicago hace dos semanas",), ends=True),)),
        "¿Dónde vivo?", current=("Chicago",), old=("Patel",), kept=("nació",),
    ),
    Scenario(
        3, "a move ends the commute there",
        ((Turn("Vivo en Boston y todos los días voy al trabajo en metro por Boston.",
               "El metro va lleno en hora punta.",
               ("El usuario vive en Boston",
                "El usuario va al trabajo en metro por Boston todos los días")),),
         (Turn("Me mudé a Denver la semana pasada.", "¡Bienvenido a Denver!",
               ("El usuario se mudó a Denver la semana pasada",), ends=True),)),
        "¿Dónde vivo?", current=("Denver",), old=("metro",),
    ),
    Scenario(
        4, "a move leaves a favourite team alone",
        ((Turn("Vivo en Denver y soy muy fan de los Broncos.", "¡Vamos Broncos!",
               ("El usuario vive en Denver", "El usuario es muy fan de los Broncos")),),
         (Turn("Nos mudamos a Seattle el mes pasado.", "¡Felicidades por la mudanza!",
               ("El usuario se mudó a Seattle el mes pasado",), ends=True),)),
        "¿Dónde vivo?", current=("Seattle",), kept=("Broncos",),
    ),
)  # fmt: skip
