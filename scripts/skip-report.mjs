/**
 * A node:test reporter that accounts for skips (`npm test` runs it beside
 * the spec reporter): at the end of the run it prints how many tests and
 * suites were skipped and why, grouped by reason, with the files. A skipped
 * suite counts once, and the tests inside it did not run at all, so the
 * runner's own "skipped" line leaves them out; this one names them.
 *
 * Under CI=true a skip is a failure unless its reason is one of EXPECTED
 * below (each says why it may skip even in CI): CI installs every program
 * the tests drive, so anything else skipping means the run proved less
 * than it claims. The run's exit code is then 1, after the list.
 */

/** Skips that may happen under CI, by reason, and why each is acceptable. */
const EXPECTED = [
  {
    reason: /^cannot mount a tmpfs here/,
    why: 'a container without mount rights; the same disk-full paths run with ENOSPC injected in the next test',
  },
];

function underCi() {
  const ci = (process.env.CI ?? '').toLowerCase();
  return ci === 'true' || ci === '1';
}

export default async function* skipReport(source) {
  const skips = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { skip, name, file, details } = event.data;
    if (skip === undefined || skip === false) continue;
    skips.push({ name, file: file ?? '?', suite: details?.type === 'suite', reason: typeof skip === 'string' ? skip : '(no reason given)' });
  }
  const ci = underCi();
  const expected = (s) => EXPECTED.find((e) => e.reason.test(s.reason));
  const unexpected = skips.filter((s) => !expected(s));
  const suites = skips.filter((s) => s.suite).length;
  const lines = ['', `archiver tests: ${skips.length} skipped (${suites} whole suite(s), whose tests did not run; ${skips.length - suites} test(s))${ci ? ', under CI=true' : ''}`];
  const byReason = new Map();
  for (const s of skips) (byReason.get(s.reason) ?? byReason.set(s.reason, []).get(s.reason)).push(s);
  for (const [reason, list] of byReason) {
    const known = expected(list[0]);
    lines.push(`  ${list.length} × ${reason}${known ? ` [expected: ${known.why}]` : ''}`);
    for (const s of list) lines.push(`      ${s.suite ? 'suite' : 'test'} "${s.name}" (${s.file})`);
  }
  if (ci) {
    lines.push(unexpected.length === 0 ? 'archiver tests: no unexpected skips' : `archiver tests: FAIL: ${unexpected.length} unexpected skip(s) under CI=true (see above); CI must run every test`);
    if (unexpected.length > 0) process.exitCode = 1;
  }
  yield `${lines.join('\n')}\n`;
}
