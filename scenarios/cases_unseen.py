"""Held-out scenarios, written without sight of the product: six behaviours in English, German,
Spanish and Simplified Chinese, each language with its own people, places and numbers.

1. a number corrected in the same conversation, right after it was said with a relative date;
2. a move said in a later conversation;
3. a job left for another;
4. a habit stopped or switched;
5. a move that ends something local to the old city, but not what is not local;
6. a fact said again in other words: it stays one memory.
"""

from __future__ import annotations

from scenarios.cases import ECHO, Scenario, Turn

UNSEEN_EN: tuple[Scenario, ...] = (
    Scenario(
        1, "a guest count corrected right after a relative date",
        ((Turn("My son's graduation party is next Saturday and we've got 45 people coming. "
               "How much food should I plan for?",
               "For 45 guests, figure about a pound of food per person across all dishes.",
               ("User's son's graduation party is next Saturday with 45 people coming",)),
          Turn("Wait, sorry, it's 54 people, not 45. I flipped the digits.",
               "No problem, I'll plan for 54 then.",
               ("User's son's graduation party will have 54 people coming",), ends=True)),),
        "How many people are coming to my son's graduation party?",
        current=("54",), old=("45",),
    ),
    Scenario(
        2, "a move to Tucson said in a later conversation",
        ((Turn("I live in Cleveland. Any good brunch spots in Tremont you'd recommend?",
               "Tremont has a great brunch scene; look for the spots around Lincoln Park.",
               ("User lives in Cleveland",)),),
         (Turn("So we finally left Ohio, we've been in Tucson since the start of the month. "
               "The heat is no joke.",
               "Welcome to Tucson! Stay hydrated.",
               ("User moved from Ohio to Tucson at the start of the month",), ends=True),)),
        "Where do I live?", current=("Tucson",), old=("Cleveland",),
    ),
    Scenario(
        3, "a paralegal leaves the firm for an electrician apprenticeship",
        ((Turn("I'm a paralegal at a law firm downtown and the hours have been brutal lately. "
               "Any tips for not burning out?",
               "Protect your evenings where you can and take real breaks during the day.",
               ("User is a paralegal at a law firm downtown",)),),
         (Turn("I finally walked away from the firm. I'm doing an electrician apprenticeship "
               "now and honestly loving it.",
               "That's a big change, congrats!",
               ("User left the law firm and is now doing an electrician apprenticeship",),
               ends=True),)),
        "What do I do for a living?", current=("electrician",), old=("paralegal",),
    ),
    Scenario(
        4, "morning coffee switched to matcha",
        ((Turn("I'm useless until I've had my two cups of coffee in the morning lol",
               "You're far from alone there!",
               ("User drinks two cups of coffee every morning",)),),
         (Turn("Quick update, I kicked the coffee habit a few weeks back. It's matcha every "
               "morning now.",
               "Nice switch, matcha is a gentler lift.",
               ("User now drinks matcha every morning instead of coffee",), ends=True),)),
        "What do I drink in the morning?", current=("matcha",), old=("coffee",),
    ),
    Scenario(
        5, "a move ends the dentist in Minneapolis, not the mom who lives there",
        ((Turn("I live in Minneapolis and my dentist is Dr. Okafor, also in Minneapolis. Is "
               "$180 for a cleaning normal?",
               "That's within the usual range for a cleaning without insurance.",
               ("User lives in Minneapolis", "User's dentist is Dr. Okafor in Minneapolis")),
          Turn("My mom Linda lives in Minneapolis too, she's been there forever.",
               "Nice to have family nearby.",
               ("User's mom Linda lives in Minneapolis",))),
         (Turn("We finally did it, we moved to Phoenix last weekend!",
               "Congratulations on the move!",
               ("User moved to Phoenix last weekend",), ends=True),)),
        "Where do I live now?", current=("Phoenix",), old=("Okafor",), kept=("Linda",),
    ),
    Scenario(
        6, "lactose intolerance said again with a reason",
        ((Turn("Heads up, I'm lactose intolerant, so skip the dairy in any recipes you give "
               "me.",
               "Got it, dairy-free recipes from here on.",
               ("User is lactose intolerant and wants dairy-free recipes",)),),
         (Turn("Just reminding you, no dairy for me. I'm lactose intolerant and it wrecks my "
               "stomach every time.",
               f"{ECHO} Noted, no dairy.",
               ("User is lactose intolerant",)),)),
        "What food intolerance do I have?", current=("lactose",), kept=("lactose",),
    ),
)  # fmt: skip

UNSEEN_DE: tuple[Scenario, ...] = (
    Scenario(
        1, "grandma's age corrected right after a relative date",
        ((Turn("Meine Oma wird nächsten Sonntag 85 – hast du eine Idee, was man ihr schenken "  # noqa: RUF001
               "könnte? Sie hat eigentlich schon alles.",
               "Wie wäre es mit einem Fotobuch mit Bildern aus ihrem Leben?",
               ("Die Oma des Nutzers wird nächsten Sonntag 85",)),
          Turn("Moment, Quatsch – sie wird 88, nicht 85. Mein Fehler.",  # noqa: RUF001
               "Kein Problem, dann eben 88!",
               ("Die Oma des Nutzers wird 88",), ends=True)),),
        "Wie alt wird meine Oma?", current=("88",), old=("85",),
    ),
    Scenario(
        2, "a move from Leipzig to Freiburg in a later conversation",
        ((Turn("Ich wohn jetzt seit vier Jahren in Leipzig und find's immer noch super. "
               "Kennst du nette Ecken zum Frühstücken in Connewitz?",
               "In Connewitz gibt's einige gemütliche Cafés, vor allem rund um die "
               "Wolfgang-Heinze-Straße.",
               ("Der Nutzer wohnt seit vier Jahren in Leipzig",)),),
         (Turn("Kurzes Update: Wir sind vor drei Wochen nach Freiburg gezogen. Die Kisten "
               "stehen noch überall rum 😅",
               "Willkommen in Freiburg! Das Auspacken dauert immer länger als gedacht.",
               ("Der Nutzer ist vor drei Wochen nach Freiburg gezogen",), ends=True),)),
        "Wo wohne ich?", current=("Freiburg",), old=("Leipzig",),
    ),
    Scenario(
        3, "a hotel cook quits and drives a lorry",
        ((Turn("Ich bin Koch in einem Hotel, und die Spätschichten machen mich echt fertig. "
               "Hast du Tipps, wie man danach besser einschläft?",
               "Gönn dir nach der Schicht eine halbe Stunde ohne Bildschirm zum Runterkommen.",
               ("Der Nutzer ist Koch in einem Hotel",)),),
         (Turn("Ich hab im Hotel gekündigt! Fahr jetzt Lkw für eine Spedition, endlich "
               "geregelte Zeiten.",
               "Glückwunsch zum Neuanfang!",
               ("Der Nutzer hat im Hotel gekündigt und fährt jetzt Lkw für eine Spedition",),
               ends=True),)),
        "Was arbeite ich?", current=("Lkw",), old=("Koch",),
    ),
    Scenario(
        4, "club football given up for bouldering",
        ((Turn("Ich spiel jeden Dienstag Fußball im Verein, Kreisliga halt 😄 Was hilft "
               "gegen Muskelkater?",
               "Leichtes Auslaufen, genug trinken und Schlaf helfen am meisten.",
               ("Der Nutzer spielt jeden Dienstag Fußball im Verein in der Kreisliga",)),),
         (Turn("Mit Fußball ist Schluss, mein Knie macht nicht mehr mit. Ich geh jetzt "
               "stattdessen bouldern.",
               "Bouldern ist eine super Alternative, schont das Knie aber auch nicht immer.",
               ("Der Nutzer spielt wegen seines Knies keinen Fußball mehr und geht jetzt "
                "bouldern",), ends=True),)),
        "Welchen Sport mache ich?", current=("bouldern",), old=("Fußball",),
    ),
    Scenario(
        5, "a move to Hamburg ends the Bremen gym, not the birthplace or Werder",
        ((Turn("Ich wohne in Bremen und trainier dreimal die Woche im Fitnessstudio Eisenhalle "
               "in Bremen-Walle. Lohnt sich da ein Jahresvertrag?",
               "Bei dreimal pro Woche rechnet sich ein Jahresvertrag meistens.",
               ("Der Nutzer wohnt in Bremen",
                "Der Nutzer trainiert dreimal pro Woche im Fitnessstudio Eisenhalle in "
                "Bremen-Walle")),
          Turn("Ich bin übrigens auch in Bremen geboren und Werder-Fan durch und durch.",
               "Dann ist das Weserstadion ja Pflicht!",
               ("Der Nutzer ist in Bremen geboren", "Der Nutzer ist Werder-Bremen-Fan"))),
         (Turn("So, seit letztem Monat wohnen wir in Hamburg. Der Umzug war die Hölle.",
               "Willkommen in Hamburg! Schön, dass es geschafft ist.",
               ("Der Nutzer wohnt seit letztem Monat in Hamburg",), ends=True),)),
        "Wo wohne ich jetzt?", current=("Hamburg",), old=("Eisenhalle",),
        kept=("geboren", "Werder"),
    ),
    Scenario(
        6, "coeliac disease said again as a reminder",
        ((Turn("Ich hab Zöliakie, also bitte bei Rezepten immer an glutenfrei denken.",
               "Alles klar, ich schlage dir nur glutenfreie Rezepte vor.",
               ("Der Nutzer hat Zöliakie und braucht glutenfreie Rezepte",)),),
         (Turn("Nochmal zur Erinnerung, weil's wichtig ist: wegen meiner Zöliakie geht bei "
               "mir nur glutenfrei, schon ein paar Krümel reichen.",
               f"{ECHO} Ich achte drauf.",
               ("Der Nutzer hat Zöliakie und muss streng glutenfrei essen",)),)),
        "Worauf muss ich beim Essen achten?", current=("Zöliakie",), kept=("Zöliakie",),
    ),
)  # fmt: skip

UNSEEN_ES: tuple[Scenario, ...] = (
    Scenario(
        1, "a wedding guest count corrected right after a relative date",
        ((Turn("Mi prima se casa dentro de dos semanas y ya somos 120 invitados. ¿Qué le "
               "puedo regalar que no sea lo típico?",
               "Una experiencia para los dos, como una cena o una escapada, suele gustar mucho.",
               ("La prima del usuario se casa dentro de dos semanas y hay 120 invitados",)),
          Turn("Ay, perdón, me equivoqué: son 150 invitados, no 120.",
               "Nada, 150 entonces.",
               ("La boda de la prima del usuario tendrá 150 invitados",), ends=True)),),
        "¿Cuántos invitados hay en la boda de mi prima?", current=("150",), old=("120",),
    ),
    Scenario(
        2, "a move from Guadalajara to Monterrey in a later conversation",
        ((Turn("Vivo en Guadalajara, por la colonia Providencia. ¿Algún lugar bueno de birria "
               "por ahí?",
               "Por Providencia hay varias birrierías con buena fama; pregunta por las de "
               "chivo tatemado.",
               ("El usuario vive en Guadalajara, en la colonia Providencia",)),),
         (Turn("¡Ya estamos en Monterrey! Nos cambiamos hace un mes por el trabajo de mi "
               "esposa.",
               "¡Qué emoción, bienvenido a Monterrey!",
               ("El usuario se mudó a Monterrey hace un mes por el trabajo de su esposa",),
               ends=True),)),
        "¿Dónde vivo?", current=("Monterrey",), old=("Guadalajara",),
    ),
    Scenario(
        3, "an English teacher leaves the academy to become a tour guide",
        ((Turn("Soy profe de inglés en una academia y este año me han tocado grupos de niños. "
               "¿Ideas para que no se aburran?",
               "Juegos con movimiento y canciones funcionan genial con los peques.",
               ("El usuario es profesor de inglés en una academia",)),),
         (Turn("Al final dejé la academia. Ahora curro de guía turístico en Sevilla, ¡me "
               "encanta!",
               "¡Qué buen cambio! Sevilla es perfecta para eso.",
               ("El usuario dejó la academia y ahora trabaja de guía turístico en Sevilla",),
               ends=True),)),
        "¿En qué trabajo?", current=("guía",), old=("inglés",),
    ),
    Scenario(
        4, "a daily meat eater turns vegetarian",
        ((Turn("Yo como carne casi todos los días, soy muy carnívoro. ¿Me pasas una receta "
               "rica de carne guisada?",
               "Claro, un guiso de ternera con papas y pimentón es un acierto.",
               ("El usuario come carne casi todos los días",)),),
         (Turn("Te cuento que ya no como carne: me hice vegetariano hace un mes.",
               "¡Qué cambio! Te propondré platos vegetarianos entonces.",
               ("El usuario ya no come carne y es vegetariano desde hace un mes",),
               ends=True),)),
        "¿Qué dieta llevo?", current=("vegetariano",), old=("carne",),
    ),
    Scenario(
        5, "a move to Córdoba ends the son's school in Rosario, not the sister there",
        ((Turn("Vivo en Rosario y mi hijo va al colegio Los Aromos, acá en Rosario. ¿Me "
               "ayudás a armar la lista de útiles?",
               "¡Dale! Arranquemos por cuadernos, lápices y la cartuchera.",
               ("El usuario vive en Rosario",
                "El hijo del usuario va al colegio Los Aromos en Rosario")),
          Turn("Ah, y mi hermana Carla también vive en Rosario.",
               "¡Qué bueno tener familia cerca!",
               ("La hermana del usuario, Carla, vive en Rosario",))),
         (Turn("Nos mudamos a Córdoba la semana pasada, todavía estoy entre cajas.",
               "¡Mucha suerte con la mudanza y bienvenidos a Córdoba!",
               ("El usuario se mudó a Córdoba la semana pasada",), ends=True),)),
        "¿Dónde vivo ahora?", current=("Córdoba",), old=("Aromos",), kept=("Carla",),
    ),
    Scenario(
        6, "a Betis fan says it again with the reason",
        ((Turn("Soy del Betis, ¿sabes cuándo juega el próximo partido?",
               "No tengo el calendario al día, pero lo puedes mirar en la web del club.",
               ("El usuario es aficionado del Betis",)),),
         (Turn("Te lo recuerdo: soy del Betis de toda la vida, me lo pegó mi abuelo. ¡Musho "
               "Betis!",
               f"{ECHO} ¡Eso no se olvida!",
               ("El usuario es aficionado del Betis de toda la vida, por su abuelo",)),)),
        "¿De qué equipo soy?", current=("Betis",), kept=("Betis",),
    ),
)  # fmt: skip

UNSEEN_ZH: tuple[Scenario, ...] = (
    Scenario(
        1, "a wedding gift amount corrected right after a relative date",
        ((Turn("下周五同事结婚，份子钱我打算包600，你觉得合适吗？",
               "在很多城市，同事之间包600挺常见的，算合适。",
               ("用户下周五参加同事的婚礼，打算包600元份子钱",)),
          Turn("啊不对，我说错了，是800，不是600。",
               "好的，那就是800。",
               ("用户打算给同事包800元份子钱",), ends=True)),),
        "我打算给同事包多少份子钱？", current=("800",), old=("600",),
    ),
    Scenario(
        2, "a move from Chengdu to Hangzhou in a later conversation",
        ((Turn("我在成都住了快六年了，周末想找个人少点的地方喝茶，有推荐吗？",
               "可以去人民公园附近转转，或者找找小巷子里的老茶馆。",
               ("用户在成都住了快六年",)),),
         (Turn("跟你说个事，我上个月搬到杭州了，还在适应中。",
               "恭喜搬家！杭州的节奏慢慢就习惯了。",
               ("用户上个月搬到杭州了",), ends=True),)),
        "我现在住在哪里？", current=("杭州",), old=("成都",),
    ),
    Scenario(
        3, "a bank teller quits and opens a milk tea shop",
        ((Turn("我在银行当柜员，每天坐一整天，腰疼得不行，有什么缓解的办法？",
               "每隔一小时起来活动几分钟，再配合一些拉伸会好很多。",
               ("用户在银行当柜员",)),),
         (Turn("我已经从银行辞职了，现在自己开了家奶茶店。",
               "哇，自己当老板了，恭喜！",
               ("用户从银行辞职了，现在自己开了一家奶茶店",), ends=True),)),
        "我现在是做什么工作的？", current=("奶茶店",), old=("柜员",),
    ),
    Scenario(
        4, "weekend badminton given up for swimming",
        ((Turn("我每个周末都去打羽毛球，最近总觉得手腕有点酸。",
               "可能是握拍太紧了，打之前多做做热身。",
               ("用户每个周末都打羽毛球",)),),
         (Turn("膝盖伤了，羽毛球是打不了了，现在改成去游泳。",
               "游泳对膝盖友好，挺好的选择。",
               ("用户因膝盖受伤不再打羽毛球，现在改为游泳",), ends=True),)),
        "我平时做什么运动？", current=("游泳",), old=("羽毛球",),
    ),
    Scenario(
        5, "a move to Shenzhen ends the child's school in Nanjing, not the sister there",
        ((Turn("我住在南京，孩子在南京的育英小学上二年级，想给他报个课外班，有什么建议？",
               "二年级可以先从孩子感兴趣的开始，比如画画或者围棋。",
               ("用户住在南京", "用户的孩子在南京的育英小学上二年级")),
          Turn("对了，我姐姐一家也在南京。",
               "亲人离得近挺好的。",
               ("用户的姐姐一家住在南京",))),
         (Turn("我们一家三口上周搬到深圳了，东西还没收拾完。",
               "恭喜乔迁！慢慢收拾。",
               ("用户一家三口上周搬到深圳了",), ends=True),)),
        "我现在住在哪里？", current=("深圳",), old=("育英",), kept=("姐姐",),
    ),
    Scenario(
        6, "a penicillin allergy said again with the reason",
        ((Turn("我对青霉素过敏，以后聊到用药的时候帮我留意一下。",
               "好的，我会记住的。",
               ("用户对青霉素过敏",)),),
         (Turn("再提醒你一下哈，我青霉素过敏，小时候打针差点休克，这个真的很重要。",
               f"{ECHO} 放心，我记着呢。",
               ("用户对青霉素过敏，小时候打针差点休克",)),)),
        "我对什么药过敏？", current=("青霉素",), kept=("青霉素",),
    ),
)  # fmt: skip
