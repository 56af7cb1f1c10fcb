/**
 * A string that holds its own characters. V8 lets a slice of 13 characters
 * or more share its parent's (and keep the whole parent alive), and a
 * concatenation of slices holds them until it is flattened; the scan's text
 * runs are such slices of the page (plain-run-tokenizer.ts), so what may
 * outlive the page's reading is copied out here. Below 13 characters V8
 * copies a slice anyway.
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : ` ${s}`.slice(1);
}
