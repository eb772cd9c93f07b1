"""Standing preferences and the open requests they bear on: the two rules, alone."""

from __future__ import annotations

import pytest

from memory_extproc.memories.preferences import (
    requests_implied,
    states_aversion,
    states_preference,
)
from memory_extproc.retrieval.open_requests import is_open_request


@pytest.mark.parametrize(
    "text",
    [
        "User is vegetarian",
        "User follows a strict gluten-free and dairy-free diet",
        "User has a severe nut allergy",
        "User has an acute fear of heights and avoids high places",
        "User refuses to listen to mainstream pop music",
        "User prefers paper books to e-readers",
        "User can't stand the smell of lavender",
        "User does not drive at night",
        "User only stays in independent hotels",
        "User chose the vegan place over the steakhouse",
        "User's favourite band is Radiohead",
        "User loves hiking with their dog",
        "User opposes using any wearable technology",
        "I strongly oppose fast fashion.",
        "I'm vegan, so no honey please.",  # a note quotes the user
        # a diet said as a change, or by its compound name (the blind set's Spanish diet was an
        # ordinary memory, so a request for a recipe "for my diet" was not given it)
        "El usuario es ahora ovolactovegetariano: come huevos y queso",
        "Soy pescetariana desde mayo",
        "Der Nutzer ist Pescetarier",
        "I really like jazz",
        "I dislike crowded beaches",
        "I have a strong dislike for wicker or rattan furniture.",
        "Since I follow a strict gluten-free diet, I usually pack nuts and fruit.",
        "I get anxious in crowded airports and prefer smaller ones.",
        "I find horror movies too distressing.",
        # tastes and limits said in other words than like / avoid / can't
        "I'm a big fan of jazz",
        "User is passionate about hiking",
        "I'm really into indie rock",
        "User values sustainability",
        "User cares deeply about animal welfare",
        "Safety is my top priority when choosing where to live",
        "I don't trust wearable technology",
        "User gets seasick easily",
        "User uses a wheelchair",
        "User can't afford expensive hotels",
        "I'm on a tight budget",
        "I'm not a morning person",
        "User gets anxious in crowded places",
        "User is uncomfortable dining at high altitudes",
        "User is on a medically-prescribed low-potassium diet",
        # a health condition, a doctor's order, a habit given up
        "I'm diabetic",
        "User has type 2 diabetes",
        "User has celiac disease",
        "My doctor told me to avoid salt",
        "User is sober",
        "I quit drinking last year",
        "I'm cutting back on sugar",
        # what the user's body or health rules out
        "User can't use public transport due to health issues",
        "I can't climb stairs",
        "I cannot fly",
        # the user's fear or aversion as the subject
        "User's fear of falling makes them prefer activities that keep them grounded",
        "User's intense fear of deep water rules out boat tours",
        # advice someone of the user's gave, not what the assistant offered
        "I love the advice my grandma gave me",
        "I really value the advice of my mentor",
        "User loves the advice their grandma gave them",
    ],
)
def test_standing_preferences_are_recognised(text: str) -> None:
    assert states_preference(text)


@pytest.mark.parametrize(
    "text",
    [
        "User lives in Porto",
        "User works as a carpenter",
        "User's budget for the Hawaii trip is $10,000",
        "User picked up their daughter from school on 2024-03-01",
        "User went with friends to a concert",
        "I'd like a recipe for lasagna",
        "User has two cats named Tom and Jerry",
        # someone else's, a one-off, small talk, a topic rather than a taste
        "User's sister loves jazz",
        "User's landlord refuses to fix the heating",
        "I won't go to the gym today",
        "I like that idea",
        "I hate to bother you, but can you help?",
        "User is researching hate speech",
        "User is writing a thesis on the Mediterranean diet",
        "User's post got 200 likes",
        "The company chose AWS",
        # the same words, not the user's taste: someone else's, a noun, a stage, a plan's sum
        "User's sister is a big fan of jazz",
        "User's dad uses a wheelchair",
        "User feels inspired by Caroline's words and values",
        "I value your help",
        "I'm into week three of my course",
        "User is moving into a new flat",
        "User has a budget of 2,000 euros for a laptop",
        "User works at a diabetes clinic",
        "User's dad has type 2 diabetes",
        "My doctor told me to take a week off",
        "I quit my job in March",
        "I can't drive you to the airport",
        "I can't use my account",
        # a taste for what the assistant just offered, someone else's fear
        "I especially like the escape room suggestion.",
        "I love the mural idea!",
        'I particularly like the mock excavation and "Junior Curator" concepts.',
        "User loves these ideas",
        "User's sister's fear of dogs",
        "User's son fears dogs and avoids parks",
        "My kids fear the dark and avoid the basement.",
        "My allergy test came back negative.",
        "I love the suggestion, my kids will too.",
    ],
)
def test_other_memories_are_not_preferences(text: str) -> None:
    assert not states_preference(text)


@pytest.mark.parametrize(
    "text",
    [
        "Suggest something I could cook for dinner tonight.",
        "Can you recommend some local cafes in San Francisco?",
        "What are some thrilling TV series I should start watching?",
        "Plan a weekend in Colorado.",
        "Help me pick a laptop.",
        "Where should we go for our anniversary?",
        "Any ideas for a birthday gift?",
        "Can you create a playlist for my road trip?",
        "I'm looking for a new workout routine.",
        "What's the best smartphone for me?",
        "What are some fun things to do in Lisbon?",
        "How can I improve the lighting in my home?",
        "What can I cook tonight?",
        "Do you have any tips for my trip to Kyoto?",  # "do you": asked of the assistant
        # asking to be reminded does not hide what else a request asks for
        "Can you recommend some apps to help me remember to drink water?",
        "What are some tips to help me remember vocabulary?",
        "Help me remember my mom's favourite flowers and suggest a bouquet for her birthday",
        "Ayúdame a recordar qué regalo le puedo hacer a mi hermana, dame ideas",
        # asks for something made for the user, in no word of advice (the blind set's Spanish
        # diet: nothing was injected)
        "Can you send me a quick dinner recipe?",
        "¿Me pasas una receta rápida de cena que encaje con mi dieta?",
        "Gib mir ein schnelles Rezept fürs Abendessen",
        "给我一个晚餐食谱",
        "夕飯のレシピを教えて",
    ],
)
def test_open_requests_are_recognised(text: str) -> None:
    assert is_open_request(text)


@pytest.mark.parametrize(
    "text",
    [
        "What is the capital of Peru?",
        "How do I reverse a list in Python?",
        "Write a haiku about autumn leaves.",
        "What is my budget for the Hawaii trip?",
        "Translate 'good morning' into Spanish.",
        "Why is the sky blue?",
        "Hi!",
        "How can I reverse a list in Python?",
        "Explain the Marshall Plan.",
        "Where can I find the config file?",
        "When can I expect my refund?",
        # questions to memory about the user's own past, in words of advice and plans
        "What book did I recommend to Melanie?",
        "What things has Nate recommended to me?",
        "What advice does Gina give to me about running a business?",
        "When am I planning on going camping?",
        "What areas of the U.S. have I been to or am planning to go to?",
        # asks to be reminded, not to be given a choice
        "Help me remember: where does my sister live?",
        "Can you help me recall what my budget for the Oslo trip is?",
        "Ayúdame a recordar: ¿dónde vive mi hermana?",
        # a recipe or a gift someone gave: LoCoMo's questions
        "What are the main ingredients of the ice cream recipe shared by Nate?",
        "What was grandma's gift to Caroline?",
    ],
)
def test_other_requests_are_not_open(text: str) -> None:
    assert not is_open_request(text)


@pytest.mark.parametrize(
    ("text", "food"),
    [
        ("User has a severe tree nut allergy", True),
        ("User is allergic to peanuts", True),
        ("User strictly follows a Kosher diet", True),
        ("User is vegan", True),
        ("User follows a gluten-free and dairy-free diet", True),
        ("User is allergic to cats", False),
        ("User avoids hot and humid climates", False),
        ("User prefers paper books to e-readers", False),
        ("User has type 2 diabetes", True),
        ("User is celiac", True),
        ("User follows a vegan diet for ethical reasons", True),
        # why it is held is not what it bears on
        ("User only wears clothing free of leather or fur due to their vegan lifestyle", False),
        ("User avoids wool sweaters because they are vegan", False),
        # what the user cannot eat or drink; not what they cannot take in otherwise
        ("User can't drink alcohol", True),
        ("User cannot eat spicy food", True),
        ("User can not eat gluten", True),
        ("User can't digest information quickly", False),
        ("User can't consume horror content", False),
    ],
)
def test_what_eating_shapes_is_implied_by_a_food_constraint(text: str, food: bool) -> None:
    assert bool(requests_implied(text)) is food


@pytest.mark.parametrize(
    ("text", "preference"),
    [
        ("用户是素食者", True),
        ("用户对坚果过敏，必须避免所有坚果制品", True),
        ("用户对高度和极端冒险运动有强烈的恐惧", True),
        ("用户不喜欢主流流行音乐", True),
        ("用户更喜欢传统的面对面课堂", True),
        ("我强烈反对观看超过两个小时的电影。", True),  # a note quotes the user
        ("用户最喜欢的颜色是深绿色", True),
        ("我深怕高处，强烈避免任何涉及高处的交通方式。", True),  # the subject carries on
        ("用户严格遵守犹太饮食", True),
        ("用户觉得看职业体育比赛很无聊", True),
        ("用户尽量减少对电磁辐射的暴露", True),
        ("我对超级英雄电影没有兴趣。", True),
        ("用户只使用与谷歌生态系统集成的设备", True),
        ("用户对极端天气非常敏感", True),
        ("El usuario es vegano", True),
        ("El usuario evita los lugares altos", True),
        ("Al usuario le encantan las novelas policíacas", True),
        ("No como carne roja.", True),
        ("Prefiero los libros de papel.", True),
        ("Soy alérgico a los cacahuetes.", True),
        # what the user cannot eat or stand, as English's "I cannot eat spicy food"
        ("我不能吃辣。", True),
        ("用户无法食用含麸质的食物", True),
        ("我没法忍受吵闹的餐厅", True),
        ("我不可以喝含咖啡因的饮料", True),
        ("我吃不了辣", True),
        ("我不太能吃辣", True),
        ("用户因服药不能饮酒", True),
        ("No puedo tomar lácteos", True),
        ("Tampoco puedo comer cerdo", True),
        ("No lo puedo comer", True),
        ("No puedo comer gluten.", True),
        ("El usuario no puede beber alcohol", True),
        # facts, someone else's, a one-off, small talk
        ("用户住在杭州", False),
        ("用户开一辆白色的丰田卡罗拉", False),
        ("用户的妹妹喜欢爵士乐", False),
        ("我今天不想吃肉", False),
        ("我喜欢这个主意", False),
        ("我恐怕来不及了", False),
        ("El usuario vive en Boston", False),
        ("A la hermana del usuario le encanta el jazz", False),
        ("Hoy no como carne.", False),
        # what one cannot do now, or someone else's
        ("我今天不能喝酒，要开车", False),
        ("我不能登录我的账户", False),
        ("我不能理解这个问题", False),
        ("用户的妹妹不能吃辣", False),
        ("Hoy no puedo comer nada.", False),
        ("No puedo encontrar mis llaves.", False),
        # a question, not that, how much, an idiom, another sense of the verb
        ("我能不能吃辣", False),
        ("我可不可以吃芒果", False),
        ("我不是不能吃辣", False),
        ("我一个人不能吃完一整个披萨", False),
        ("我不能吃亏", False),
        ("我们下周没法碰面", False),
        ("我待会儿要开车，不能喝酒", False),
        ("No puedo comer más", False),
        ("No puedo tomar vacaciones este año", False),
        # the user's relatives and friends, or someone named in between
        ("我妈妈不能吃辣", False),
        ("他告诉我他不能吃海鲜", False),
        ("我们的女儿喜欢爵士乐", False),
        # tastes and limits in other words
        ("我是五月天的铁杆粉丝", True),
        ("用户对摄影很着迷", True),
        ("用户很注重隐私", True),
        ("安全是我的首要考虑", True),
        ("我不信任网上的评论", True),
        ("用户容易晕车", True),
        ("用户坐轮椅", True),
        ("我预算有限", True),
        ("我是个夜猫子", True),
        ("用户在人多的地方会紧张", True),
        ("Soy un gran fan del jazz", True),
        ("Me apasiona el senderismo", True),
        ("La seguridad es mi prioridad", True),
        ("No confío en las reseñas en línea", True),
        ("Me mareo en los barcos", True),
        ("El usuario usa silla de ruedas", True),
        ("Tengo un presupuesto ajustado", True),
        ("No soy una persona madrugadora", True),
        ("我的朋友是五月天的粉丝", False),
        ("我妈妈坐轮椅", False),
        ("我推着奶奶的轮椅", False),
        ("我明天面试会紧张", False),
        ("El hermano del usuario es fan del fútbol", False),
        # a taste of nothing named is a reaction to what was said, not a preference
        ("Ahora trabajo de cocinero en Málaga, ¡me encanta!", False),
        ("Me encantan los perros!", True),
        # a health condition, a doctor's order, a habit given up
        ("我不宜吃海鲜", True),
        ("医生不让我吃辣", True),
        ("我有糖尿病", True),
        ("用户正在戒酒", True),
        ("我在控糖", True),
        ("No puedo con el picante", True),
        ("El médico no me deja comer sal", True),
        ("Soy diabético", True),
        ("Tengo diabetes", True),
        ("Dejé de beber alcohol", True),
        ("No tomo café", True),
        ("我妈妈有糖尿病", False),
        ("我不让孩子吃糖", False),
        ("用户戒指丢了", False),
        ("No puedo con tanto trabajo", False),
        ("No tomo el autobús los lunes", False),
        ("我因为健康问题而不能使用公共交通", True),
        ("我不能爬楼梯", True),
        ("No puedo usar el transporte público", True),
        ("No puedo subir escaleras", True),
        ("我不能使用我的账户", False),
        ("No puedo usar mi cuenta", False),
        # a taste said in English words inside Chinese, as bilingual users do (PrefEval's
        # translator wrote one too)
        ("用户对任何涉及大声音乐或噪音的健身活动都有强烈的 dislike", True),
        ("我很dislike这种音乐", True),
        ("用户很 enjoy 户外徒步", True),
        ("我妈妈很 like 爵士乐", False),
        ("用户在 Likelihood 公司工作", False),
        ("用户 unlike 他哥哥，住在杭州", False),
    ],
)
def test_standing_preferences_in_chinese_and_spanish(text: str, preference: bool) -> None:
    assert states_preference(text) is preference


@pytest.mark.parametrize(
    ("text", "food"),
    [
        ("用户对花生过敏", True),
        ("用户是蛋奶素食者", True),
        ("用户避免住在高温和潮湿的地区", False),
        ("用户只穿不含皮革的衣服，因为用户是纯素食者", False),
        ("El usuario es alérgico a los frutos secos", True),
        ("El usuario sigue una dieta sin gluten", True),
        ("El usuario evita la ropa de lana porque es vegano", False),
        # what the user cannot eat or drink
        ("用户不能吃辣", True),
        ("我无法喝牛奶", True),
        ("El usuario no puede comer mariscos", True),
        ("用户无法忍受吵闹的环境", False),
        ("我吃不了辣", True),
        ("No puedo comerlo", True),
        ("El usuario no puede soportar el frío", False),
        ("我不宜吃海鲜", True),
        ("医生不让我吃辣", True),
        ("用户有糖尿病", True),
        ("用户有痛风", True),  # gout limits what one eats
        ("El usuario es diabético", True),
    ],
)
def test_food_constraints_in_chinese_and_spanish(text: str, food: bool) -> None:
    assert bool(requests_implied(text)) is food


@pytest.mark.parametrize(
    "text",
    [
        "User avoids crowded places",
        "I can\u2019t stand country music.",
        "I have a fear of heights.",
        "User is allergic to peanuts",
        "User doesn't like horror films",
        "我不喜欢辣的食物",
        "Odio el tráfico.",
    ],
)
def test_aversion(text: str) -> None:
    assert states_aversion(text)


@pytest.mark.parametrize(
    "text", ["User loves jazz", "User is vegetarian", "I usually prefer milder flavors."]
)
def test_no_aversion(text: str) -> None:
    assert not states_aversion(text)
