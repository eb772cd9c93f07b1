"""Recall in a language the product has no rules of its own for: Brazilian Portuguese. Each
scenario is one new user who says one thing about themselves in a first conversation, as a
Brazilian types it in a chat, and asks about it in a later one: what was said must come back
(scenarios/cases.py says what each field means); data only.

The scripted model's facts and the expected values are Portuguese too ("O usuário mora em
Recife"). The amount is one a Brazilian writes without a thousands separator ("300 reais"):
the verdict reads a dot between thousands ("R$ 1.500") as German only.
"""

from __future__ import annotations

from scenarios.cases import Scenario, Turn

TOLD = "Você me contou: {}."

RECALL: tuple[Scenario, ...] = (
    Scenario(
        1, "where the user lives",
        ((Turn("Moro em Recife faz uns três anos.", "Recife é uma cidade linda!",
               ("O usuário mora em Recife há cerca de três anos",)),),),
        "Em que cidade eu moro mesmo?", current=("Recife",),
    ),
    Scenario(
        2, "the user's job",
        ((Turn("Sou professor de matemática numa escola estadual.",
               "Que legal, dar aula é um trabalho muito importante.",
               ("O usuário é professor de matemática numa escola estadual",)),),),
        "Você lembra qual é a minha profissão?", current=("professor",),
    ),
    Scenario(
        3, "a diet",
        ((Turn("Sou vegetariano há uns dez anos, não como carne nem peixe.",
               "Anotado! Vou levar isso em conta nas sugestões.",
               ("O usuário é vegetariano há cerca de dez anos e não come carne nem peixe",)),),),
        "Eu tenho alguma restrição alimentar?", current=("vegetariano",),
    ),
    Scenario(
        4, "a child's name and age",
        ((Turn("Minha filha se chama Helena e tem 7 anos.", "Que nome lindo!",
               ("O usuário tem uma filha chamada Helena, de 7 anos",)),),),
        "Como é o nome da minha filha?", current=("Helena",),
    ),
    Scenario(
        5, "a budget",
        ((Turn("Meu orçamento pro presente de aniversário da minha mãe é de 300 reais.",
               "Dá pra achar coisas bem legais com 300 reais.",
               ("O usuário tem um orçamento de 300 reais para o presente de aniversário da "
                "mãe",)),),),
        "Quanto eu posso gastar no presente da minha mãe?", current=("300 reais",),
    ),
)  # fmt: skip
