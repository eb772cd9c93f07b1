"""The nine truth scenarios and their variants as a speaker of Chinese (Simplified) says them in
a chat: the same behaviours as scenarios/cases.py, which says what each field means; data only.

The scripted model's facts and the expected values are Chinese too. Amounts are written in
digits ("10000美元", not the usual "1万美元"): the verdict compares numbers as digits, and "1万"
is the number 1. Values are chosen so that no value is part of another's words: "纯素食者"
(vegan) holds "素食" (vegetarian), so the vegetarian here is "蛋奶素".
"""

from __future__ import annotations

from scenarios.cases import ECHO, Scenario, Turn

TOLD = "你之前说过：{}。"

HAWAII = Turn(
    "我这次去夏威夷旅行的预算是10000美元。",
    "好的，10000美元的预算在夏威夷有很多选择。",
    ("用户夏威夷旅行的预算是10000美元",),
)
BUDGET_QUESTION = "我去夏威夷旅行的预算是多少？"

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        1, "Hawaii budget updated in a later session",
        ((HAWAII,), (Turn("对了，夏威夷旅行的预算现在改成15000美元了。",
                          f"{ECHO}好的，那就按15000美元来安排。",
                          ("用户夏威夷旅行的预算现在是15000美元",)),)),
        BUDGET_QUESTION, current=("15000美元",), old=("10000美元",),
    ),
    Scenario(
        2, "preference changes: lacto-ovo vegetarian to vegan",
        ((Turn("我是吃蛋奶素的。", "好的，我会给你推荐蛋奶素的菜。",
               ("用户是蛋奶素食者",)),),
         (Turn("我现在已经完全改吃纯素了。", "太好了，以后我只给你推荐纯素的菜。",
               ("用户是纯素食者",)),)),
        "我是蛋奶素还是纯素？", current=("纯素",), old=("蛋奶素",),
    ),
    Scenario(
        3, "a correction: Boston, I meant Austin",
        ((Turn("我住在波士顿。", "波士顿是个很不错的城市。", ("用户住在波士顿",)),),
         (Turn("我之前说波士顿是口误，我想说的是奥斯汀。", "谢谢你纠正，那就是奥斯汀。",
               ("用户住在奥斯汀",)),)),
        "我住在哪里？", current=("奥斯汀",), old=("波士顿",),
    ),
    Scenario(
        4, "no longer true: sold the car",
        ((Turn("我开的是一辆2015年的本田思域。", "思域挺皮实的，很可靠。",
               ("用户开一辆2015年的本田思域",)),),
         (Turn("我上周把车卖了。", "卖车可是件大事。",
               ("用户把车卖了",), ends=True),)),
        "我开的是什么车？", current=("卖",), old=("思域",),
    ),
    Scenario(
        5, "an unrelated new fact touches nothing else",
        ((HAWAII,), (Turn("我上个月开始学大提琴了。",
                          "太棒了！大提琴是很美的乐器。",
                          ("用户于2026年10月开始学大提琴",)),)),
        "我在学什么乐器？", current=("大提琴",), kept=("10000美元",),
    ),
    Scenario(
        6, "the same fact restated in other words",
        ((HAWAII,), (Turn("跟你说一声，我给夏威夷之行专门留了10000美元。",
                          "谢谢，跟我记下的一样。",
                          ("用户为夏威夷旅行留出了10000美元",)),)),
        BUDGET_QUESTION, current=("10000美元",), kept=("10000美元",),
    ),
    Scenario(
        7, "a question about what is remembered stores nothing",
        ((HAWAII,), (Turn(BUDGET_QUESTION, ECHO),)),
        BUDGET_QUESTION, current=("10000美元",), kept=("10000美元",), unchanged=True,
    ),
    Scenario(
        8, "the answer restates injected memories: no echo stored",
        # two sentences: a statement ending in a question ("…了，…吗？") states nothing to the
        # product, which reads trailing questions in English only
        ((HAWAII,), (Turn("我开始订去夏威夷的机票了。预算方面有什么需要注意的吗？",
                          f"早点订是明智的。{ECHO}",
                          ("用户正在预订去夏威夷的机票",)),)),
        BUDGET_QUESTION, current=("10000美元",), kept=("10000美元",), added=("机票",),
    ),
    Scenario(
        9, "two facts in one message, one an update",
        ((HAWAII,), (Turn("我妹妹安娜也跟我一起去，另外夏威夷旅行的预算现在是12000美元。",
                          "太好了！有12000美元，你和安娜可以多玩几天。",
                          ("用户的妹妹安娜会和用户一起去夏威夷旅行",
                           "用户夏威夷旅行的预算现在是12000美元")),)),
        BUDGET_QUESTION, current=("12000美元",), old=("10000美元",), added=("安娜",),
    ),
)  # fmt: skip

RENT = Turn(
    "我每个月房租4500元。",
    "这个价位在当地挺常见的。",
    ("用户每月房租4500元",),
)
RENT_QUESTION = "我每个月房租多少钱？"

VARIANTS: tuple[Scenario, ...] = (
    Scenario(
        1, "rent goes up",
        ((RENT,), (Turn("房租涨了，现在每个月4800元。", f"{ECHO}记下了，4800元。",
                        ("用户每月房租4800元",)),)),
        RENT_QUESTION, current=("4800元",), old=("4500元",),
    ),
    Scenario(
        2, "seat preference switches",
        ((Turn("坐飞机我喜欢靠窗的座位。", "好的，就选靠窗的。",
               ("用户坐飞机喜欢靠窗座位",)),),
         (Turn("最近坐飞机我更喜欢靠过道的座位。", "好的，以后都选靠过道的。",
               ("用户坐飞机喜欢靠过道座位",)),)),
        "坐飞机我喜欢哪种座位？", current=("过道",), old=("靠窗",),
    ),
    Scenario(
        3, "a name corrected (a homophone the input method chose)",
        ((Turn("我女儿叫心怡。", "名字真好听。",
               ("用户的女儿叫心怡",)),),
         (Turn("不好意思，之前打错字了，我女儿叫欣怡，不是心怡。", "欣怡，记住了。",
               ("用户的女儿叫欣怡",)),)),
        "我女儿叫什么名字？", current=("欣怡",), old=("心怡",),
    ),
    Scenario(
        4, "a job ends",
        ((Turn("我在Acme公司做设计师。", "设计是个很不错的行业。",
               ("用户在Acme公司担任设计师",)),),
         (Turn("我上个月从Acme公司辞职了。", "变化挺大的！",
               ("用户从Acme公司辞职了",), ends=True),)),
        "我在哪里工作？", current=("辞职",), old=("设计师",),
    ),
    Scenario(
        5, "a new favourite band, rent untouched",
        ((RENT,), (Turn("我最喜欢的乐队是五月天。", "品味不错！",
                        ("用户最喜欢的乐队是五月天",)),)),
        "我最喜欢哪个乐队？", current=("五月天",), kept=("4500元",),
    ),
    Scenario(
        6, "an allergy said again",
        ((Turn("我对花生过敏。", "好的，我记住了。",
               ("用户对花生过敏",)),),
         (Turn("再提醒一下，我对花生过敏，千万别放花生。", "当然。",
               ("用户对花生过敏",)),)),
        "我对什么过敏？", current=("花生",), kept=("花生",),
    ),
    Scenario(
        7, "asking about the rent stores nothing",
        ((RENT,), (Turn(RENT_QUESTION, ECHO),)),
        RENT_QUESTION, current=("4500元",), kept=("4500元",), unchanged=True,
    ),
    Scenario(
        8, "apartment hunting, the answer echoes the rent",
        ((RENT,), (Turn("我最近在看房，想换个地方住。房租方面有什么要注意的吗？",
                        f"记得把各项费用加起来比较。{ECHO}",
                        ("用户最近在看房，打算换个地方住",)),)),
        RENT_QUESTION, current=("4500元",), kept=("4500元",), added=("看房",),
    ),
    Scenario(
        9, "a new cat and a new rent in one message",
        ((RENT,), (Turn("我新养了一只猫，叫露娜，另外房租现在是每月5000元。",
                        "恭喜你有了露娜！",
                        ("用户养了一只叫露娜的猫", "用户每月房租5000元")),)),
        RENT_QUESTION, current=("5000元",), old=("4500元",), added=("露娜",),
    ),
)  # fmt: skip

# The changes of scenarios/cases.py's CHANGES, as a speaker of Chinese says them
CHANGES: tuple[Scenario, ...] = (
    Scenario(
        1, "a move in a later conversation",
        ((Turn("我在丹佛住了五年了。", "丹佛是个宜居的城市。", ("用户在丹佛住了五年",)),),
         (Turn("告诉你个好消息，我们上个月搬到西雅图了。", "恭喜你们搬新家！",
               ("用户上个月搬到了西雅图",), ends=True),)),
        "我住在哪里？", current=("西雅图",), old=("丹佛",),
    ),
    Scenario(
        2, "a number corrected after a relative date",
        ((Turn("我老公马克下周就满40岁了，有什么办派对的好点子吗？", "给他办个惊喜晚宴很经典。",
               ("用户的丈夫马克下周满40岁",)),
          Turn("哎呀，我说错了：马克是满41岁，不是40岁。", "好的，是41岁。",
               ("用户的丈夫马克即将满41岁",))),),
        "马克要满几岁了？", current=("41",), old=("40",),
    ),
    Scenario(
        3, "a job left for another",
        ((Turn("我在一家医院当护士。", "护士的工作很辛苦。", ("用户在一家医院当护士",)),),
         (Turn("我上个月辞职了，现在在一所小学当老师。", "变化真大，恭喜你！",
               ("用户上个月辞去了医院的工作，现在在一所小学当老师",), ends=True),)),
        "我现在做什么工作？", current=("小学",), old=("护士",),
    ),
)  # fmt: skip

# The cascades of scenarios/cases.py's CASCADES, as a speaker of Chinese says them
CASCADES: tuple[Scenario, ...] = (
    Scenario(
        1, "a move ends the gym in the old city, not a brother's home",
        ((Turn("我住在丹佛，每周去丹佛的一家攀岩馆两次。", "攀岩是很好的锻炼方式。",
               ("用户住在丹佛", "用户每周去丹佛的一家攀岩馆两次")),
          Turn("我哥哥汤姆也住在丹佛。", "家人离得近真好。", ("用户的哥哥汤姆住在丹佛",))),
         (Turn("我们上个月搬到西雅图了！", "恭喜你们搬新家！",
               ("用户上个月搬到了西雅图",), ends=True),)),
        "我住在哪里？", current=("西雅图",), old=("攀岩馆",), kept=("汤姆",),
    ),
    Scenario(
        2, "a move ends the family doctor there, not the birthplace",
        ((Turn("我在奥斯汀住了很多年了，我的家庭医生是奥斯汀诊所的帕特尔医生。",
               "有信任的医生很重要。",
               ("用户在奥斯汀住了很多年", "用户的家庭医生是奥斯汀诊所的帕特尔医生")),
          Turn("其实我就是在奥斯汀出生的。", "地道的本地人！", ("用户出生在奥斯汀",))),
         (Turn("我两周前搬到芝加哥了。", "芝加哥变化可不小！",
               ("用户两周前搬到了芝加哥",), ends=True),)),
        "我住在哪里？", current=("芝加哥",), old=("帕特尔",), kept=("出生",),
    ),
    Scenario(
        3, "a move ends the commute there",
        ((Turn("我住在波士顿，每天坐地铁去波士顿市区上班。", "高峰期地铁挺挤的。",
               ("用户住在波士顿", "用户每天坐地铁去波士顿市区上班")),),
         (Turn("我上周搬到丹佛了。", "欢迎来到丹佛！", ("用户上周搬到了丹佛",), ends=True),)),
        "我住在哪里？", current=("丹佛",), old=("地铁",),
    ),
    Scenario(
        4, "a move leaves a favourite team alone",
        ((Turn("我住在丹佛，是野马队的铁杆球迷。", "野马队加油！",
               ("用户住在丹佛", "用户是野马队的铁杆球迷")),),
         (Turn("我们上个月搬到西雅图了。", "恭喜你们搬新家！",
               ("用户上个月搬到了西雅图",), ends=True),)),
        "我住在哪里？", current=("西雅图",), kept=("野马队",),
    ),
)  # fmt: skip
