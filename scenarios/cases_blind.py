"""Held-out scenarios written blind: without sight of the product's code, docs, tests or other
scenarios (only the ``Turn``/``Scenario`` format was seen). Six behaviours in English, German,
Spanish, Simplified Chinese and Japanese, each language with its own people, places, numbers and
situations (none is a translation of another):

1. a number corrected in the same conversation, casually (no "not X");
2. a change of residence said indirectly in a later conversation ("since we got to X");
3. a job, school or role change said in a later conversation;
4. a habit, diet or hobby that ended or was replaced, said colloquially later;
5. a cascade: a change (remote job, move, new car, breakup) ends something that depended on it,
   while something unrelated that merely mentions the same person/place/thing stays (``kept``);
6. a fact said again later in other words, with an extra detail: it stays one memory.
"""

from __future__ import annotations

from scenarios.cases import Scenario, Turn

BLIND_EN: tuple[Scenario, ...] = (
    Scenario(
        1,
        "years married corrected casually in the same chat",
        (
            (
                Turn(
                    "Our anniversary's coming up in October, 12 years married (how??). Any ideas "
                    "that aren't just the usual fancy dinner? She hates surprises btw",
                    "How about recreating your first date, or a weekend trip you plan together?",
                    ("User's wedding anniversary is in October; User has been married 12 years",),
                ),
                Turn(
                    "lol my wife just read over my shoulder, it's lucky 13 this year. I was "
                    "counting from the engagement. Does that change the gift theme thing?",
                    "Traditionally the 13th is lace, so that could be a fun angle.",
                    ("User has been married 13 years, anniversary in October",),
                    ends=True,
                ),
            ),
        ),
        "How many years will we have been married this October?",
        current=("13",),
        old=("12",),
    ),
    Scenario(
        2,
        "a move implied by a later aside about winter",
        (
            (
                Turn(
                    "Living in Tucson in July is no joke. Any tricks to keep a second floor "
                    "apartment cool without the AC running 24/7?",
                    "Blackout curtains, fans at night, and closing up before 9am help a lot.",
                    ("User lives in Tucson in a second-floor apartment",),
                ),
            ),
            (
                Turn(
                    "ok so ever since we got to Duluth I've realized I own zero real winter "
                    "clothes haha. What should I look for in a parka that'll handle -20?",
                    "Look for a down fill of 650+, a hood with a brim and a long cut.",
                    ("User now lives in Duluth",),
                    ends=True,
                ),
            ),
        ),
        "What's the weather usually like where I live this time of year?",
        current=("Duluth",),
        old=("Tucson",),
    ),
    Scenario(
        3,
        "line cook becomes a hospital kitchen supervisor",
        (
            (
                Turn(
                    "Working doubles at Harlow's all weekend, line cook life. What can I eat on a "
                    "10 minute break that isn't just fries off the pass?",
                    "Hard-boiled eggs, a banana with peanut butter, or a wrap you prep ahead.",
                    ("User works as a line cook at Harlow's",),
                ),
            ),
            (
                Turn(
                    "First week running the kitchen at St. Brigid's hospital cafeteria and "
                    "honestly?? weekends off, no more doubles. I have to write staff schedules "
                    "for 9 people now though, any template ideas?",
                    "A simple weekly grid per role with shift codes works well to start.",
                    ("User is now the kitchen supervisor at St. Brigid's hospital cafeteria",),
                    ends=True,
                ),
            ),
        ),
        "Can you help me write a short intro about my job for a LinkedIn profile?",
        current=("Brigid",),
        old=("Harlow",),
    ),
    Scenario(
        4,
        "Sunday runs replaced by pickleball",
        (
            (
                Turn(
                    "I do the river loop every Sunday morning with my running club, the "
                    "Mudlarks. Is it dumb to run a 10k the day after leg day?",
                    "Not dumb, but keep the pace easy and listen to your legs.",
                    (
                        "User runs the river loop every Sunday morning with the Mudlarks "
                        "running club",
                    ),
                ),
            ),
            (
                Turn(
                    "Sunday mornings are pickleball now, my shins finally waved the white flag. "
                    "What paddle should a total beginner get?",
                    "A mid-weight polymer-core paddle around 7.8 oz is a safe first pick.",
                    ("User now plays pickleball on Sunday mornings",),
                    ends=True,
                ),
            ),
        ),
        "What do I usually do on Sunday mornings?",
        current=("pickleball",),
        old=("Mudlarks",),
    ),
    Scenario(
        5,
        "going remote ends the carpool, not the godmother",
        (
            (
                Turn(
                    "I carpool to work every day with my coworker Priya, she drives and I chip "
                    "in for gas. How much is fair for like 30 miles round trip?",
                    "Splitting the fuel cost plus a bit for wear is common, maybe $40-60 a month.",
                    ("User carpools to work every day with coworker Priya",),
                ),
                Turn(
                    "Also Priya is my son Theo's godmother, his birthday's next month and she "
                    "always goes overboard with presents lol",
                    "Sounds like Theo has a great godmother!",
                    ("Priya is the godmother of User's son Theo",),
                ),
            ),
            (
                Turn(
                    "Big news, the company went fully remote as of this month so I'm working from "
                    "the kitchen table now. Tips for a desk setup in a tiny apartment?",
                    "A wall-mounted fold-down desk and a good chair go a long way.",
                    ("User now works fully remote from home",),
                    ends=True,
                ),
            ),
        ),
        "How do I get to work these days?",
        current=("remote",),
        old=("carpool|carpools",),
        kept=("godmother",),
    ),
    Scenario(
        6,
        "type 1 diabetes restated with a pump detail",
        (
            (
                Turn(
                    "I'm type 1 diabetic, diagnosed at 15. Can you suggest a breakfast that won't "
                    "spike me too hard?",
                    "Eggs with veggies and some whole-grain toast are usually gentle.",
                    ("User has type 1 diabetes, diagnosed at 15",),
                ),
            ),
            (
                Turn(
                    "heads up as a T1D on an Omnipod, I need carb counts on any recipe you give "
                    "me. ok what's a decent high-protein lunch?",
                    "Sure, I'll include carbs. Chicken quinoa bowl: about 45 g carbs.",
                    (
                        "User has type 1 diabetes, uses an Omnipod insulin pump and wants carb "
                        "counts on recipes",
                    ),
                ),
            ),
        ),
        "Any snack ideas for a long hike, given my health situation?",
        current=("type 1",),
        kept=("type 1",),
    ),
)

BLIND_DE: tuple[Scenario, ...] = (
    Scenario(
        1,
        "Körpergröße nachgemessen im selben Gespräch",
        (
            (
                Turn(
                    "Will mir endlich ein Gravelbike holen, bin 1,78, welche Rahmengröße passt "
                    "da ungefähr? Fahr hauptsächlich Schotter am Wochenende",
                    "Bei 1,78 m liegst du meist bei Rahmengröße M, je nach Hersteller.",
                    ("Der Nutzer will sich ein Gravelbike kaufen", "Der Nutzer ist 1,78 m groß"),
                ),
                Turn(
                    "Moment, hab grad mit dem Zollstock am Türrahmen nachgemessen, 1,83 😅 die "
                    "andere Zahl war wohl noch von vor Jahren. Ändert das was?",
                    "Dann eher M/L oder L, am besten probefahren.",
                    ("Der Nutzer ist 1,83 m groß",),
                    ends=True,
                ),
            ),
        ),
        "Wie groß bin ich nochmal, und welche Rahmengröße passt?",
        current=("1,83",),
        old=("1,78",),
    ),
    Scenario(
        2,
        "Umzug nebenbei erwähnt",
        (
            (
                Turn(
                    "Ich wohn in Bielefeld (ja, gibt's wirklich haha). Was kann man hier bei "
                    "Regen am Sonntag machen außer Kino?",
                    "Die Kunsthalle, ein Thermenbesuch oder eine Boulderhalle wären Optionen.",
                    ("Der Nutzer wohnt in Bielefeld",),
                ),
            ),
            (
                Turn(
                    "Seit wir in Freiburg sind fahr ich eigentlich nur noch Rad, das Auto steht "
                    "nur rum. Lohnt sich Verkaufen oder eher abmelden?",
                    "Wenn du es kaum brauchst, spart Verkaufen Versicherung und Steuer.",
                    ("Der Nutzer wohnt jetzt in Freiburg und fährt fast nur noch Rad",),
                    ends=True,
                ),
            ),
        ),
        "Hast du Ausflugstipps in der Nähe meiner Stadt?",
        current=("Freiburg",),
        old=("Bielefeld",),
    ),
    Scenario(
        3,
        "von der Ausbildung ins Studium",
        (
            (
                Turn(
                    "Bin im dritten Lehrjahr als Industriemechaniker bei Krones, im Winter ist "
                    "Abschlussprüfung. Wie lern ich am besten neben der Schicht?",
                    "Kurze feste Lerneinheiten nach der Schicht und alte Prüfungen durchgehen.",
                    ("Der Nutzer macht eine Ausbildung zum Industriemechaniker bei Krones",),
                ),
            ),
            (
                Turn(
                    "Prüfung bestanden!! Und ab Oktober sitz ich in Rosenheim an der TH, "
                    "Maschinenbau. Wie überleb ich Mathe 1 ohne Abi-Mathe-Niveau?",
                    "Vorkurs mitnehmen, Übungsgruppen nutzen und jede Woche alle Blätter rechnen.",
                    ("Der Nutzer studiert ab Oktober Maschinenbau an der TH Rosenheim",),
                    ends=True,
                ),
            ),
        ),
        "Was mach ich gerade beruflich bzw. in der Ausbildung?",
        current=("Rosenheim",),
        old=("Krones",),
    ),
    Scenario(
        4,
        "Handball aufgegeben, jetzt Bouldern",
        (
            (
                Turn(
                    "Mittwochs spiel ich Handball in der Altherrenmannschaft vom TSV Eintracht. "
                    "Was hilft gegen Muskelkater am Donnerstag?",
                    "Lockeres Auslaufen, genug trinken und leichte Bewegung am Tag danach.",
                    (
                        "Der Nutzer spielt mittwochs Handball in der Altherrenmannschaft des TSV "
                        "Eintracht",
                    ),
                ),
            ),
            (
                Turn(
                    "Die Schulter macht halt nicht mehr mit, mittwochs geh ich jetzt bouldern. "
                    "Brauch ich gleich eigene Schuhe oder erstmal leihen?",
                    "Erstmal leihen, bis du weißt, ob's dir gefällt.",
                    ("Der Nutzer geht jetzt mittwochs bouldern",),
                    ends=True,
                ),
            ),
        ),
        "Was mach ich mittwochs abends normalerweise?",
        current=("bouldern",),
        old=("Eintracht",),
    ),
    Scenario(
        5,
        "Umzug beendet die Physio, nicht den Anruf bei der Oma",
        (
            (
                Turn(
                    "Ich geh in Mainz zweimal die Woche zur Physio Kessler wegen meinem Knie. "
                    "Kann ich zuhause zusätzlich was machen?",
                    "Leichte Kräftigung wie Wandsitzen und Brücke, mit der Physio absprechen.",
                    (
                        "Der Nutzer geht in Mainz zweimal pro Woche zur Physio Kessler "
                        "wegen seines Knies",
                    ),
                ),
                Turn(
                    "Meine Oma wohnt auch in Mainz, ich ruf sie jeden Sonntag an. Sie wird 90 "
                    "im Mai, was schenkt man da??",
                    "Ein Fotobuch mit Familienbildern kommt in dem Alter oft gut an.",
                    ("Die Oma des Nutzers wohnt in Mainz; der Nutzer ruft sie jeden Sonntag an",),
                ),
            ),
            (
                Turn(
                    "So, Kisten sind ausgepackt, jetzt Hamburg-Altona 🙌 Wie find ich hier ne "
                    "gute Physiopraxis fürs Knie?",
                    "Frag deinen Orthopäden nach Empfehlungen und schau auf Bewertungsportale.",
                    ("Der Nutzer wohnt jetzt in Hamburg-Altona und sucht eine neue Physiopraxis",),
                    ends=True,
                ),
            ),
        ),
        "Wohin geh ich gerade zur Physio wegen dem Knie?",
        current=("Hamburg",),
        old=("Kessler",),
        kept=("Oma",),
    ),
    Scenario(
        6,
        "Cello nochmal erwähnt, mit Orchester",
        (
            (
                Turn(
                    "Ich spiel seit der Schulzeit Cello, inzwischen halt nur noch hobbymäßig. "
                    "Welcher Kolophonium ist gut bei trockener Heizungsluft?",
                    "Ein mittelweiches Kolophonium, z. B. von Pirastro, passt meist gut.",
                    ("Der Nutzer spielt seit der Schulzeit hobbymäßig Cello",),
                ),
            ),
            (
                Turn(
                    "Heut Abend Probe mit meinem Laienorchester, wir machen Mahler 1 und meine "
                    "Stimme im dritten Satz bringt mich um. Wie übt man sowas langsam richtig?",
                    "Mit Metronom stark verlangsamt, in kleinen Abschnitten, dann steigern.",
                    (
                        "Der Nutzer spielt Cello in einem Laienorchester, das gerade Mahlers 1. "
                        "Sinfonie probt",
                    ),
                ),
            ),
        ),
        "Welches Instrument spiel ich nochmal?",
        current=("Cello",),
        kept=("Cello",),
    ),
)

BLIND_ES: tuple[Scenario, ...] = (
    Scenario(
        1,
        "fecha de vuelo corregida al mirar el billete",
        (
            (
                Turn(
                    "Oye, mi vuelo a Lima es el 14 de julio, ¿me ayudas con la maleta? Allí es "
                    "invierno en julio, ¿no? No tengo ni idea de qué llevar",
                    "Sí, es invierno: húmedo y gris, unos 15-18 °C. Lleva capas.",
                    ("El usuario vuela a Lima el 14 de julio",),
                ),
                Turn(
                    "Uy, que me he liado, acabo de mirar el billete y es el 21. Bueno, lo de la "
                    "ropa sigue valiendo igual, ¿no?",
                    "Sí, una semana más tarde el tiempo será parecido.",
                    ("El vuelo del usuario a Lima es el 21 de julio",),
                    ends=True,
                ),
            ),
        ),
        "¿Qué día salía mi vuelo a Lima?",
        current=("21",),
        old=("14",),
    ),
    Scenario(
        2,
        "mudanza dicha de pasada: el depa nuevo",
        (
            (
                Turn(
                    "Vivo en Puebla y quiero hacer mole para la fiesta de mi jefa, ¿en qué "
                    "mercado consigo buenos chiles secos?",
                    "El mercado de La Acocota o el 5 de Mayo suelen tener buena variedad.",
                    ("El usuario vive en Puebla",),
                ),
            ),
            (
                Turn(
                    "Ya instalados en el depa nuevo en Querétaro! La azotea pega un sol bárbaro, "
                    "¿qué plantas aguantan eso sin morirse a la semana?",
                    "Suculentas, lavanda, romero y buganvilia aguantan muy bien el sol.",
                    ("El usuario vive ahora en un departamento nuevo en Querétaro",),
                    ends=True,
                ),
            ),
        ),
        "¿Qué puedo hacer este fin de semana cerca de donde vivo?",
        current=("Querétaro",),
        old=("Puebla",),
    ),
    Scenario(
        3,
        "de estudiante de enfermería a enfermera en urgencias",
        (
            (
                Turn(
                    "Estoy en cuarto de Enfermería en la Universidad de Salamanca y las prácticas "
                    "me están matando, ¿cómo organizo el TFG sin morir?",
                    "Fija un bloque diario corto y pacta un calendario con tu tutor.",
                    ("El usuario estudia cuarto de Enfermería en la Universidad de Salamanca",),
                ),
            ),
            (
                Turn(
                    "Pues ya soy enfermera de verdad jaja, me cogieron en La Paz, en Madrid, "
                    "urgencias y turno de noche. ¿Cómo hago para dormir de día??",
                    "Persianas opacas, tapones, y la misma hora de acostarte cada día.",
                    (
                        "El usuario trabaja como enfermero en urgencias del Hospital La Paz, en "
                        "Madrid, en turno de noche",
                    ),
                    ends=True,
                ),
            ),
        ),
        "¿Qué me recomiendas comer antes de ir a trabajar?",
        current=("La Paz",),
        old=("Salamanca",),
    ),
    Scenario(
        4,
        "de vegana a ovolactovegetariana",
        (
            (
                Turn(
                    "Desde que vi un documental hace como tres años no como nada de origen "
                    "animal, vegana total. ¿Ideas de cena con garbanzos que no sean hummus?",
                    "Curry de garbanzos con espinacas o garbanzos crujientes al horno.",
                    ("El usuario es vegano desde hace unos tres años",),
                ),
            ),
            (
                Turn(
                    "Bueno, confesión: he vuelto a comer huevos y queso, el médico me vio fatal "
                    "de B12. O sea que ovolacto básicamente. ¿Una tortilla que no sea la de "
                    "patatas?",
                    "Tortilla de calabacín y queso de cabra, rápida y rica.",
                    ("El usuario es ahora ovolactovegetariano: come huevos y queso",),
                    ends=True,
                ),
            ),
        ),
        "¿Me pasas una receta rápida de cena que encaje con mi dieta?",
        current=("ovolactovegetariano|ovolactovegetariana|ovolacto",),
        old=("vegano|vegana",),
    ),
    Scenario(
        5,
        "coche nuevo acaba con el bus, no con la hermana conductora",
        (
            (
                Turn(
                    "Cada mañana cojo el 27 para ir a la ofi, son 40 minutos y aprovecho para "
                    "leer. ¿Me recomiendas alguna novela corta?",
                    "«Crónica de una muerte anunciada» se lee en un par de trayectos.",
                    (
                        "El usuario va cada mañana a la oficina en el autobús 27 y lee en el "
                        "trayecto",
                    ),
                ),
                Turn(
                    "Por cierto, mi hermana Lucía es conductora en la EMT y está harta de los "
                    "turnos partidos, ¿se puede pedir un cambio?",
                    "Normalmente sí, a través de RR. HH. o del comité de empresa.",
                    ("La hermana del usuario, Lucía, es conductora de autobús en la EMT",),
                ),
            ),
            (
                Turn(
                    "Por fin tengo coche!! Un Sandero de segunda mano, ya voy a la ofi en coche. "
                    "¿Cada cuánto hay que cambiar el aceite?",
                    "Cada 15.000 km o una vez al año, lo que llegue antes.",
                    (
                        "El usuario se compró un Dacia Sandero de segunda mano y ahora va en coche "
                        "a la oficina",
                    ),
                    ends=True,
                ),
            ),
        ),
        "¿Cómo voy al trabajo normalmente?",
        current=("Sandero",),
        old=("27",),
        kept=("Lucía",),
    ),
    Scenario(
        6,
        "la galga Chispa, otra vez y con edad",
        (
            (
                Turn(
                    "Adopté una galga hace nada, se llama Chispa y es miedosísima, se esconde "
                    "detrás del sofá. ¿Cómo la ayudo?",
                    "Rutinas fijas, espacio seguro y premios cuando se acerque sola.",
                    ("El usuario adoptó una galga llamada Chispa, muy miedosa",),
                ),
            ),
            (
                Turn(
                    "Mi Chispa ya está muchísimo mejor, con 5 años y ya ni se asusta del "
                    "ascensor. ¿Qué juguetes le van bien a una galga?",
                    "Peluches sin relleno y juguetes de tirar suelen encantarles.",
                    ("El usuario tiene una galga adoptada llamada Chispa, de 5 años",),
                ),
            ),
        ),
        "¿Qué pienso le iría bien a mi perra?",
        current=("Chispa",),
        kept=("Chispa",),
    ),
)

BLIND_ZH: tuple[Scenario, ...] = (
    Scenario(
        1,
        "装修预算对账后改了",
        (
            (
                Turn(
                    "我们家老房子准备装修，两室一厅，预算大概15万，你觉得够不够啊？",
                    "两室一厅的中档装修，15万左右基本够用，看材料选择。",
                    ("用户家准备装修老房子（两室一厅），预算约15万元",),
                ),
                Turn(
                    "刚跟我老公对了下账，其实是18万，厨房那块之前没算进去。那这样吊顶能做好一点吗",
                    "可以，多出来的预算可以用在吊顶和厨房柜体上。",
                    ("用户家装修预算是18万元（含厨房）",),
                    ends=True,
                ),
            ),
        ),
        "我家装修预算是多少来着？",
        current=("18万",),
        old=("15万",),
    ),
    Scenario(
        2,
        "来杭州之后吃不惯",
        (
            (
                Turn(
                    "在成都住了五年，火锅都吃腻了哈哈，周末有啥不辣的好去处推荐吗",
                    "可以去望江楼公园走走，或者尝尝本地的粤菜、日料。",
                    ("用户住在成都",),
                ),
            ),
            (
                Turn(
                    "来杭州之后发现这边菜偏甜，真有点不习惯……有没有不甜的馆子类型推荐一下？",
                    "可以试试西北菜、湘菜或者烧烤，口味会重一些。",
                    ("用户现在住在杭州",),
                    ends=True,
                ),
            ),
        ),
        "我住的城市最近有什么适合周末去的地方？",
        current=("杭州",),
        old=("成都",),
    ),
    Scenario(
        3,
        "奶茶店长辞职考公",
        (
            (
                Turn(
                    "我在一家奶茶店当店长，天天排班排到头秃，有什么好用的排班小工具吗？",
                    "可以用共享表格或者简单的排班App，按人设模板。",
                    ("用户在一家奶茶店当店长",),
                ),
            ),
            (
                Turn(
                    "辞职了！现在全职在家考公，每天早上七点就去图书馆刷行测，申论完全不会写怎么办",
                    "先背范文结构，再每周写两篇限时练习。",
                    ("用户辞职后全职备考公务员",),
                    ends=True,
                ),
            ),
        ),
        "我现在每天主要在忙什么？",
        current=("公务员",),
        old=("店长",),
    ),
    Scenario(
        4,
        "羽毛球换成飞盘",
        (
            (
                Turn(
                    "我每天下班都去公司楼下打羽毛球，一打就俩小时，膝盖最近有点酸，要紧吗",
                    "注意热身和护膝，酸痛持续的话减少频率。",
                    ("用户每天下班都在公司楼下打羽毛球",),
                ),
            ),
            (
                Turn(
                    "最近入坑飞盘了，周末天天约人去草坪上玩，球拍都吃灰了哈哈。新手买什么盘好？",
                    "175克的标准极限飞盘就行，入门很友好。",
                    ("用户最近改玩飞盘，周末常约人去草坪玩",),
                    ends=True,
                ),
            ),
        ),
        "我平时主要做什么运动？",
        current=("飞盘",),
        old=("羽毛球",),
    ),
    Scenario(
        5,
        "分手结束了一起爬山，但室友小雨还在",
        (
            (
                Turn(
                    "我和男朋友阿杰每个周末都一起去爬梧桐山，有没有人少一点的路线？",
                    "可以试试从泰山涧上山，人会比凤凰台少一些。",
                    ("用户和男朋友阿杰每个周末一起爬梧桐山",),
                ),
                Turn(
                    "对了阿杰的妹妹小雨是我大学室友，我们下个月一起去大阪玩，帮我列个行程呗",
                    "第一天道顿堀，第二天环球影城，第三天去奈良看鹿。",
                    ("阿杰的妹妹小雨是用户的大学室友，两人下个月一起去大阪玩",),
                ),
            ),
            (
                Turn(
                    "跟阿杰分手了……周末突然空出来不知道干嘛，有啥一个人也能去的活动吗",
                    "抱抱你。可以试试城市徒步、陶艺课或者去看展。",
                    ("用户已经和阿杰分手了",),
                    ends=True,
                ),
            ),
        ),
        "我周末一般都干什么？",
        current=("分手",),
        old=("梧桐山",),
        kept=("小雨",),
    ),
    Scenario(
        6,
        "乳糖不耐又提了一次",
        (
            (
                Turn(
                    "我乳糖不耐受，一喝牛奶就拉肚子，早餐除了豆浆还能喝啥？",
                    "燕麦奶、杏仁奶或者无乳糖牛奶都可以。",
                    ("用户乳糖不耐受",),
                ),
            ),
            (
                Turn(
                    "我点拿铁一般都换燕麦奶，毕竟乳糖不耐嘛。燕麦奶拿铁和美式哪个热量低？",
                    "美式热量低很多，燕麦奶拿铁大概一百多大卡。",
                    ("用户乳糖不耐受，点拿铁会换成燕麦奶",),
                ),
            ),
        ),
        "帮我推荐个下午茶甜点吧，注意我的饮食情况",
        current=("乳糖不耐",),
        kept=("乳糖不耐",),
    ),
)

BLIND_JA: tuple[Scenario, ...] = (
    Scenario(
        1,
        "中古マンションの築年数を言い直す",
        (
            (
                Turn(
                    "中古マンション買おうか迷ってて、いま見てる候補が築15年なんだよね。"
                    "修繕積立金とか大丈夫かな？",
                    "築15年なら大規模修繕の時期と積立金の残高を確認すると安心です。",
                    ("ユーザーは中古マンションの購入を検討中で、候補物件は築15年",),
                ),
                Turn(
                    "あ、ごめん資料ちゃんと見たら築23年だったわ、別の物件と混ざってた。"
                    "それでもローン通るもん？",
                    "築23年でも通ることは多いですが、期間が短くなる場合があります。",
                    ("ユーザーが購入を検討中の中古マンションは築23年",),
                    ends=True,
                ),
            ),
        ),
        "検討してるマンションって築何年だったっけ？",
        current=("23年",),
        old=("15年",),
    ),
    Scenario(
        2,
        "福岡に来てからの話で引っ越しが分かる",
        (
            (
                Turn(
                    "札幌住みなんだけど、毎朝の雪かきでもう腰が限界…。楽になる道具ある？",
                    "スノーダンプや腰に優しい柄の長いスコップがおすすめです。",
                    ("ユーザーは札幌に住んでいる",),
                ),
            ),
            (
                Turn(
                    "福岡来てからラーメン食べすぎてやばいw\n週3はさすがにまずいよね？"
                    "ヘルシーな代わりある？",
                    "うどんや水炊きなら比較的ヘルシーですよ。",
                    ("ユーザーは現在福岡に住んでいる",),
                    ends=True,
                ),
            ),
        ),
        "うちの近くで週末行けるおすすめスポットある？",
        current=("福岡",),
        old=("札幌",),
    ),
    Scenario(
        3,
        "銀行窓口からIT企業へ転職",
        (
            (
                Turn(
                    "地方銀行で窓口やってるんだけど、クレーム対応のあと気持ちの切り替えが"
                    "うまくできなくて。コツある？",
                    "深呼吸して、一度席を外して短い休憩を取るだけでも違います。",
                    ("ユーザーは地方銀行の窓口で働いている",),
                ),
            ),
            (
                Turn(
                    "転職してIT企業のカスタマーサクセスになりました！リモート多めで快適。"
                    "でもSaaSの用語が全然わからん、何から覚えればいい？",
                    "まずはチャーン、MRR、オンボーディングあたりから覚えましょう。",
                    ("ユーザーはIT企業でカスタマーサクセスとして働いている",),
                    ends=True,
                ),
            ),
        ),
        "自己紹介で今の仕事を一言で言うならどう書けばいい？",
        current=("カスタマーサクセス",),
        old=("銀行",),
    ),
    Scenario(
        4,
        "晩酌の日本酒をノンアルに",
        (
            (
                Turn(
                    "毎晩寝る前に日本酒一合飲むのが楽しみなんだよね。冬におすすめの銘柄ある？",
                    "燗にするなら「菊正宗」や「黒龍」あたりが合います。",
                    ("ユーザーは毎晩寝る前に日本酒を一合飲むのが楽しみ",),
                ),
            ),
            (
                Turn(
                    "健康診断でγ-GTP引っかかっちゃって、最近晩酌はノンアルに切り替えたよ。"
                    "美味しいノンアルビール知らない？",
                    "「のんある晴れ風」や「オールフリー」が人気です。",
                    ("ユーザーは最近、寝る前の晩酌をノンアルコール飲料に切り替えた",),
                    ends=True,
                ),
            ),
        ),
        "寝る前に何飲むのがいいと思う？",
        current=("ノンアル",),
        old=("日本酒",),
    ),
    Scenario(
        5,
        "大阪への引っ越しで横浜の歯医者は終わり、ベイスターズ好きは残る",
        (
            (
                Turn(
                    "横浜の家の近くの「みなと歯科」に3ヶ月ごとにクリーニング行ってるんだよね。"
                    "電動歯ブラシって結局いいの？",
                    "歯科で磨き方を確認すれば、電動はかなり効果的です。",
                    ("ユーザーは横浜の自宅近くのみなと歯科に3ヶ月ごとにクリーニングに通っている",),
                ),
                Turn(
                    "あと横浜ベイスターズの大ファンなんだよね。今年の補強どう思う？",
                    "投手陣の補強が鍵になりそうですね。",
                    ("ユーザーは横浜ベイスターズの大ファン",),
                ),
            ),
            (
                Turn(
                    "大阪に引っ越して1ヶ月、やっと段ボール片付いた〜。新しい歯医者探さなきゃ"
                    "なんだけど、選ぶポイントある？",
                    "予防歯科に力を入れていて、説明が丁寧なところがおすすめです。",
                    ("ユーザーは大阪に引っ越した",),
                    ends=True,
                ),
            ),
        ),
        "次の歯のクリーニング、どこに行けばいいかな？",
        current=("大阪",),
        old=("みなと歯科",),
        kept=("ベイスターズ",),
    ),
    Scenario(
        6,
        "左利きをサウスポーと言い直す",
        (
            (
                Turn(
                    "私、左利きなんで書道の授業ほんと苦手だった笑\n大人になってから習うのってアリ？",
                    "もちろんアリです。左利きでも書ける教室も増えています。",
                    ("ユーザーは左利き",),
                ),
            ),
            (
                Turn(
                    "サウスポーだから右利き用のハサミとか缶切りほんと使いにくいんだよね。"
                    "左利き用で買ってよかったもの教えて",
                    "左利き用ハサミ、ピーラー、レードルは特に便利です。",
                    ("ユーザーは左利き（サウスポー）で、右利き用のハサミが使いにくい",),
                ),
            ),
        ),
        "ギター始めたいんだけど、私に合うの選んで",
        current=("左利き",),
        kept=("左利き",),
    ),
)
