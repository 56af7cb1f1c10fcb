/**
 * The words of a text as the topic model counts them, cut the way the
 * archive search cuts them (src/search/text-prep.ts: NFKC, control
 * characters out, runs of Chinese, Japanese, Thai… segmented into words by
 * ICU's Intl.Segmenter), then split at every character that is not a
 * letter, a mark or a digit (Unicode word boundaries for spaced scripts),
 * folded to lower case, Latin diacritics removed (as SQLite's unicode61
 * does for the search). Tokens made only of digits, and single Latin
 * letters, carry no topic and are dropped; a single Han character is a word.
 *
 * A URL's words are its host labels (without the `www` and the TLD), path
 * segments and query values, percent-decoded, cut the same way.
 */
import { normalizeText, segmentText } from '../search/text-prep.js';

/** Anything that is not a letter, a combining mark or a digit (U+200B, which segmentText writes between words, included). */
const SEPARATORS = /[^\p{L}\p{M}\p{N}]+/u;
const DIGITS_ONLY = /^\p{N}+$/u;
/** A token written in Latin letters (and marks, digits), whose diacritics are folded. */
const LATIN_TOKEN = /^[\p{Script=Latin}\p{M}\p{N}]+$/u;
const NOT_ASCII = /[^\u0000-\u007f]/;
const MARKS = /\p{M}+/gu;

/** The terms of `text`, in order (stop words still in: stop-words.ts drops them by language). */
export function termsOf(text: string): string[] {
  if (text === '') return [];
  const out: string[] = [];
  for (const raw of segmentText(normalizeText(text)).split(SEPARATORS)) {
    if (raw === '') continue;
    const term = foldTerm(raw);
    if (term.length === 1 && term < '\u0080') continue;
    if (DIGITS_ONLY.test(term)) continue;
    out.push(term);
  }
  return out;
}

/** Lower case; Latin letters without their diacritics (é → e, ü → u). */
export function foldTerm(token: string): string {
  const lower = token.toLowerCase();
  if (!NOT_ASCII.test(lower) || !LATIN_TOKEN.test(lower)) return lower;
  return lower.normalize('NFD').replace(MARKS, '').normalize('NFC');
}

/** Host labels that name no topic. */
const HOST_NOISE = new Set(['www', 'com', 'org', 'net', 'html', 'htm', 'php', 'asp', 'aspx', 'jsp', 'index']);

/** The words of a URL: host labels, path segments, query values (see the file's comment). */
export function urlTerms(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const labels = u.hostname.split('.');
  // The top-level domain says nothing of the topic; an IP address neither.
  const host = /^[\d.]+$/.test(u.hostname) || u.hostname.startsWith('[') ? '' : labels.slice(0, -1).join(' ');
  const parts = [host, decode(u.pathname)];
  for (const [, value] of u.searchParams) parts.push(value);
  return termsOf(parts.join(' ')).filter((t) => !HOST_NOISE.has(t));
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
