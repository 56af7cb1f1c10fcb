/**
 * The known name a mistyped one most likely meant, for "did you mean" hints
 * (`unknown key "workerz" (did you mean "workers"?)`): the closest by edit
 * distance (a swap of two neighbours counts once), case ignored, when it is
 * close enough to be a typo and not another word.
 */

/** Edits allowed: a third of the name, at least 1, at most 3. */
function allowedEdits(name: string): number {
  return Math.min(3, Math.max(1, Math.floor(name.length / 3)));
}

export function nearestName(given: string, known: readonly string[]): string | null {
  const g = given.toLowerCase();
  let best: string | null = null;
  let bestDistance = allowedEdits(given) + 1;
  for (const k of known) {
    const d = editDistance(g, k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/** Damerau-Levenshtein (optimal string alignment) distance. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d = new Uint16Array(rows * cols);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[(i - 1) * cols + j]! + 1, d[i * cols + j - 1]! + 1, d[(i - 1) * cols + j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[(i - 2) * cols + j - 2]! + 1);
      d[i * cols + j] = v;
    }
  }
  return d[rows * cols - 1]!;
}
