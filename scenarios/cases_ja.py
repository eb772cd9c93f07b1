"""The nine truth scenarios and their variants as a speaker of Japanese says them in a chat: the
same behaviours as scenarios/cases.py, which says what each field means; data only.

The scripted model's facts and the expected values are Japanese too, in the voice a model writes
memory in ("ユーザーは大阪に住んでいる"). Amounts are written as Japanese write them ("30万円",
"8万5千円"), which the verdict reads as 300000 and 85000 in a Japanese text. A value is found
anywhere in a text (Japanese has no spaces), so no value is part of another's words; "ヴィーガン"
is also spelt "ビーガン", and either will do.

A question after a statement is its own sentence ("…始めました。…ありますか？"): the product reads
a trailing question after "，" or ",", and "、" is neither.
"""

from __future__ import annotations

from scenarios.cases import ECHO, Scenario, Turn

TOLD = "前に教えてもらったこと：{}。"

HAWAII = Turn(
    "ハワイ旅行の予算は30万円です。",
    "いいですね。30万円あればハワイでいろいろ楽しめますよ。",
    ("ユーザーのハワイ旅行の予算は30万円",),
)
BUDGET_QUESTION = "ハワイ旅行の予算っていくらでしたっけ？"

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        1, "Hawaii budget updated in a later session",
        ((HAWAII,), (Turn("ハワイ旅行の予算、やっぱり40万円に増やしました。",
                          f"{ECHO}了解です。では40万円で考えますね。",
                          ("ユーザーのハワイ旅行の予算は現在40万円",)),)),
        BUDGET_QUESTION, current=("40万円",), old=("30万円",),
    ),
    Scenario(
        2, "preference changes: vegetarian to vegan",
        ((Turn("私、ベジタリアンなんです。", "了解です。ベジタリアン向けの料理をおすすめしますね。",
               ("ユーザーはベジタリアンである",)),),
         (Turn("最近、完全にヴィーガンになりました。",
               "いいですね。これからはヴィーガン料理だけをおすすめします。",
               ("ユーザーはヴィーガンである",)),)),
        "私ってベジタリアンとヴィーガン、どっちでしたっけ？", current=("ヴィーガン|ビーガン",),
        old=("ベジタリアン",),
    ),
    Scenario(
        3, "a correction: Boston, I meant Austin",
        ((Turn("大阪に住んでいます。", "大阪はいい街ですよね。", ("ユーザーは大阪に住んでいる",)),),
         (Turn("前に大阪って言いましたけど、京都の間違いでした。",
               "訂正ありがとうございます。京都ですね。",
               ("ユーザーは京都に住んでいる",)),)),
        "私ってどこに住んでるんでしたっけ？", current=("京都",), old=("大阪",),
    ),
    Scenario(
        4, "no longer true: sold the car",
        ((Turn("2015年式のフィットに乗っています。", "フィットは燃費もいいし、頼れる車ですよね。",
               ("ユーザーは2015年式のホンダ・フィットに乗っている",)),),
         (Turn("先週、車を売りました。", "車を手放すのは大きな決断ですね。",
               ("ユーザーは車を売った",), ends=True),)),
        "私の車って何でしたっけ？", current=("売",), old=("フィット",),
    ),
    Scenario(
        5, "an unrelated new fact touches nothing else",
        ((HAWAII,), (Turn("先月からチェロを習い始めました。",
                          "素敵ですね！チェロはきれいな音の楽器です。",
                          ("ユーザーは2026年10月からチェロを習っている",)),)),
        "私が習っている楽器って何でしたっけ？", current=("チェロ",), kept=("30万円",),
    ),
    Scenario(
        6, "the same fact restated in other words",
        ((HAWAII,), (Turn("一応伝えておくと、ハワイ旅行用に30万円貯めてあります。",
                          "ありがとうございます。こちらで把握している内容と同じです。",
                          ("ユーザーはハワイ旅行用に30万円を貯めている",)),)),
        BUDGET_QUESTION, current=("30万円",), kept=("30万円",),
    ),
    Scenario(
        7, "a question about what is remembered stores nothing",
        ((HAWAII,), (Turn(BUDGET_QUESTION, ECHO),)),
        BUDGET_QUESTION, current=("30万円",), kept=("30万円",), unchanged=True,
    ),
    Scenario(
        8, "the answer restates injected memories: no echo stored",
        ((HAWAII,), (Turn("ハワイ旅行の航空券を取り始めました。予算のことで気をつけたほうが"
                          "いいことってありますか？",
                          f"早めの予約はいい考えですね。{ECHO}",
                          ("ユーザーはハワイ旅行の航空券を予約している",)),)),
        BUDGET_QUESTION, current=("30万円",), kept=("30万円",), added=("航空券",),
    ),
    Scenario(
        9, "two facts in one message, one an update",
        ((HAWAII,), (Turn("妹の美咲も一緒に行くことになって、ハワイ旅行の予算は35万円に"
                          "なりました。",
                          "いいですね！35万円あれば、美咲さんと少しゆっくり滞在できますね。",
                          ("ユーザーの妹の美咲がハワイ旅行に同行する",
                           "ユーザーのハワイ旅行の予算は現在35万円")),)),
        BUDGET_QUESTION, current=("35万円",), old=("30万円",), added=("美咲",),
    ),
)  # fmt: skip

RENT = Turn(
    "家賃は月8万円です。",
    "その地域だと標準的な家賃ですね。",
    ("ユーザーの家賃は月8万円",),
)
RENT_QUESTION = "私の家賃っていくらでしたっけ？"

VARIANTS: tuple[Scenario, ...] = (
    Scenario(
        1, "rent goes up",
        ((RENT,), (Turn("家賃が上がって、今は月8万5千円です。", f"{ECHO}了解です、8万5千円ですね。",
                        ("ユーザーの家賃は月8万5千円",)),)),
        RENT_QUESTION, current=("8万5千円",), old=("8万円",),
    ),
    Scenario(
        2, "seat preference switches",
        ((Turn("飛行機では窓側の席が好きです。", "了解です、窓側ですね。",
               ("ユーザーは飛行機では窓側の席を好む",)),),
         (Turn("最近は飛行機だと通路側の席のほうが好きです。",
               "わかりました、これからは通路側にしますね。",
               ("ユーザーは飛行機では通路側の席を好む",)),)),
        "飛行機ではどっちの席が好きなんでしたっけ？", current=("通路側",), old=("窓側",),
    ),
    Scenario(
        3, "a name corrected",
        ((Turn("娘の名前は結衣です。", "素敵なお名前ですね。", ("ユーザーの娘の名前は結衣",)),),
         (Turn("すみません、変換ミスでした。娘の名前は結衣じゃなくて由衣です。",
               "由衣さんですね、覚えました。",
               ("ユーザーの娘の名前は由衣",)),)),
        "娘の名前、何でしたっけ？", current=("由衣",), old=("結衣",),
    ),
    Scenario(
        4, "a job ends",
        ((Turn("広告代理店でデザイナーをしています。", "デザインは面白い仕事ですよね。",
               ("ユーザーは広告代理店でデザイナーとして働いている",)),),
         (Turn("先月、広告代理店を辞めました。", "大きな変化ですね！",
               ("ユーザーは先月広告代理店を辞めた",), ends=True),)),
        "私ってどこで働いてるんでしたっけ？", current=("辞め|退職",), old=("デザイナー",),
    ),
    Scenario(
        5, "a new favourite band, rent untouched",
        ((RENT,), (Turn("一番好きなバンドはスピッツです。", "いい趣味ですね！",
                        ("ユーザーの一番好きなバンドはスピッツ",)),)),
        "私の一番好きなバンドって何でしたっけ？", current=("スピッツ",), kept=("8万円",),
    ),
    Scenario(
        6, "an allergy said again",
        ((Turn("ピーナッツアレルギーがあります。", "覚えておきますね。",
               ("ユーザーはピーナッツアレルギーがある",)),),
         (Turn("念のためもう一度言っておくと、ピーナッツアレルギーなので、ピーナッツは使わないで"
               "ください。", "もちろんです。",
               ("ユーザーはピーナッツアレルギーがある",)),)),
        "私って何のアレルギーがあるんでしたっけ？", current=("ピーナッツ",), kept=("ピーナッツ",),
    ),
    Scenario(
        7, "asking about the rent stores nothing",
        ((RENT,), (Turn(RENT_QUESTION, ECHO),)),
        RENT_QUESTION, current=("8万円",), kept=("8万円",), unchanged=True,
    ),
    Scenario(
        8, "apartment hunting, the answer echoes the rent",
        ((RENT,), (Turn("新しい部屋を探しています。家賃のことで気をつけたほうがいいことは"
                        "ありますか？",
                        f"総額で比べるのがおすすめです。{ECHO}",
                        ("ユーザーは新しい部屋を探している",)),)),
        RENT_QUESTION, current=("8万円",), kept=("8万円",), added=("部屋",),
    ),
    Scenario(
        9, "a new cat and a new rent in one message",
        ((RENT,), (Turn("猫を飼い始めて、名前はモカにしました。あと、家賃が月9万円に上がりました。",
                        "モカちゃん、かわいいですね！",
                        ("ユーザーはモカという名前の猫を飼っている",
                         "ユーザーの家賃は月9万円")),)),
        RENT_QUESTION, current=("9万円",), old=("8万円",), added=("モカ",),
    ),
)  # fmt: skip

# The changes of scenarios/cases.py's CHANGES, as a speaker of Japanese says them
CHANGES: tuple[Scenario, ...] = (
    Scenario(
        1, "a move in a later conversation",
        ((Turn("福岡に住んで5年になります。", "福岡は住みやすい街ですよね。",
               ("ユーザーは福岡に5年住んでいる",)),),
         (Turn("報告です！先月、大阪に引っ越しました。", "お引っ越しおめでとうございます！",
               ("ユーザーは先月大阪に引っ越した",), ends=True),)),
        "私ってどこに住んでるんでしたっけ？", current=("大阪",), old=("福岡",),
    ),
    Scenario(
        2, "a number corrected after a relative date",
        ((Turn("夫の健太が来週40歳になります。誕生日パーティーのアイデア、何かありますか？",
               "友達を呼んでサプライズディナーなんて定番ですよ。",
               ("ユーザーの夫の健太は来週40歳になる",)),
          Turn("あっ、間違えました。健太は41歳になるんです。40歳じゃなくて。",
               "了解です、41歳ですね。",
               ("ユーザーの夫の健太は41歳になる",))),),
        "健太って何歳になるんでしたっけ？", current=("41",), old=("40",),
    ),
    Scenario(
        3, "a job left for another",
        ((Turn("病院で看護師をしています。", "看護師さんは大変なお仕事ですよね。",
               ("ユーザーは病院で看護師として働いている",)),),
         (Turn("先月病院を辞めて、今は小学校で先生をしています。",
               "大きな転身ですね、おめでとうございます！",
               ("ユーザーは先月病院を辞め、今は小学校の教師として働いている",), ends=True),)),
        "私の今の仕事って何でしたっけ？", current=("小学校",), old=("看護師",),
    ),
)  # fmt: skip

# The cascades of scenarios/cases.py's CASCADES, as a speaker of Japanese says them
CASCADES: tuple[Scenario, ...] = (
    Scenario(
        1, "a move ends the gym in the old city, not a brother's home",
        ((Turn("東京に住んでいて、週2回東京のボルダリングジムに通っています。",
               "ボルダリングはいい運動になりますよね。",
               ("ユーザーは東京に住んでいる",
                "ユーザーは週2回、東京のボルダリングジムに通っている")),
          Turn("兄の拓也も東京に住んでいます。", "家族が近くにいると心強いですね。",
               ("ユーザーの兄の拓也は東京に住んでいる",))),
         (Turn("先月、大阪に引っ越しました！", "お引っ越しおめでとうございます！",
               ("ユーザーは先月大阪に引っ越した",), ends=True),)),
        "私ってどこに住んでるんでしたっけ？", current=("大阪",), old=("ボルダリングジム",),
        kept=("拓也",),
    ),
    Scenario(
        2, "a move ends the family doctor there, not the birthplace",
        ((Turn("札幌にもう何年も住んでいて、かかりつけ医は札幌の佐藤先生です。",
               "信頼できるお医者さんがいると安心ですね。",
               ("ユーザーは札幌に何年も住んでいる", "ユーザーのかかりつけ医は札幌の佐藤先生")),
          Turn("実は札幌生まれなんです。", "生粋の道産子ですね！",
               ("ユーザーは札幌生まれである",))),
         (Turn("2週間前に福岡に引っ越しました。", "福岡だとだいぶ環境が変わりますね！",
               ("ユーザーは2週間前に福岡に引っ越した",), ends=True),)),
        "私ってどこに住んでるんでしたっけ？", current=("福岡",), old=("佐藤",), kept=("生まれ",),
    ),
    Scenario(
        3, "a move ends the commute there",
        ((Turn("横浜に住んでいて、毎日地下鉄で横浜の職場に通っています。",
               "朝のラッシュは大変ですよね。",
               ("ユーザーは横浜に住んでいる",
                "ユーザーは毎日地下鉄で横浜の職場に通勤している")),),
         (Turn("先週、名古屋に引っ越しました。", "名古屋へようこそ！",
               ("ユーザーは先週名古屋に引っ越した",), ends=True),)),
        "私ってどこに住んでるんでしたっけ？", current=("名古屋",), old=("地下鉄",),
    ),
    Scenario(
        4, "a move leaves a favourite team alone",
        ((Turn("広島に住んでいて、カープの大ファンです。", "カープ、いいですよね！",
               ("ユーザーは広島に住んでいる", "ユーザーはカープの大ファンである")),),
         (Turn("先月、東京に引っ越しました。", "お引っ越しおめでとうございます！",
               ("ユーザーは先月東京に引っ越した",), ends=True),)),
        "私ってどこに住んでるんでしたっけ？", current=("東京",), kept=("カープ",),
    ),
)  # fmt: skip
