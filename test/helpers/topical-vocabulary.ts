/**
 * The words of the topical fixture web (topical-web.ts): four topics, two
 * in Chinese and two in English, each with its own vocabulary, and for each
 * language the everyday words every page of it uses whatever its topic. Two
 * topics share each language so that a topic is never told by its script
 * alone.
 */

export type TopicName = 'tea' | 'football' | 'astronomy' | 'cooking';
export type TopicLanguage = 'zh' | 'en';

export interface TopicVocabulary {
  language: TopicLanguage;
  words: readonly string[];
}

const words = (s: string): string[] => s.trim().split(/\s+/);

export const TOPICS: Readonly<Record<TopicName, TopicVocabulary>> = {
  tea: {
    language: 'zh',
    words: words(`
      茶叶 绿茶 红茶 乌龙茶 普洱茶 龙井 碧螺春 铁观音 白茶 黄茶 黑茶 茶园 茶农 采摘 嫩芽 芽叶 杀青 揉捻 发酵 烘焙
      萎凋 冲泡 水温 茶汤 茶香 回甘 滋味 汤色 茶具 茶壶 茶杯 盖碗 紫砂 茶艺 茶道 品茶 茶馆 茶叶罐 产区 高山
      云雾 茶树 古树 春茶 秋茶 明前 雨前 香气 花香 清香 浓香 陈化 茶饼 茶砖 茶汤色 鲜爽 涩味 茶多酚 咖啡因 茶点`),
  },
  football: {
    language: 'zh',
    words: words(`
      足球 球队 球员 比赛 联赛 进球 射门 传球 守门员 后卫 中场 前锋 教练 主场 客场 点球 角球 任意球 越位 裁判
      红牌 黄牌 冠军 决赛 半决赛 赛季 积分 球迷 球场 体育场 转会 俱乐部 青训 战术 阵型 防守 进攻 反击 控球 抢断
      助攻 帽子戏法 替补 首发 伤病 世界杯 欧洲杯 国家队 门将 头球 铲球 禁区 补时 加时 点球大战 绝杀 保级 升级`),
  },
  astronomy: {
    language: 'en',
    words: words(`
      telescope galaxy nebula orbit planet comet asteroid stellar spectrum observatory eclipse lunar solar meteor
      constellation supernova quasar redshift cosmology astronomer exoplanet pulsar gravity photon orbital perihelion
      aphelion ecliptic zenith parallax luminosity magnitude starlight cosmic interstellar dwarf giant binary jupiter
      saturn venus mercury neptune uranus mars crater moon sunspot aurora radiotelescope lens mirror refractor reflector
      equinox solstice galaxies nebulae orbits planets comets asteroids`),
  },
  cooking: {
    language: 'en',
    words: words(`
      recipe oven flour butter simmer garlic onion sauce roast bake knife pan skillet seasoning herbs pepper dough
      pastry broth stew braise saute whisk batter yeast knead marinade vinegar olive oil salt sugar cinnamon thyme
      rosemary basil parsley ginger chili lemon tomato potato carrot celery mushroom chicken beef pork noodles rice
      dumpling spatula ladle colander grill fry boil steam chop dice mince garnish dessert`),
  },
};

/** Everyday words of each language, on pages of every topic. */
export const COMMON: Readonly<Record<TopicLanguage, readonly string[]>> = {
  zh: words(`
    今天 我们 大家 时间 城市 生活 朋友 学习 工作 历史 文化 发展 地方 问题 方面 世界 社会 重要 开始 介绍
    经验 故事 周末 早上 晚上 季节 传统 现在 以前 以后 一起 喜欢 知道 觉得 看到 发现 认为 希望 需要 选择
    方法 特点 变化 情况 影响 作用 关系 活动 消息 报道 记者 网站 文章 读者 图片 视频 评论 分享 推荐 更新`),
  en: words(`
    people time year world today new great local history community story week place known often many first part
    city small large good best guide notes weekend morning evening season tradition report readers article photo
    video comment share update friends family together started found believe hope need choose method change
    reason result example simple common popular recent early later daily review list tips question answer idea`),
};

/** Sentence glue: the stop words a language's text really has between its content words. */
export const GLUE: Readonly<Record<TopicLanguage, readonly string[]>> = {
  zh: words(`的 了 是 在 和 也 都 就 很 有 这 那 我们 他们 一个 一些 因为 所以 但是 还 更 最`),
  en: words(`the a of and to in is it that for on with as was are this by from at or be an have not they but`),
};
