"""Chinese: what the rules read in it. Data and patterns in lang/shape.py's shape.

Chinese has no spaces: its patterns have no word bounds, and a run of its characters is read
character by character (words.CJK), after its filler words are dropped and its words for the user
and for "is" are read as such (memories/changes.py).
"""

from __future__ import annotations

import re
from datetime import date

import stopwordsiso

from memory_extproc.lang.shape import (
    CLAUSE_CHAR,
    LAST_CLAUSE_ASKS,
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
)
from memory_extproc.lang.when import When, ahead, counted, days, last

_WEEKDAYS = "一二三四五六日"  # 周一 … 周日 (周天 too)
_COUNTS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
           "九": 9, "十": 10}  # fmt: skip
# The people of a user's life, as a fact names them ("用户的妹妹", "我妈妈"): not the user
KIN = (
    r"妈|爸|母亲|父亲|女儿|儿子|孩子|老婆|老公|妻子|丈夫|太太|先生|朋友|妹|姐|哥|弟|家人|同事"
    r"|男朋友|女朋友|室友|奶奶|爷爷|外婆|外公|父母"
)


def _meaning(match: re.Match[str], said_on: date) -> When:
    if match["today"]:
        return days(0, said_on)
    if match["yesterday"]:
        return days(-2 if match["yesterday"] == "前天" else -1, said_on)
    if match["tomorrow"]:
        return days(1, said_on)  # not 后天: also "acquired", not innate
    # 下周三: the Wednesday of the week after this one
    coming = match["next_weekday"] or next(
        (p for p in ("weekend", "week", "month", "year") if match[f"next_{p}"]), None
    )
    if coming:
        return ahead(coming, said_on, (*_WEEKDAYS[:6], "天"), next_calendar_week=True)
    if match["weekend"]:
        return last("weekend", said_on, ())
    if match["week"]:
        if weekday := match["weekday"]:  # 上周三: the Wednesday of the week before this one
            index = 6 if weekday == "天" else _WEEKDAYS.index(weekday)
            return days(index - said_on.weekday() - 7, said_on)
        return last("week", said_on, ())
    if match["month"]:
        return last("month", said_on, ())
    if match["year"]:
        return last("year", said_on, ())
    count = _COUNTS.get(match["count"]) or int(match["count"])
    unit = {"天": "day", "周": "week", "星期": "week", "月": "month", "年": "year"}[match["unit"]]
    return counted(unit, count, said_on)


_DATES = Dates(
    relative=re.compile(
        rf"""(?P<today>今天|今晚|今早)
        |(?P<yesterday>昨天|昨晚|昨日|前天)
        |(?<!的)(?P<tomorrow>明天|明晚|明早)
        |(?<!下)(?P<next_weekend>下(?:个)?(?:周末|星期末))
        |(?<!下)(?P<next_week>下(?:个)?(?:周|星期|礼拜))(?:(?P<next_weekday>[{_WEEKDAYS}天])(?!起))?
        |(?<!下)(?P<next_month>下(?:个)?月)
        |(?<!聪)(?P<next_year>明年)
        |(?P<weekend>上(?:个)?(?:周末|星期末))
        |(?<!上)(?P<week>上(?:个)?(?:周|星期|礼拜))(?:(?P<weekday>[{_WEEKDAYS}天])(?!起))?
        |(?P<month>上(?:个)?月)
        |(?P<year>去年)
        |(?<![\d{"".join(_COUNTS)}])(?P<count>\d{{1,2}}|[{"".join(_COUNTS)}])(?:个)?(?P<unit>天|周|星期|月|年)(?:以)?前""",
        re.X,
    ),
    meaning=_meaning,
    words={
        "day": "{year}年{m}月{d}日",
        "week": "{year}年{m}月{d}日前的一周",
        "weekend": "{year}年{m}月{d}日前的周末",
        "week_of": "{year}年{m}月{d}日那一周",
        "week_after": "{year}年{m}月{d}日后的一周",
        "weekend_after": "{year}年{m}月{d}日后的周末",
        "month": "{year}年{m}月",
        "year": "{year}年",
    },
    months=(),
    short_months={},
    clause=re.compile(r"[，,；;]|但是|而且|并且"),
    dated=re.compile(r"\d{4}(?:-\d{2}){0,2}|\d+\s*[年月日号]"),
    duration=re.compile(rf"(?:\d+|[{''.join(_COUNTS)}几]+)(?:个)?(?:天|周|星期|月|年)(?!以?前)"),
    wrong_day="(?:在|于)?{day}",
    appended="{fact}（{when}）",
    edge="{}",  # no spaces between words
    shared=1,  # a character pair is a word more often than not: 面试 (an interview)
)

_STOP = CLAUSE_CHAR
# a home begun lately: "从上个月开始", "几周前起"
_SINCE = (
    r"[从自]?(?:上个?(?:月|周|星期)|前几天|几天前|几个?(?:星期|礼拜)前|几周前|月初|这个月)"
    r"(?:开始|起|以来)"
)
# when, as a time said before a place or a verb ("我们上个月搬到…")
_WHEN = (
    r"\d+[年月日号]|[\d一两二三四五六七八九十几]*个?(?:星期|[天周月年])(?:以?前)?"
    r"|[上下这去今前]个?[月周年天]"
)

_CHANGES = Changes(
    speaker=("用户", "我"),
    be=("是",),
    become=("改成", "改为", "变成", "成为", "改"),  # "改吃纯素" (switched to eating vegan): is now
    # "更" of "更喜欢" (prefer) as well: "我更喜欢靠过道的座位" says one value in the frame of
    # "我喜欢靠窗的座位", not a restatement of it (not the 更 of 更新, 更换: update, replace);
    # "about to" (即将…): when, not what ("马克即将满41岁" / "马克满40岁")
    filler=tuple(
        "现在 目前 如今 其实 实际上 已经 完全 彻底 真的 最近 对了 另外 也 了 更(?=喜欢|爱|偏爱) "
        "即将 将要 快要 就要".split()
    ),
    negation=("不", "没", "别"),
    frame_noise=("的", "在", "把", "给"),
    when_words=(),  # characters, not words: 年 and 月 are parts of others
    marker=r"现在|目前|如今|其实|实际上|改成|改为|改吃|改用|换成|换了|变成|变了|不再|已经不|最近"
    r"|更新|口误|说错|打错|写错|我是说|意思是|想说的是|纠正|更正|搬到|搬去|涨了|涨到|降到|降了",
    corrections=(
        # 我之前说波士顿是口误，我想说的是奥斯汀
        rf"(?:说|写|打)(?:的|成)?是?(?P<wrong>{_STOP}{{1,12}}?)(?:是口误|说错了|打错了|写错了|不对)"
        rf"[，,。；]?\s*(?:我|其实)?(?:想说的是|要说的是|的意思是|应该是|是)(?P<right>{_STOP}+)",
        # 不是波士顿，是奥斯汀
        rf"不是(?P<wrong>[^,.;!?，。；！？是]{{1,12}})[，,]?\s*而?是(?P<right>{_STOP}+)",
        # 我女儿叫欣怡，不是心怡
        rf"(?P<right>[^,.;!?，。；！？是叫在说]{{1,12}})[，,]\s*(?:而)?不是(?P<wrong>{_STOP}+)",
    ),
    endings=(
        rf"(?:把|将)(?P<object>{_STOP}+?)给?(?:卖掉|卖|退掉|退|处理掉|送人|扔掉|扔|转让)了",
        rf"(?:从|在)(?P<object>{_STOP}+?)(?:辞职|离职|退休|退出|毕业)",
        rf"(?:辞掉|辞去|卖掉|卖了|戒掉|戒了|退掉|退了|离开了|取消了|退出了|不再|戒(?=[烟酒糖赌]))了?"
        rf"(?P<object>{_STOP}+)",  # 戒烟: quit smoking (not 戒指, a ring)
        rf"和(?P<object>{_STOP}+?)分手",
        # "羽毛球是打不了了": can't any more (not "今天…不踢球了", one day's)
        rf"(?P<object>{_STOP}+?)是(?:打|玩|踢|练|跳|跑|弹|滑)不(?:了|动)了",
    ),
    left_job="辞职|离职|退休",
    job_word="工作",
    moved=rf"(?:我们?|用户)(?:{_WHEN}|刚刚?|已经|最近|终于|也|都|一家(?:[两三四五六]口)?人?|全家)*"
    r"(?:搬到|搬去|搬家到|迁到|移居)",
    residence=rf"(?:我们?|用户)(?:{_SINCE})?(?:一直|现在|目前|已经|就)?"
    r"(?:住在(?!一起)|居住在|定居在|在[^，。；！？,.;!?的]{1,10}?住)",
    settled=_SINCE,
    switch=r"改行|转行|换了|换成|改成|变成|不再|辞职|改吃|当上了|成为|搬到|搬去|搬家",
    when=r"上个?(?:月|周|星期)|去年|前天|昨天|今天",
    object_end=r"[，,]?(?:现在|而且|并且|但是).*$",
    determiner=("我的", "他的", "她的", "用户的", "我们的"),
    clause=r"[，,]\s*(?:另外|而且|还有|并且|同时|但是|不过)",
    people=r"哥哥|姐姐|弟弟|妹妹|父亲|母亲|爸爸|妈妈|父母|儿子|女儿|孩子|妻子|老婆|丈夫|老公|朋友"
    r"|表[哥姐弟妹]|堂[哥姐弟妹]|阿姨|叔叔|爷爷|奶奶|外公|外婆",
    job=r"(?:我|用户)(?:现在|目前|已经|一直)?(?:在[^，。；！的,.;!]{1,12}?)?(?:当|做|担任|任职|工作)",
    beside=r"也|还|兼职|周末",
    born=r"出生|出身",
    routine=tuple(
        rf"每(?:个)?(?:周|星期|礼拜){d}" for d in ("一", "二", "三", "四", "五", "六", "[日天]")
    ),  # type: ignore[arg-type]
    expansions={},
)

_CASCADES = Cascades(
    home_place=(
        r"(?:住在|居住在|定居在)(?P<place>[\u4e00-\u9fff]{2,8}?)(?=[，。；！了的,.;!]|$)",
        r"在(?P<place>[\u4e00-\u9fff]{2,8}?)住",
    ),
    children=r"儿子|女儿|孩子|小孩",
    local=r"健身房|攀岩馆|体育馆|球馆|医生|牙医|诊所|药店|兽医|通勤|上班|地铁|公交|学校|小学|中学|初中|高中|幼儿园"
    r"|托儿所|俱乐部|教会|教堂|图书馆|邻居|房东|公寓|房租|超市|咖啡馆|理发|游泳馆|合唱团|瑜伽",
    past=r"以前",
    until_move="搬家之前：{text}",
)

_TOPICS = Topics(
    # the user (not "用户的妹妹", "我妈妈"), then within the sentence a job, a workplace, its end
    work=rf"""(?x)(?:用户|我)(?![的们]|{KIN})[^。；！？他她]{{0,20}}?
    (?:工作|上班|职业|辞职|离职|退休|失业|入职|跳槽
      |(?:是|做|当|担任)(?:一名|一位|一个|个)?[^，,。；]{{0,8}}?
       (?:师|(?<![会成队学])员|医生|护士|司机|作家|画家|歌手|经理|主管|总监|老板|警察|记者|编辑|销售|工人|农民))""",
    work_word="工作",
    # the user moving house or town, or planning to: not someone else's move ("用户帮妹妹搬家"),
    # a thing moved ("用户把沙发搬到了客厅"), nor a move not made ("用户不想搬家")
    move=rf"""(?x)(?:用户|我(?:们(?=[上下这去今前]?个?[月周年天]|刚|已经|最近|终于|一家|全家))?)
    (?![的们]|{KIN}|公司)[^。；！？他她把帮说不没对想，,]{{0,20}}?
    (?:搬到|搬去|搬进|搬家|搬回|搬离|移居|迁居|定居|移民|安家)""",
    move_word="居住地",
    home_asked="用户住在哪里？",
)

# Cannot eat or drink ("不能吃辣", "无法饮酒", "吃不了辣"); not "能不能吃" (a question),
# "不是不能" (it is not that …), how much ("不能吃太多", "吃不完") or an idiom ("吃亏", "吃苦")
_CANNOT = r"(?<!不是)(?:(?<!能)不(?:太|怎么)?能再?|(?<!可)不可以|无法|没法|不宜|不适合)"
_INTAKE = r"吃(?!太多|多|完|饱|亏|苦|惊|力|醋|透|什么|哪)|喝(?!太多|多|完|什么|哪)|食用|饮|进食|沾"
_CANNOT_INTAKE = r"(?:吃|喝|沾)不(?:了|得)(?!这么|那么|太多|多少)"
_FORBIDDEN = r"不(?:让|许|准)(?:我|用户)"
_DIET_CONDITION = r"糖尿病|乳糜泻|痛风"
_PREFERENCES = Preferences(
    # the user, not someone of theirs ("用户的妹妹喜欢爵士乐"), then what they like, dislike,
    # avoid, fear, find boring, cannot have or keep as a diet, within the sentence (a clause
    # after a comma keeps its subject: "我深怕高处，强烈避免…"); the taste said in English words,
    # as bilingual users do ("我很 dislike 这种音乐")
    standing=rf"""(?:用户|我们?)(?![的们]|{KIN})[^。；！？他她]{{0,24}}?
    (?:喜欢|喜爱|热爱|爱吃|爱喝|偏爱|偏好|钟爱|讨厌|厌恶|反感|抵触|受不了|无法忍受|忍受不了
      |避免|避开|回避|远离|拒绝|反对|(?<![恐哪])怕|恐惧|畏惧|过敏|不耐受|素食|吃素|纯素|蛋奶素
      |清真|犹太(?:洁食|教?饮食|食品)|不吃|不喝|不碰|忌口|从不|绝不
      |{_CANNOT}(?:{_INTAKE}|忍受|耐受|碰(?![到面头见上]))|{_CANNOT_INTAKE}
      |只(?:吃|喝|穿|用|使用|买|看|听|住|读|开|坐|去|选)
      |不感兴趣|没(?:有|什么)?兴趣|敏感|无麸质|无乳糖|尽量(?:减少|避免|不|少)
      |(?:遵守|遵循|坚持|奉行)[^，,。；！？]{{0,10}}饮食
      |(?:觉得|发现|认为)[^，,。；！？]{{0,20}}(?:无聊|乏味|没意思|难受|不舒服|困惑|烦)
      |(?:选择|选)了?[^，,。；！？]{{1,40}}(?:而不是|而非)
      |粉丝|迷恋|着迷|痴迷|热衷|充满热情|看重|注重|重视|在意|在乎|不信任|晕车|晕船|晕机
      |(?:坐|使用|靠)轮椅|预算(?:有限|紧张|不多)|夜猫子|不是(?:早起|起得早)|(?:会|容易)(?:紧张|焦虑)
      |(?:有|得了|患有)(?:{_DIET_CONDITION})|戒(?:酒|烟|糖|咖啡)|控(?:糖|盐)
      |{_CANNOT}(?:(?:使用|用|坐|乘坐|搭乘?)(?:公共交通|公交|地铁|飞机|电梯)|开车|爬楼梯|走远路)
      |(?<![A-Za-z])(?i:dislike|hate|prefer|avoid|love|like|enjoy)(?![a-z]))
    (?!这个?(?:主意|想法|建议|回答)|你的)
    |(?:用户|我们?)的?最(?:喜欢|爱)的|(?:用户|我们?)的(?:首要|第一)(?:考虑|要求|原则)
    |{_FORBIDDEN}(?:{_INTAKE}|碰|沾)""",
    after_subject="",
    subject="",
    one_off=r"今天|今晚|明天|今早|明晚|后天|这周|本周|这个周末|这几天|这两天|待会|等会|一会儿",
    aversion=r"讨厌|不喜欢|避免|避开|厌恶|反感|受不了|无法忍受|害怕|恐惧|过敏",
    food=rf"""素食|吃素|纯素|蛋奶素|清真|犹太洁食|饮食|忌口|麸质|乳糖|乳制品|不吃(?:肉|猪肉|牛肉|海鲜|鱼)
      |{_CANNOT}(?:{_INTAKE})|{_CANNOT_INTAKE}|{_FORBIDDEN}(?:吃|喝)
      |{_DIET_CONDITION}|控糖|控盐
      |(?:花生|坚果|海鲜|贝类|鸡蛋|小麦|大豆|鱼|牛奶|芝麻)[^，,。；]{{0,8}}过敏""",
    reason=r"[，,]?\s*(?:因为|由于|出于).*$",
    but=r"[，,]?(?:但是|不过|可是)",
)

# "给我推荐…", "有什么好的…", "帮我规划…", "我应该…"
_REQUESTS = Requests(
    open=r"""推荐|建议|主意|点子|想法|选择|规划|计划|攻略|安排|有什么好|有哪些好|食谱|菜谱|歌单
    |哪些.{0,12}(?:值得|适合|受欢迎|不错|好看|好玩|好吃|有趣|最好|热门|流行|独特)
    |(?<![你您])(?:可以|能)(?:去|来)?(?:看|做|吃|买|玩|读|听|尝试|试试)(?:些|点)?(?:什么|哪些)
    |(?:我|我们)[^，。？?]{0,10}?(?:应该|该|可以|能).{0,12}(?:什么|哪|怎么)
    |帮我(?:选|找|想|挑|规划|安排|推荐|设计)|(?:如何|怎么|怎样)[^？?]{0,12}(?:我的|我们的|我家|家里)
    |(?:哪些|什么)[^？?]{0,8}(?:方法|方式|办法|途径|地方|去处)
    |(?:方法|方式|办法|途径|去处)[^？?]{0,4}有哪些
    |(?:我|我们)(?:想找|在找|正在找)(?:一些|几个|一个|一款|一家)
    |适合我|给我.{0,10}(?:找|选|做|列|想)
    """,
    recounts=r"我(?:上次|之前|以前)?(?:推荐|建议)给",
    reminded=r"帮我(?:回忆|记起|想起)",
    home=r"""我(?:们)?(?:住的地方|住的城市|住的那边|家附近|家那边|这边|所在的城市)
    | (?:我(?:们)?(?:的)?)(?:城市|小区|街区)附近?""",
    work=r"""上班|下班|通勤|加班 | 我的(?:工作|职业|岗位|班)
    | 工作(?:前|后) | (?:在|去)(?:单位|公司)""",
)

_NOTES = Notes(
    small_talk="谢谢 多谢 太好了 没问题 不客气 是的 哈哈 明白了 知道了 收到 好吧 好的",
    vocative=r"嗨|你好",
    memory_command=r"别记(?:住|下)?|不要记(?:住|下)?|不用记|不要保存",
    # as words: a character alone is also part of others (烈酒, 真丝, 爱情片)
    holding=r"喜欢|喜爱|热爱|钟爱|偏爱|讨厌|厌恶|偏好|倾向于?|通常|一般|总是|特别|非常|尤其|强烈|真的"
    r"|比较|习惯|感兴趣|更|很|爱(?=[吃喝看玩听])",
    # "不爱吃", "不太喜欢", "没兴趣"; not any 不 ("千万别放花生")
    not_held=r"(?:不|没)(?:太|怎么|大|是很)?(?:爱|喜欢|喜爱|想|愿意|感兴趣)|没(?:有|什么)?兴趣",
    refusal=r"(?:抱歉|对不起)[，,]?我(?:无法|不能)",
    reminder=r"^再?提醒(?:你)?一下[，,：:]\s*",
    requested=r"[，,；;]\s*(?:所以|那就)?(?:(?:千万|请|一定)(?:别|不要)|别)[^，,。！!？?；;]*(?=[。！!]?\s*$)",
)

_ASKS = Asks(
    asks=r"(?:请|帮我|帮忙|麻烦你|给我|推荐|告诉我|你能|你可以|能不能|可不可以|怎么|为什么|哪|谁)"
    r"|把[^。！？]*(?:告诉|发给|列给|说给|念给)我(?:吧|一下)?[。！!.]?$",
    commands=r"(?:忽略|无视|列出|列举|显示(?!器)|翻译|总结|概括|生成|改写|重写|输出|打印(?!机)"
    r"|计算(?!机)|写一[个篇首段封])",
    # of the user beyond being addressed ("告诉我", "给我"): "我下周要用"
    speaker=r"(?<![诉给帮为对跟])我",
    trailing=LAST_CLAUSE_ASKS,  # "我开始订机票了，预算方面要注意什么？"
)

_AMOUNTS = Amounts(
    asks=r"多久|多少|多长|多大|多远|几(?:个|岁|年|天|次|周|月|只|位|口|本|遍|小时|分钟)",
    words=(),
    every="",
    counted=r"[一二两三四五六七八九十百千几每][个年次天周月岁只位口本遍]",
    vague=r"那(?:个|这个)?呢|还有(?:什么|呢)",
)

_GROUNDING = Grounding(
    conversation=r"用户(?:正在|在)?(?:和|跟|与)\S{1,6}?(?:聊天|说话|交谈|谈话|聊)",
    courtesy=r"用户(?:感谢|谢谢|祝贺|恭喜|称赞)|用户(?:和|跟|与|向)\S{1,6}?(?:道别|告别|说再见)[。！!.]?$",
    says_more=r"但",
    we=r"(?<![自忘])我",
    addressing=r"[你您]",
    answering=r"我(?:觉得|认为|建议|推荐|记得|会|可以|想推荐)|我[^，,。！？]{0,3}也"
    r"|我[^，,。！？]{0,3}(?:喜欢|爱|最爱)",
    pointer="",
    choice_talk="",
    demonstrative="",
    suggests=r"可以考虑|不妨|应该",
    advice="",
    picks="",
    options="",
    draft="",
)

_WORDS = Words(
    stopwords=frozenset(stopwordsiso.stopwords("zh")),
    abbreviations="",
    joining=frozenset(),
    not_names=frozenset(),
    memory_voice={},
)

_ATTRIBUTION = Attribution(
    # "用户的妹妹安娜的…", "用户表姐丽丽的…", "用户姐姐的…"
    holder=rf"^(?:用户的?)?(?P<who>[表堂亲]?(?:{KIN})(?:(?!的)[\u4e00-\u9fff]){{0,3}})的",
    user_head="用户的",
    pointing=r"[他她它]",
)

# The 1.5B model's Chinese habits, mended in memories/attribution.py: the user's "我" copied into a
# fact, what the user said of themselves given to a possession, a pet's name given to a
# relative. No other language's facts showed them: Chinese's words, not fields every language
# fills.
ME = r"(?<![自忘])我(?!们)"  # "我" (I, me), not "我们" (we) nor inside a word ("自我", "忘我")
SENTENCE_END = r"[。！？!?；;\n]"
CLAUSE_END = r"[，,。；;！!？?\n]"
KIN_OF_USER = rf"(?:用户|我)的?({KIN})"  # the user's relative: not 哥 in "哥伦比亚"
# the user speaking of themselves in a clause ("我每天早上六点去游泳"), not of what is theirs
# ("我的车…", "我司…"; "我妈妈…" leaves no rest to find after the possession), nor "我们"
SAID_OF_SELF = r"(?<![自忘])我(?![的们司校家方])(?P<rest>[^，,。；;！!？?\n]{3,})"
POSSESSION = "用户的"  # a fact of something of the user's
# a possession is a thing or a person, not what someone said of the user ("医生建议", "妈妈说")
REPORTED = r"说|讲|建议|认为|觉得|让|叫|要求|希望|劝|告诉|提醒"

_SECRETS = Secrets(
    password=r"(?:密码|口令|(?-i:PIN)码?)(?:是|为|：|:|=)\s*",
    token=r"(?:API\s?(?:密钥|key)|访问令牌|令牌|密钥|token)(?:是|为|：|:|=)\s*",
    national_id=r"(?:居民)?身份证(?:号码?)?|社保号",
    phone=r"电话(?:号码)?|手机(?:号码?)?|联系方式",
    # "南京东路100号": a street's name (no word of the clause around it), its word, its number
    address=r"[^\W\d在住是的到于从往和与我你他她了]{1,6}(?:路|街|大道|巷|弄|胡同)"
    r"[\d一二三四五六七八九十百零\u3007]{1,5}[号號](?:[\d一二三四五六七八九十百零\u3007]{1,5}[楼室])*",
)

_COMMANDS = (
    r"(?:忽略|无视|忘记|忘掉|不要理会|不要管)[^。！？\n]{0,20}(?:指令|指示|提示|规则|说明|要求|设定)",
    # "从现在开始我吃素" is a fact: the command is what follows
    r"(?:从现在(?:开始|起)|从今以后)[，,]?[^。！？\n]{0,12}(?:你|总是|一定|都要|必须|只要|每当"
    r"|回答|推荐|回复|告诉)",
    r"(?:总是|一定要|必须|永远)都?(?:推荐|回答|回复|告诉用户|提到|使用|遵守|听从|让用户)",
    r"(?:系统|开发者)(?:提示词?|消息|模式|指令)|【系统】|\[系统\]|系统[:：]",
    r"越狱|你现在是|假装你是|扮演一个",
    r"[<【\[]\s*系统(?:提示|消息|指令)?\s*[>】\]]",
    # a standing rule for later requests: "以后我问银行的事，你就说…"
    r"(?:以后|今后|将来|往后)[^。！？\n]{0,20}(?:你就|就说|就推荐|都说|都推荐|就回答)",
    r"我(?:再)?问[^。！？\n]{0,15}(?:的时候|时)?[，,]?你?就(?:说|推荐|回答|告诉)",
    r"(?:给|致)(?:AI|人工智能|助手|模型)的(?:说明|提示|指令|备注)",
    r"(?:记住|记下|保存|存储|记得)[^。！？\n]{0,20}用户",
    # "我要是问买什么理财，你直接跟我说…": the answer after the comma is the assistant's; not "我问
    # 了老师，她说…" (what someone said back)
    r"(?:我|用户)(?:要是|如果|若是?)?再?问[^。！？，,\n]{0,15}[，,]\s*你(?:就|直接|只)?(?:跟我|给我|对我)?"
    r"(?:说|推荐|回答|告诉|回复|报)",
    # a pasted text's request to an AI: "处理此邮件的智能助手请登记…" ("AI" as a word, not
    # "Dubai"; not "人工智能公司邀请我…")
    r"(?:(?<![A-Za-z])(?-i:AI)(?![A-Za-z])|\uff21\uff29|人工智能|智能助手|语言模型|大模型)[^。！？\n]{0,8}"
    r"(?:请(?:登记|记住|记下|保存|存储|写入|更新|将|把)|务必)",
    r"(?:写入|存入|录入|加入)[^。！？，,\n]{0,6}(?:长期)?记忆(?![力卡])",
    # a letter's address to an AI ("致阅读本文件的AI助手："), a record in the memory
    r"致[^。！？\n]{0,12}(?:(?<![A-Za-z])(?-i:AI)|人工智能|智能助手|模型)助?手?[：:，,]",
    r"在[^。！？\n]{0,6}记忆中(?:记录|保存|写入|登记)",
    # "问到修电器时直接报铭匠家修": what to answer when asked, as a model writes the rule
    r"(?<!被)问到[^。！？，,\n]{0,15}(?:时|的时候)[，,]?\s*(?:直接|就|只)(?:报|说|推荐|回答|告诉)",
)

LANGUAGE = Language(
    code="zh",
    name="Chinese",
    spaced=False,
    words_move=False,
    names_by_capital=False,
    # no capitals: a name is what "named" introduces ("一只猫，叫露娜" → 露娜), not a pronoun
    # ("叫他明天来": "told him to come tomorrow"), a question ("叫什么名字") or 叫 as a verb
    # ("叫了外卖", "叫个不停")
    named=r"(?:名叫|叫做|取名|叫)(?![他她它我你了得着过个什啥])([\u4e00-\u9fff]{2,4}?)"
    r"(?=[\s，。、；！？,.;!?的]|$)",
    stem=str,  # no inflection: a character pair is a word more often than not
    user="用户",
    greetings=r"你好|您好|嗨|谢谢|多谢|谢谢你|再见|好的|好|嗯|早上好|晚上好|没问题",
    previously=("（以前：", "）"),
    examples=(
        Example(
            (),
            "我女儿叫小雨，今年上小学三年级了。",
            ("用户的女儿叫小雨", "用户的女儿今年上小学三年级"),
        ),
        Example(
            ("用户的车是蓝色的",),
            "我刚才说错了，我的车不是蓝色的，是绿色的。",
            ("用户的车是绿色的",),
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
    recurring=r"以后|今后|往后|每次|每当|但凡|凡是|总是|一律|永远|只要|从现在|默认|所有的?(?:回答|问题)",
    hedges=r"(?<![尽不])可能|也许|大概|好像|似乎|说不定|不确定|或许",
)
