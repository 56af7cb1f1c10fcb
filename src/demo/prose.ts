/**
 * Text for the fixture web's pages: titles and paragraphs drawn from a small
 * lexicon with a seeded generator, and the fixed GBK-encoded strings of the
 * Chinese page. Node can decode GBK (TextDecoder('gbk')) but not encode it,
 * so the GBK bytes are written out here once; a test decodes them back.
 */
import type { Rng } from './random.js';

const WORDS = [
  'archive', 'harvest', 'frontier', 'capture', 'record', 'library', 'collection', 'heritage',
  'memory', 'snapshot', 'replay', 'index', 'catalogue', 'manuscript', 'journal', 'letter',
  'museum', 'gallery', 'exhibit', 'curator', 'reader', 'history', 'newspaper', 'atlas',
  'river', 'harbour', 'lighthouse', 'village', 'market', 'garden', 'orchard', 'meadow',
  'winter', 'autumn', 'summer', 'spring', 'morning', 'evening', 'lantern', 'bridge',
  'the', 'of', 'and', 'a', 'in', 'to', 'with', 'for', 'from', 'by', 'on', 'old', 'new',
  'quiet', 'early', 'local', 'public', 'small', 'distant', 'careful', 'bright', 'patient',
];

const TITLE_WORDS = [
  'Notes', 'Letters', 'Maps', 'Voyages', 'Chronicles', 'Recipes', 'Portraits', 'Records',
  'Harbours', 'Gardens', 'Bridges', 'Markets', 'Lanterns', 'Rivers', 'Almanacs', 'Ledgers',
];

const TITLE_TOPICS = [
  'the Northern Coast', 'a Small Town', 'the Old Library', 'Winter Evenings', 'the River Trade',
  'Forgotten Roads', 'the Lighthouse Keepers', 'Early Printing', 'the Market Square', 'Rainy Seasons',
];

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** A plausible page title, e.g. "Ledgers of the River Trade". */
export function makeTitle(rng: Rng): string {
  return `${rng.pick(TITLE_WORDS)} of ${rng.pick(TITLE_TOPICS)}`;
}

/** A sentence of 6–16 lexicon words. */
export function makeSentence(rng: Rng): string {
  const count = rng.int(6, 16);
  const words: string[] = [];
  for (let i = 0; i < count; i++) words.push(rng.pick(WORDS));
  return `${capitalize(words.join(' '))}.`;
}

/** A paragraph of `sentences` sentences. */
export function makeParagraph(rng: Rng, sentences: number): string {
  const parts: string[] = [];
  for (let i = 0; i < sentences; i++) parts.push(makeSentence(rng));
  return parts.join(' ');
}

/** GBK-encoded strings and the text they decode to (checked by the tests). */
export const GBK_TEXT = {
  /** 档案馆示例站点 — "archive example site" (page title). */
  title: { text: '档案馆示例站点', bytes: Buffer.from('b5b5b0b8b9ddcabec0fdd5beb5e3', 'hex') },
  /** 这是一个使用国标扩展编码的网页。 — "this is a page in GBK." */
  intro: {
    text: '这是一个使用国标扩展编码的网页。',
    bytes: Buffer.from('d5e2cac7d2bbb8f6cab9d3c3b9fab1eac0a9d5b9b1e0c2ebb5c4cdf8d2b3a1a3', 'hex'),
  },
  /** 页面内容：网络归档保存了今天的网站，供明天的读者使用。 */
  body: {
    text: '页面内容：网络归档保存了今天的网站，供明天的读者使用。',
    bytes: Buffer.from(
      'd2b3c3e6c4dac8dda3bacdf8c2e7b9e9b5b5b1a3b4e6c1cbbdf1ccecb5c4cdf8d5bea3acb9a9c3f7ccecb5c4b6c1d5dfcab9d3c3a1a3',
      'hex',
    ),
  },
  /** 中文页面 — "Chinese page": the non-ASCII file name of the linked page. */
  linkName: { text: '中文页面', bytes: Buffer.from('d6d0cec4d2b3c3e6', 'hex') },
  /** 返回首页 — "back to the home page". */
  backHome: { text: '返回首页', bytes: Buffer.from('b7b5bbd8cad7d2b3', 'hex') },
} as const;
