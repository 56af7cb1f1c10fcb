/**
 * The query language of archive search, parsed from what a person types:
 * words (all required), `"an exact phrase"`, `-word` and `-"a phrase"` to
 * exclude. Nothing else is syntax: AND, OR, NOT, parentheses, `*` and `:`
 * are searched as the words they are (the engine's own operators are never
 * reachable from a query, see fts-query.ts). An unclosed quote runs to the
 * end. A term without a letter or a digit is dropped, as the tokenizer
 * would drop it.
 */

export interface QueryTerm {
  /** As typed, without the quotes or the leading `-`. */
  text: string;
  /** Given in double quotes: its words must be adjacent, in order. */
  phrase: boolean;
}

export interface ParsedQuery {
  /** Every one must match. */
  must: QueryTerm[];
  /** None may match. */
  not: QueryTerm[];
}

const WORDLIKE = /[\p{L}\p{N}]/u;

export function parseQuery(query: string): ParsedQuery {
  const out: ParsedQuery = { must: [], not: [] };
  const s = query.normalize('NFKC');
  let i = 0;
  while (i < s.length) {
    while (i < s.length && /\s/.test(s[i]!)) i++;
    if (i >= s.length) break;
    let negated = false;
    if (s[i] === '-' && i + 1 < s.length && !/\s/.test(s[i + 1]!)) {
      negated = true;
      i++;
    }
    let term: QueryTerm;
    if (s[i] === '"') {
      const close = s.indexOf('"', i + 1);
      const end = close < 0 ? s.length : close;
      term = { text: s.slice(i + 1, end).trim(), phrase: true };
      i = end + 1;
    } else {
      let end = i;
      while (end < s.length && !/\s/.test(s[end]!) && s[end] !== '"') end++;
      term = { text: s.slice(i, end), phrase: false };
      i = end;
    }
    if (!WORDLIKE.test(term.text)) continue;
    (negated ? out.not : out.must).push(term);
  }
  return out;
}
