/** Whether a profile's regular expression compiles; the problem in one phrase when it does not. */

/**
 * null when `source` compiles; else `invalid regular expression /(x/:
 * Unterminated group` (V8's own message starts with the same words, which
 * would read twice after ours).
 */
export function regexProblem(source: string): string | null {
  try {
    new RegExp(source);
    return null;
  } catch (err) {
    const detail = (err as Error).message.replace(/^Invalid regular expression:\s*/i, '');
    return `invalid regular expression ${detail}`;
  }
}
