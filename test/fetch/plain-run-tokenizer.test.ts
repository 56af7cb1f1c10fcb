/**
 * PlainRunTokenizer against parse5's own Tokenizer: the same tags,
 * attributes, comments, doctypes and text, in the same order, on thousands
 * of documents strung together from pieces that sit at the edges of a plain
 * run (words and single spaces, other whitespace, CR/LF, character
 * references, NUL, control characters, surrogate pairs and lone halves,
 * quotes inside values, tags cut off by the end of input), and on the pages
 * of the fixture web. Text is compared as the characters between two other
 * tokens, because whitespace is the one thing that travels differently:
 * a single space between two words, and any whitespace after a character
 * inside script, style, title and the other text elements, stays inside
 * the character token instead of being a whitespace token of its own; that
 * it does so, and only that, is checked too. With a
 * parse-error listener the tokenizer must not step over anything: the
 * tokens and the errors are then parse5's exactly.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Tokenizer, TokenizerMode, type Token, type TokenHandler } from 'parse5';
import { PlainRunTokenizer } from '../../src/fetch/plain-run-tokenizer.js';
import { fixtureHtmlPages } from '../helpers/fixture-html.js';
import { mulberry32 } from '../helpers/prng.js';

const PIECES = [
  'word', 'two words', 'a  b', 'x\ty', 'x\ny', 'x\r\ny', 'x\rz', ' ', '  ', '\n', '\r', '\t', '\f', 'é', 'Ünïcödé', '\u00a0', '\u3000',
  '😀', 'a😀b', '\ud800', '\udc00x', '\u0000', 'a\u0000b', '\u0001', '\u007f', '\u0085', '\ufdd0', '\uffff', '&amp;', '&', '&lt;', '&notit;', '&#65;', '&#x1F600;', '&#0;',
  '<p>', '</p>', '<br/>', '<a href="x y">', "<a href='x\"y'>", '<a href="&amp;q=1&b">', '<a title="a\tb\nc\r\nd">', '<a href="😀\ud800">', '<a href="\u0000z">', '<a href=unquoted>',
  '<img alt="" src=\'\'>', '<a x="', "<a y='", '"', "'", '<', '>', '=', '</', '<!--', '-->', '<!-- c -->', '<!DOCTYPE html>', '<script>', '</script>', '<style>', '</style>',
  '<title>', '</title>', '<textarea>', '</textarea>', '<plaintext>', '<svg>', '</svg>', '<![CDATA[', ']]>', '<math>', '</math>', 'end.', ' end', '1 2 3', 'a.b,c;d', '-', '--',
  // Tag and attribute names: runs of plain name characters, and what ends or changes them.
  '<span class="n">', '</span>', '<H1>', '</H1 >', '<my-el data-x-y="1" ARIA-Label=v>', '<dIv ID=a>', '<x:y a:b=c>', '<a b_c.d-9=1 0x="2">',
  '<a href="x" HREF="y" href=z>', '<a\nhref="x">', '<a\u0000b c\u0000d>', '<a é="1" b"c=2 d<e>', '<a/b>', '<a =x>', '<tr/ td>', '</a b="c">', '<a\ud800b>',
  // The rest of a tag, whole and in pieces: what is read in one go (names, quoted values, whitespace, `>` and `/>`) and what stops it.
  '<input checked>', '<input checked/>', '<br />', '<br/ >', '<a b="c"d="e">', '<a b="c"/x>', '<a b = "c">', '<a b= "c">', '<a b ="c">', '<a b="c" B="d" b="e">',
  '<img\tsrc="a"\fx=\'b\'\n>', '</p x="y"/>', '</p >', '<a b="c\rd">', '<a\r\nb="c">', '<a b="" c=\'\' d>', '<a b="😀">', '<a b="x&amp;y" c="z">', '<p a b c d>',
  '<a', '<a ', '</a', ' b', ' B', 'b', ' data-x', '=', '="', "='", '""', '"v"', "'v'", ' c="d"', " e='f'", '/>', ' />', '/', ' ', '\n ',
];

type Shape = { kind: string; value: string };

/** The text states the tree builder switches the tokenizer into at these start tags (scripting off). */
const TEXT_STATES = new Map<string, number>([
  ['script', TokenizerMode.SCRIPT_DATA], ['style', TokenizerMode.RAWTEXT], ['xmp', TokenizerMode.RAWTEXT], ['iframe', TokenizerMode.RAWTEXT],
  ['title', TokenizerMode.RCDATA], ['textarea', TokenizerMode.RCDATA], ['plaintext', TokenizerMode.PLAINTEXT],
]);

/**
 * The tokens of `html`: runs of character tokens joined (NUL tokens kept
 * apart), everything else as it came. `textStates`: switch into script,
 * style, title… text as the tree builder does (a bare tokenizer stays in
 * its data state).
 */
function tokens(Kind: typeof Tokenizer, html: string, withErrors = false, textStates = false, chunks: readonly number[] = []): { shapes: Shape[]; raw: Shape[]; errors: string[] } {
  const shapes: Shape[] = [];
  const raw: Shape[] = [];
  const errors: string[] = [];
  let text = '';
  const flush = (): void => {
    if (text !== '') shapes.push({ kind: 'text', value: text });
    text = '';
  };
  const other = (kind: string, value: string): void => {
    flush();
    shapes.push({ kind, value });
    raw.push({ kind, value });
  };
  const tag = (t: Token.TagToken): string => JSON.stringify([t.tagName, t.selfClosing, t.attrs.map((a) => [a.name, a.value])]);
  const handler: TokenHandler = {
    onCharacter: (t) => {
      text += t.chars;
      raw.push({ kind: 'chars', value: t.chars });
    },
    onWhitespaceCharacter: (t) => {
      text += t.chars;
      raw.push({ kind: 'space', value: t.chars });
    },
    onNullCharacter: (t) => other('nul', t.chars),
    onStartTag: (t) => {
      other('start', tag(t));
      const state = textStates ? TEXT_STATES.get(t.tagName) : undefined;
      if (state !== undefined) tokenizer.state = state;
    },
    onEndTag: (t) => other('end', tag(t)),
    onComment: (t) => other('comment', t.data),
    onDoctype: (t) => other('doctype', JSON.stringify([t.name, t.publicId, t.systemId, t.forceQuirks])),
    onEof: () => other('eof', ''),
    ...(withErrors ? { onParseError: (e) => errors.push(`${e.code}@${e.startOffset}`) } : {}),
  };
  const tokenizer = new Kind({ sourceCodeLocationInfo: false }, handler);
  // `chunks`: the input written in pieces of these lengths (the rest last), as a large page is (html-pieces.ts).
  let at = 0;
  for (const n of chunks) {
    tokenizer.write(html.slice(at, at + n), false);
    at += n;
  }
  tokenizer.write(html.slice(at), true);
  return { shapes, raw, errors };
}

/** Chunk lengths for `html`, 1 to `max` code units each, from the seed. */
function chunking(seed: number, html: string, max: number): number[] {
  const rnd = mulberry32(seed * 7919);
  const out: number[] = [];
  for (let left = html.length; left > 0; ) {
    const n = Math.min(left, 1 + Math.floor(rnd() * max));
    out.push(n);
    left -= n;
  }
  return out;
}

/** Pieces that switch the tokenizer into a text state (script, style, title, textarea, plaintext). */
const TEXT_STATE_OPENERS = new Set(['<script>', '<style>', '<title>', '<textarea>', '<plaintext>']);

function randomDocument(seed: number, pieces: readonly string[] = PIECES): string {
  const rnd = mulberry32(seed);
  const n = 1 + Math.floor(rnd() * 40);
  let html = '';
  for (let i = 0; i < n; i++) html += pieces[Math.floor(rnd() * pieces.length)];
  return html;
}

/**
 * Whether `ours` is `theirs` with some runs of text tokens joined into one
 * character token, each run beginning with a character token and passing
 * `allowed`, and no other change.
 */
function onlyJoined(ours: readonly Shape[], theirs: readonly Shape[], allowed: (run: readonly Shape[]) => boolean): boolean {
  let i = 0;
  for (const o of ours) {
    const t = theirs[i++];
    if (t === undefined || t.kind !== o.kind) return false;
    if (o.kind !== 'chars') {
      if (t.value !== o.value) return false;
      continue;
    }
    const run = [t];
    let joined = t.value;
    while (joined !== o.value) {
      const next = theirs[i++];
      if (next === undefined || (next.kind !== 'chars' && next.kind !== 'space')) return false;
      run.push(next);
      joined += next.value;
      if (!o.value.startsWith(joined)) return false;
    }
    if (!allowed(run)) return false;
  }
  return i === theirs.length;
}

/** In the data state: [characters][one space][characters]…, nothing else. */
const wordsAndSingleSpaces = (run: readonly Shape[]): boolean => run.every((t, k) => (k % 2 === 0 ? t.kind === 'chars' : t.kind === 'space' && t.value === ' '));

/** Inside script, style, title and the other text elements: any text after a character. */
const anyText = (): boolean => true;

describe('PlainRunTokenizer', () => {
  it('gives parse5\'s tokens and text on 5,000 documents strung together from the edges of plain runs', () => {
    for (let seed = 1; seed <= 5000; seed++) {
      const html = randomDocument(seed);
      assert.deepEqual(tokens(PlainRunTokenizer, html).shapes, tokens(Tokenizer, html).shapes, `seed ${seed}: ${JSON.stringify(html)}`);
    }
  });

  it('gives parse5\'s tokens and text on those documents written in chunks, cut anywhere (a chunk of one code unit included)', () => {
    for (let seed = 1; seed <= 5000; seed++) {
      const html = randomDocument(seed);
      const want = tokens(Tokenizer, html).shapes;
      for (const max of [1, 3, 16]) {
        const chunks = chunking(seed, html, max);
        assert.deepEqual(tokens(PlainRunTokenizer, html, false, false, chunks).shapes, want, `seed ${seed}, chunks ${JSON.stringify(chunks)}: ${JSON.stringify(html)}`);
      }
      const inText = randomDocument(seed, [...PIECES, ...TEXT_STATE_OPENERS]);
      assert.deepEqual(
        tokens(PlainRunTokenizer, inText, false, true, chunking(seed, inText, 5)).shapes,
        tokens(Tokenizer, inText, false, true).shapes,
        `seed ${seed}, in text states: ${JSON.stringify(inText)}`,
      );
    }
  });

  it('gives parse5\'s tokens and text on the pages of the fixture web, with long runs of words and attribute values', () => {
    const pages = fixtureHtmlPages(3);
    for (const html of pages) assert.deepEqual(tokens(PlainRunTokenizer, html).shapes, tokens(Tokenizer, html).shapes);
    assert.ok(pages.length > 50, String(pages.length));
  });

  it('keeps a single space between two words inside the character token, and nothing else', () => {
    const html = '<p>one two  three\tfour\nfive six </p> seven&amp;eight nine';
    const ours = tokens(PlainRunTokenizer, html).raw;
    assert.deepEqual(
      ours.filter((t) => t.kind === 'chars' || t.kind === 'space').map((t) => t.value),
      ['one two', '  ', 'three', '\t', 'four', '\n', 'five six', ' ', ' ', 'seven&eight nine'],
    );
    // Outside the text states: only single spaces between words.
    const dataOnly = PIECES.filter((p) => !TEXT_STATE_OPENERS.has(p));
    let joins = 0;
    for (let seed = 1; seed <= 2000; seed++) {
      const doc = randomDocument(seed, dataOnly);
      const mine = tokens(PlainRunTokenizer, doc).raw;
      const theirs = tokens(Tokenizer, doc).raw;
      assert.ok(onlyJoined(mine, theirs, wordsAndSingleSpaces), `seed ${seed}: ${JSON.stringify(doc)}`);
      if (mine.length < theirs.length) joins++;
    }
    assert.ok(joins > 100, `${joins} documents had spaces joined`);
  });

  it('keeps the whitespace inside a run of script, style, title and textarea in its character token, and joins nothing else', () => {
    const html = '<style>a { b: c }\n</style><script>if (x) y();\n  z()</script><title>t  u</title><textarea>v\tw &amp; x</textarea> <p>one  two</p>';
    const ours = tokens(PlainRunTokenizer, html, false, true).raw;
    assert.deepEqual(
      ours.filter((t) => t.kind === 'chars' || t.kind === 'space').map((t) => t.value),
      ['a { b: c }', '\n', 'if (x) y();\n  z()', 't  u', 'v\tw', ' ', '&', ' ', 'x', ' ', 'one', '  ', 'two'],
    );
    let joins = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const doc = randomDocument(seed);
      const mine = tokens(PlainRunTokenizer, doc, false, true);
      const theirs = tokens(Tokenizer, doc, false, true);
      assert.deepEqual(mine.shapes, theirs.shapes, `seed ${seed}: ${JSON.stringify(doc)}`);
      assert.ok(onlyJoined(mine.raw, theirs.raw, anyText), `seed ${seed}: ${JSON.stringify(doc)}`);
      if (mine.raw.length < theirs.raw.length) joins++;
    }
    assert.ok(joins > 100, `${joins} documents had text joined`);
  });

  it('steps over nothing when parse errors are listened to: parse5\'s tokens and errors exactly', () => {
    for (let seed = 1; seed <= 1000; seed++) {
      const html = randomDocument(seed);
      const ours = tokens(PlainRunTokenizer, html, true);
      const theirs = tokens(Tokenizer, html, true);
      assert.deepEqual([ours.raw, ours.errors], [theirs.raw, theirs.errors], `seed ${seed}`);
    }
  });

  it('keeps the first of duplicate attribute names, past 64 names too, and each tag its own attributes', () => {
    const many = Array.from({ length: 3000 }, (_, i) => `n${i % 1500}=${i}`).join(' ');
    const html = `<a ${many}>x</a><b c=1 C=2 d=3><i></i><p e=4 f=5 g=6 h=7></p><br x=1>`;
    const ours = tokens(PlainRunTokenizer, html).shapes;
    assert.deepEqual(ours, tokens(Tokenizer, html).shapes);
    const first = JSON.parse(ours[0]!.value) as [string, boolean, [string, string][]];
    assert.equal(first[2].length, 1500);
    assert.deepEqual(first[2][1499], ['n1499', '1499']);
    const starts = ours.filter((t) => t.kind === 'start').map((t) => JSON.parse(t.value)[2]);
    assert.deepEqual(starts.slice(1), [[['c', '1'], ['d', '3']], [], [['e', '4'], ['f', '5'], ['g', '6'], ['h', '7']], [['x', '1']]]);
  });

  it('reuses one token of a kind without source locations, and gives parse5\'s own with them', () => {
    const seen = (sourceCodeLocationInfo: boolean): { starts: Set<Token.TagToken>; chars: Set<Token.CharacterToken>; first: Token.TagToken | null } => {
      const starts = new Set<Token.TagToken>();
      const chars = new Set<Token.CharacterToken>();
      let first: Token.TagToken | null = null;
      const handler: TokenHandler = {
        onCharacter: (t) => void chars.add(t),
        onWhitespaceCharacter: () => {},
        onNullCharacter: () => {},
        onStartTag: (t) => {
          first ??= t;
          starts.add(t);
        },
        onEndTag: () => {},
        onComment: () => {},
        onDoctype: () => {},
        onEof: () => {},
      };
      new PlainRunTokenizer({ sourceCodeLocationInfo }, handler).write('<p class="a">one</p><p id=b>two</p><div>three</div>', true);
      return { starts, chars, first };
    };
    const reused = seen(false);
    assert.equal(reused.starts.size, 1);
    assert.equal(reused.chars.size, 1);
    const fresh = seen(true);
    assert.equal(fresh.starts.size, 3);
    assert.equal(fresh.chars.size, 3);
    // With locations, each token keeps its own, attributes and names included.
    assert.deepEqual([fresh.first?.tagName, fresh.first?.attrs, fresh.first?.location?.startOffset, fresh.first?.location?.attrs?.['class']?.startOffset], ['p', [{ name: 'class', value: 'a' }], 0, 3]);
  });

  it('reads a megabyte-long word, attribute value and run of spaced words to the end', () => {
    for (const html of ['x'.repeat(1_000_000) + '<b>', `<a href="${'y'.repeat(1_000_000)}">z`, 'w '.repeat(500_000) + '<i>', `<${'t'.repeat(1_000_000)} ${'n'.repeat(1_000_000)}=v>`]) {
      assert.deepEqual(tokens(PlainRunTokenizer, html).shapes, tokens(Tokenizer, html).shapes);
    }
  });

  it('reads 300,000 tags back to back, and a long page of plain tags and text, as parse5 does (past its 64 KiB chunk drop)', () => {
    const line = '<tr class="r"><td><a href="f.html#x" title="T">link</a></td>\n  <td/><br/></tr>\n';
    for (const html of ['<i>'.repeat(150_000) + '</i>'.repeat(150_000), line.repeat(20_000)]) {
      assert.deepEqual(tokens(PlainRunTokenizer, html).shapes, tokens(Tokenizer, html).shapes);
    }
  });

  it('reads a plain tag from its name to its `>`, and a run of whitespace in text, in one trip through parse5\'s state switch', () => {
    // Counted on the tokenizer itself: each trip is a call of its state switch.
    const trips = (Kind: typeof Tokenizer, html: string): number => {
      let n = 0;
      const t = new Kind({ sourceCodeLocationInfo: false }, { onCharacter() {}, onWhitespaceCharacter() {}, onNullCharacter() {}, onStartTag() {}, onEndTag() {}, onComment() {}, onDoctype() {}, onEof() {} });
      const own = t as unknown as { _callState(cp: number): void };
      const callState = own._callState.bind(t);
      own._callState = (cp) => {
        n++;
        callState(cp);
      };
      t.write(html, true);
      return n;
    };
    const html = '<p class="a"><a href="x.html" title="y">word and words</a>\n  <br/></p>'.repeat(100);
    // Each time: `<` and the name's first letter for each of the five tags (the end tags' `/` too), one
    // for the words and one for the whitespace; and one for the end of input. parse5 alone: one a character.
    assert.equal(trips(PlainRunTokenizer, html), (5 * 2 + 2 + 2) * 100 + 1);
    assert.equal(trips(Tokenizer, html), html.length + 1);
    // Upper case, which parse5 lowers, is left to it.
    assert.ok(trips(PlainRunTokenizer, html.toUpperCase()) > 3000);
  });
});
