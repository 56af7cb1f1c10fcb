/**
 * The fixture web is the yardstick of the end-to-end tests and the
 * benchmark, so it is tested over real HTTP on loopback: same seed → same
 * bytes; every URL it calls reachable answers with exactly the bytes
 * bodyFor() reports; what it calls disallowed really is disallowed by the
 * robots.txt it serves; the request log counts in-flight requests per host;
 * gzip, chunked, redirects and the GBK page are what they claim to be.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { createRequire } from 'node:module';
import { FixtureWeb, FixtureWebError } from '../../src/demo/fixture-web.js';
import { GBK_TEXT } from '../../src/demo/prose.js';

interface ParsedRobots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
}
// robots-parser is CommonJS whose module.exports is the function itself; its
// typings declare a default export that NodeNext does not see that way.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, text: string) => ParsedRobots;

interface Fetched {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

async function get(agent: Agent, url: string, headers: Record<string, string> = {}): Promise<Fetched> {
  const res = await request(url, { dispatcher: agent, headers: { 'user-agent': 'fixture-test/1.0', ...headers } });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

/** Runs `fn` over `items` with at most `limit` in flight. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: limit }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  });
  await Promise.all(workers);
}

describe('FixtureWeb', () => {
  let web: FixtureWeb;
  const agent = new Agent({ connections: 16 });

  before(async () => {
    web = await FixtureWeb.start({ hosts: 3, pagesPerHost: 30, seed: 7, crawlDelaySec: 2 });
  });
  after(async () => {
    await web.close();
    await agent.close();
  });

  it('serves each host on its own loopback address, all on one port', () => {
    assert.equal(web.origins.length, 3);
    assert.deepEqual(web.origins, [2, 3, 4].map((n) => `http://127.0.0.${n}:${web.port}`));
    assert.deepEqual(web.seeds, web.origins.map((o) => `${o}/`));
  });

  it('answers every reachable URL with the status and exact bytes it promises', async () => {
    const { reachable } = web.expectedUrls();
    assert.ok(reachable.length > 3 * 30, `only ${reachable.length} reachable URLs`);
    assert.equal(new Set(reachable).size, reachable.length, 'reachable URLs are unique');
    await eachLimited(reachable, 8, async (url) => {
      const res = await get(agent, url, { 'accept-encoding': 'gzip' });
      assert.equal(res.status, web.statusFor(url), url);
      assert.ok(res.status < 500, url);
      assert.deepEqual(res.body, web.bodyFor(url), url);
    });
  });

  it('reaches every kind of tricky page and excludes what robots and nofollow forbid', () => {
    const { reachable, disallowed, nofollowOnly } = web.expectedUrls();
    const [a, b, c] = web.origins as [string, string, string];
    for (const url of [
      `${a}/old-home`, `${a}/moved/temporary`, `${a}/welcome.html`, `${a}/refreshed.html`,
      `${a}/manual/intro.html`, `${a}/manual/chapter-1.html`, `${a}/manual/figure.gif`,
      `${a}/gbk/%E4%B8%AD%E6%96%87%E9%A1%B5%E9%9D%A2.html`, `${a}/missing-page.html`,
      `${a}/static/base.css`, `${a}/img/background.gif`, `${a}/img/footer-texture.gif`, `${a}/img/banner.gif`,
      `${a}/search?q=archive&lang=en`, `${b}/robots.txt`, `${c}/robots.txt`,
      // The last host's robots.txt is a 404, so its /private/ is allowed.
      `${c}/private/members.html`,
    ]) assert.ok(reachable.includes(url), `${url} should be reachable`);
    assert.ok(reachable.some((u) => /-2x\.gif$/.test(u)), 'srcset-only images are reachable');
    assert.deepEqual(new Set(disallowed), new Set([
      `${a}/private/members.html`, `${a}/private/staff.gif`, `${b}/private/members.html`, `${b}/private/staff.gif`,
    ]));
    assert.deepEqual(nofollowOnly.filter((u) => u.startsWith(a)), [`${a}/unlisted/draft-1.html`, `${a}/unlisted/draft-2.html`]);
    for (const url of [...disallowed, ...nofollowOnly]) assert.ok(!reachable.includes(url), url);
    assert.equal(web.statusFor(`${a}/missing-page.html`), 404);
    assert.equal(web.statusFor(`${c}/robots.txt`), 404);
  });

  it('lists as disallowed only URLs that its own robots.txt forbids', async () => {
    const { reachable, disallowed } = web.expectedUrls();
    const robots = new Map<string, ParsedRobots>();
    for (const origin of web.origins) {
      const res = await get(agent, `${origin}/robots.txt`);
      robots.set(origin, robotsParser(`${origin}/robots.txt`, res.status === 200 ? res.body.toString('utf8') : ''));
    }
    const robotsOf = (url: string): ParsedRobots => {
      const r = robots.get(new URL(url).origin);
      assert.ok(r, url);
      return r;
    };
    for (const url of disallowed) assert.equal(robotsOf(url).isAllowed(url, 'archiver'), false, url);
    for (const url of reachable) assert.notEqual(robotsOf(url).isAllowed(url, 'archiver'), false, url);
    assert.equal(robotsOf(web.seeds[0] as string).getCrawlDelay('archiver'), 2, 'crawlDelaySec goes to the first host');
    assert.equal(robotsOf(web.seeds[1] as string).getCrawlDelay('archiver'), undefined);
  });

  it('sends gzip only to clients that accept it, and chunked bodies without Content-Length', async () => {
    const home = web.seeds[0] as string;
    const zipped = await get(agent, home, { 'accept-encoding': 'gzip, deflate' });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.deepEqual(zipped.body, web.bodyFor(home));
    const plain = gunzipSync(zipped.body);
    assert.deepEqual(plain, web.bodyFor(home, false));
    assert.match(plain.toString('utf8'), /<title>Fixture Archive 1<\/title>/);

    const identity = await get(agent, home, { 'accept-encoding': 'gzip;q=0, identity' });
    assert.equal(identity.headers['content-encoding'], undefined);
    assert.deepEqual(identity.body, plain);

    const section = `${web.origins[0]}/s/1/`;
    const chunked = await get(agent, section);
    assert.equal(chunked.headers['transfer-encoding'], 'chunked');
    assert.equal(chunked.headers['content-length'], undefined);
    assert.deepEqual(chunked.body, web.bodyFor(section, false));
    const entry = web.requests.filter((e) => e.path === '/s/1/').at(-1);
    assert.equal(entry?.contentEncoding, 'identity');
  });

  it('redirects 301 → 302 → page with relative then absolute Location', async () => {
    const origin = web.origins[1] as string;
    const first = await get(agent, `${origin}/old-home`);
    assert.equal(first.status, 301);
    assert.equal(first.headers.location, '/moved/temporary');
    const second = await get(agent, `${origin}/moved/temporary`);
    assert.equal(second.status, 302);
    assert.equal(second.headers.location, `${origin}/welcome.html`);
    assert.equal((await get(agent, `${origin}/welcome.html`)).status, 200);
  });

  it('serves a GBK page whose non-ASCII link decodes with TextDecoder("gbk")', async () => {
    const origin = web.origins[0] as string;
    const index = await get(agent, `${origin}/gbk/index.html`);
    assert.match(String(index.headers['content-type']), /charset=GBK/i);
    const text = new TextDecoder('gbk', { fatal: true }).decode(index.body);
    assert.ok(text.includes(GBK_TEXT.intro.text));
    assert.ok(text.includes(`href="/gbk/${GBK_TEXT.linkName.text}.html"`));
    assert.throws(() => new TextDecoder('utf-8', { fatal: true }).decode(index.body), 'the page is not UTF-8');

    const target = new URL(`/gbk/${GBK_TEXT.linkName.text}.html`, origin).href;
    const page = await get(agent, target, { 'accept-encoding': 'gzip' });
    assert.equal(page.status, 200);
    assert.ok(new TextDecoder('gbk', { fatal: true }).decode(gunzipSync(page.body)).includes(GBK_TEXT.body.text));
    // The same page under its GBK-percent-encoded name, as some clients send it.
    const alias = await get(agent, `${origin}/gbk/%D6%D0%CE%C4%D2%B3%C3%E6.html`, { 'accept-encoding': 'gzip' });
    assert.deepEqual(alias.body, page.body);
  });

  it('answers unknown paths and other methods without crashing', async () => {
    const origin = web.origins[0] as string;
    const missing = await get(agent, `${origin}/no/such/page`);
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, web.bodyFor(`${origin}/no/such/page`));
    const post = await request(`${origin}/`, { dispatcher: agent, method: 'POST', body: 'x' });
    await post.body.dump();
    assert.equal(post.statusCode, 405);
    assert.equal(web.bodyFor('http://archiver-demo.invalid/partners'), undefined);
  });
});

describe('FixtureWeb request log', () => {
  it('counts in-flight requests per host, itself included', async () => {
    let tick = 0;
    const web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 3, latencyMs: 200, clock: { now: () => ++tick } });
    const agent = new Agent({ connections: 8 });
    try {
      const [a, b] = web.seeds as [string, string];
      await Promise.all([
        get(agent, a), get(agent, `${a}robots.txt`), get(agent, `${a}about.html`), get(agent, b),
      ]);
      await get(agent, a);
      const early = await get(agent, `${a}no-such-page`);
      assert.equal(early.status, 404);
      const taken = web.takeRequests();
      assert.equal(taken.at(-1)?.path, '/no-such-page');
      assert.equal(web.requests.length, 0, 'takeRequests starts a new log');
      taken.pop();
      const toA = taken.filter((e) => e.host === new URL(a).host);
      const toB = taken.filter((e) => e.host === new URL(b).host);
      assert.equal(toA.length, 4);
      assert.deepEqual(toA.slice(0, 3).map((e) => e.inFlightAtStart).sort(), [1, 2, 3]);
      assert.equal(toA[3]?.inFlightAtStart, 1, 'a later request sees the host idle again');
      assert.deepEqual(toB.map((e) => e.inFlightAtStart), [1], 'hosts are counted separately');
      for (const e of taken) {
        assert.ok(e.startMs < e.endMs, 'times come from the injected clock');
        assert.equal(e.userAgent, 'fixture-test/1.0');
        assert.equal(e.status, 200);
        assert.equal(e.method, 'GET');
      }
    } finally {
      await agent.close();
      await web.close();
    }
  });
});

describe('FixtureWeb generation', () => {
  it('produces the same bytes for the same seed and port, other bytes for another seed', async () => {
    const first = await FixtureWeb.start({ hosts: 2, pagesPerHost: 20, seed: 3 });
    const port = first.port;
    const urls = first.expectedUrls().reachable;
    const bodies = urls.map((u) => first.bodyFor(u));
    await first.close();

    const again = await FixtureWeb.start({ hosts: 2, pagesPerHost: 20, seed: 3, port });
    try {
      assert.deepEqual(again.expectedUrls().reachable, urls);
      urls.forEach((u, i) => assert.deepEqual(again.bodyFor(u), bodies[i], u));
    } finally {
      await again.close();
    }

    const other = await FixtureWeb.start({ hosts: 2, pagesPerHost: 20, seed: 4, port });
    try {
      const home = `http://127.0.0.2:${port}/`;
      assert.notDeepEqual(other.bodyFor(home, false), first.bodyFor(home, false));
    } finally {
      await other.close();
    }
  });

  it('rejects impossible options with a stable code', async () => {
    for (const bad of [{ hosts: 0, pagesPerHost: 1 }, { hosts: 2, pagesPerHost: 0 }, { hosts: 2, pagesPerHost: 1, firstAddress: 254 }]) {
      await assert.rejects(FixtureWeb.start(bad), (err: unknown) => err instanceof FixtureWebError && err.code === 'ARCHIVER_FIXTURE_OPTIONS');
    }
  });
});
