/**
 * The behaviours every UriUniqFilter backend must share. A backend's test
 * file runs them in one line: `uniqFilterConformance('level', factory)`.
 * Each test gets a fresh, empty filter from the factory and closes it.
 */
import { test, describe, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { UriUniqFilter } from '../../src/uniq/uniq-filter.js';

export function uniqFilterConformance(name: string, factory: () => Promise<UriUniqFilter>): void {
  async function fresh(t: TestContext): Promise<UriUniqFilter> {
    const filter = await factory();
    t.after(() => filter.close());
    return filter;
  }

  describe(`UriUniqFilter conformance: ${name}`, () => {
    test('add is put-if-absent', async (t) => {
      const f = await fresh(t);
      assert.equal(await f.count(), 0);
      assert.equal(await f.add('http://example.org/a'), true);
      assert.equal(await f.add('http://example.org/a'), false);
      assert.equal(await f.add('http://example.org/b'), true);
      assert.equal(await f.count(), 2);
    });

    test('hasMany answers without recording, on the canonical form', async (t) => {
      const f = await fresh(t);
      await f.add('http://Example.org:80/a#frag');
      // More keys than a capped memory table holds: some answers must come from the store.
      const more = Array.from({ length: 8 }, (_, i) => `http://example.org/k${i}`);
      await f.addMany(more);
      assert.deepEqual(await f.hasMany(['http://example.org/a', 'http://example.org/b', 'http://www.example.org/a']), [true, false, true]);
      assert.deepEqual(await f.hasMany(more), more.map(() => true));
      assert.equal(await f.count(), 9, 'nothing recorded');
      assert.equal(await f.add('http://example.org/b'), true, 'an unknown URL stays new');
    });

    test('beforeCommit sees the verdicts before they are recorded; concurrent calls see the keys as taken', async (t) => {
      const f = await fresh(t);
      await f.add('http://example.org/old');
      let seen: readonly boolean[] = [];
      let concurrent: boolean[] = [];
      const got = await f.addMany(['http://example.org/old', 'http://example.org/x', 'http://example.org/y'], async (fresh) => {
        seen = [...fresh];
        concurrent = await Promise.race([
          f.addMany(['http://example.org/x', 'http://example.org/z']),
          new Promise<boolean[]>((r) => setTimeout(() => r([]), 2000)),
        ]);
      });
      assert.deepEqual(got, [false, true, true]);
      assert.deepEqual(seen, [false, true, true]);
      assert.deepEqual(concurrent, [false, true]);
      assert.equal(await f.add('http://example.org/y'), false);
    });

    test('a failing beforeCommit records nothing and its error reaches the caller unchanged', async (t) => {
      const f = await fresh(t);
      const boom = new Error('queue full');
      await assert.rejects(f.addMany(['http://example.org/a', 'http://example.org/b'], async () => {
        throw boom;
      }), (err) => err === boom);
      assert.deepEqual(await f.addMany(['http://example.org/a', 'http://example.org/b']), [true, true]);
      assert.equal(await f.count(), 2);
    });

    test('addMany answers per URL, in order, and only the first of equal keys in a batch is new', async (t) => {
      const f = await fresh(t);
      assert.equal(await f.add('http://example.org/old'), true);
      const got = await f.addMany([
        'http://example.org/new1',
        'http://example.org/old',
        'http://example.org/new1',
        'http://example.org/new2',
        'http://www.example.org/new2#frag', // same canonical form as new2
      ]);
      assert.deepEqual(got, [true, false, false, true, false]);
      assert.equal(await f.count(), 3);
      assert.deepEqual(await f.addMany([]), []);
    });

    test('the seen check uses the canonical form', async (t) => {
      const f = await fresh(t);
      assert.equal(await f.add('HTTP://User:pw@WWW.Example.ORG:80/p?x=1&#top'), true);
      assert.equal(await f.add('http://example.org/p?x=1'), false);
      assert.equal(await f.add('http://example.org/p?x=1&PHPSESSID=9682993c8daa2c5497996114facdc805'), false);
      // The path keeps its case: these are different pages.
      assert.equal(await f.add('http://example.org/P?x=1'), true);
      // Scheme and port are part of the identity.
      assert.equal(await f.add('https://example.org/p?x=1'), true);
      assert.equal(await f.add('http://example.org:8080/p?x=1'), true);
    });

    test('addForce and note record the URL', async (t) => {
      const f = await fresh(t);
      await f.addForce('http://example.org/robots.txt');
      await f.addForce('http://example.org/robots.txt');
      await f.note('http://example.org/noted');
      assert.equal(await f.count(), 2);
      assert.equal(await f.add('http://example.org/robots.txt'), false);
      assert.equal(await f.add('http://example.org/noted'), false);
    });

    test('forget lets a URL be added again; forgetting an absent URL changes nothing', async (t) => {
      const f = await fresh(t);
      await f.addMany(['http://example.org/a', 'http://example.org/b']);
      await f.forget('http://www.example.org/a#x'); // canonicalized like add
      assert.equal(await f.count(), 1);
      await f.forget('http://example.org/never-seen');
      assert.equal(await f.count(), 1);
      assert.equal(await f.add('http://example.org/a'), true);
      assert.equal(await f.add('http://example.org/b'), false);
    });

    test('forgetHost forgets one scheme+authority and nothing else', async (t) => {
      const f = await fresh(t);
      const forgetme = ['http://forgetme.test/', 'http://forgetme.test/foo', 'hTtP://fOrGeTmE.tEsT/bar', 'http://forgetme.test:80/x/y'];
      const others = ['http://forgetme.test:90/x/y', 'https://forgetme.test/baz', 'http://keep.test/a', 'dns:forgetme.test'];
      assert.deepEqual(await f.addMany([...forgetme, ...others]), new Array(8).fill(true));
      assert.equal(await f.forgetHost('http://forgetme.test/ignored/path'), 4);
      assert.equal(await f.count(), 4);
      assert.equal(await f.add('http://forgetme.test/foo'), true);
      assert.equal(await f.add('https://forgetme.test/baz'), false);
      assert.equal(await f.add('http://keep.test/a'), false);
      assert.equal(await f.forgetHost('http://nothing-here.test/'), 0);
      assert.equal(await f.count(), 5);
    });

    test('concurrent batches never both get true for one URL', async (t) => {
      const f = await fresh(t);
      const urls = Array.from({ length: 200 }, (_, i) => `http://h${i % 7}.test/page/${i % 50}`);
      const batches = Array.from({ length: 20 }, (_, b) => urls.slice(b * 10).concat(urls.slice(0, b * 10)).slice(0, 60));
      const answers = await Promise.all(batches.map((batch) => f.addMany(batch)));
      const winners = new Map<string, number>();
      answers.forEach((answer, b) =>
        answer.forEach((isNew, i) => {
          if (isNew) {
            const url = batches[b]?.[i] as string;
            winners.set(url, (winners.get(url) ?? 0) + 1);
          }
        }),
      );
      const distinct = new Set(batches.flat());
      assert.equal(winners.size, distinct.size);
      for (const [url, wins] of winners) assert.equal(wins, 1, url);
      assert.equal(await f.count(), distinct.size);
    });

    test('operations issued without waiting take effect in call order', async (t) => {
      const f = await fresh(t);
      const url = 'http://order.test/a';
      const [first, , second, , third] = await Promise.all([
        f.add(url),
        f.forget(url),
        f.add(url),
        f.forgetHost('http://order.test/'),
        f.addMany([url, 'http://order.test/b']),
      ]);
      assert.equal(first, true);
      assert.equal(second, true);
      assert.deepEqual(third, [true, true]);
      assert.equal(await f.count(), 2);
    });

    test('a large batch counts every distinct URL once', async (t) => {
      const f = await fresh(t);
      const urls = Array.from({ length: 5000 }, (_, i) => `https://site${(i % 4000) % 37}.test/item?id=${i % 4000}`);
      const got = await f.addMany(urls);
      assert.equal(got.filter(Boolean).length, 4000);
      assert.equal(await f.count(), 4000);
    });

    test('operations after close reject with ARCHIVER_UNIQ_CLOSED', async () => {
      const f = await factory();
      await f.add('http://example.org/');
      await f.close();
      await assert.rejects(f.add('http://example.org/x'), { code: 'ARCHIVER_UNIQ_CLOSED' });
      await assert.rejects(f.count(), { code: 'ARCHIVER_UNIQ_CLOSED' });
      await f.close(); // closing twice is harmless
    });
  });
}
