/**
 * Legacy-encoded pages for the hostile web, built from hand-checked byte
 * sequences (Node can decode GBK and Big5 but not encode them): 中文 is
 * D6 D0 CE C4 and 页 is D2 B3 in GBK, 繁體 is C1 63 C5 E9 in Big5. A crawler
 * that reads the bytes as UTF-8 or Latin-1 requests mojibake paths; one that
 * honours the charset requests the UTF-8 percent-encoded path
 * (/enc/%E4%B8%AD%E6%96%87), as a browser does.
 */

const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');
const ZHONGWEN_GBK = Buffer.from([0xd6, 0xd0, 0xce, 0xc4]);
const YE_GBK = Buffer.from([0xd2, 0xb3]);
const FANTI_BIG5 = Buffer.from([0xc1, 0x63, 0xc5, 0xe9]);

/** Served with `Content-Type: text/html; charset=GBK`; links to /enc/中文 and /enc/中文页. */
export const GBK_PAGE: Buffer = Buffer.concat([
  ascii('<!doctype html><html><head><title>'),
  ZHONGWEN_GBK,
  ascii('</title></head><body><a href="/enc/'),
  ZHONGWEN_GBK,
  ascii('">'),
  ZHONGWEN_GBK,
  ascii('</a> <a href="/enc/'),
  ZHONGWEN_GBK,
  YE_GBK,
  ascii('">'),
  YE_GBK,
  ascii('</a></body></html>\n'),
]);

/** Served as plain `text/html`, the charset only in <meta>; links to /enc/繁體. */
export const BIG5_PAGE: Buffer = Buffer.concat([
  ascii('<!doctype html><html><head><meta charset="big5"><title>'),
  FANTI_BIG5,
  ascii('</title></head><body><a href="/enc/'),
  FANTI_BIG5,
  ascii('">'),
  FANTI_BIG5,
  ascii('</a></body></html>\n'),
]);

/** The paths a charset-aware crawler requests from the two pages above. */
export const ENCODED_LINK_PATHS: readonly string[] = [
  '/enc/' + encodeURIComponent('中文'),
  '/enc/' + encodeURIComponent('中文页'),
  '/enc/' + encodeURIComponent('繁體'),
];
