/**
 * Who may use the console: every API call needs the token (Bearer header or
 * the session cookie), else 401; a request addressed to another Host is
 * refused (DNS rebinding), and so is a POST from a foreign Origin (or one a
 * browser marks cross-site); control calls are POST only; no job name or
 * path in a request reaches a file outside the job directories.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConsoleServer } from '../../src/console/console-server.js';
import { JobCatalog } from '../../src/console/job-catalog.js';
import { ConsoleClient, rawRequest } from './console-harness.js';

let tmp: string;
let server: ConsoleServer;
let withToken: ConsoleClient;
let anonymous: ConsoleClient;
let host: string;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-console-security-'));
  const jobs = path.join(tmp, 'jobs');
  // A job, a secret outside the jobs directory, and a symlink pointing at it.
  await mkdir(path.join(jobs, 'site', 'warcs'), { recursive: true });
  await mkdir(path.join(jobs, 'site', 'logs'), { recursive: true });
  await writeFile(path.join(jobs, 'site', 'logs', 'crawl.log'), '');
  await mkdir(path.join(tmp, 'outside', 'logs'), { recursive: true });
  await writeFile(path.join(tmp, 'outside', 'logs', 'crawl.log'), '2026-01-01T00:00:00.000Z   200       5 http://secret.example/ - - text/html #001 - - - -\n');
  await symlink(path.join(tmp, 'outside'), path.join(jobs, 'escape'));
  server = await ConsoleServer.start({ catalog: new JobCatalog({ root: jobs }), port: 0 });
  withToken = new ConsoleClient(server.origin, server.token);
  anonymous = new ConsoleClient(server.origin, null);
  host = new URL(server.origin).host;
});

after(async () => {
  await server.close();
  await rm(tmp, { recursive: true, force: true });
});

const API_READS = ['/api/jobs', '/api/crawl?job=site', '/api/hosts?job=site', '/api/queues?job=site', '/api/log?job=site', '/api/events?job=site', '/api/captures?job=site', '/api/search?job=site&q=x', '/api/page?job=site&url=http://a/', '/cdx?job=site&url=a', '/api/replay?job=site', '/replay/archive/site/site.wacz'];

describe('console access', () => {
  it('answers 401 to every API call without the token, or with a wrong one', async () => {
    for (const p of API_READS) assert.equal((await anonymous.get(p)).status, 401, p);
    for (const p of ['/api/crawl/pause', '/api/crawl/resume', '/api/crawl/stop', '/api/crawl/seeds', '/api/crawl/exclude', '/api/jobs', '/api/session']) {
      const answer = await anonymous.post(p, {});
      assert.equal(answer.status, 401, p);
      assert.equal((answer.json as { error: { code: string } }).error.code, 'ARCHIVER_CONSOLE_UNAUTHORIZED');
    }
    const wrong = new ConsoleClient(server.origin, `${server.token}x`);
    assert.equal((await wrong.get('/api/jobs')).status, 401);
    assert.equal((await anonymous.get('/api/jobs', )).status, 401);
    assert.equal((await withToken.get('/api/jobs')).status, 200);
  });

  it('serves the page itself without the token, and trades the token for an HttpOnly SameSite=Strict cookie', async () => {
    const page = await anonymous.get('/');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.equal((await anonymous.get('/app/app.js')).status, 200);
    const session = await withToken.post('/api/session');
    assert.equal(session.status, 200);
    const cookie = session.headers.get('set-cookie') ?? '';
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    const pair = cookie.split(';')[0]!;
    assert.equal((await anonymous.call('GET', '/api/jobs', undefined, { Cookie: pair })).status, 200);
    assert.equal((await anonymous.call('GET', '/api/jobs', undefined, { Cookie: pair.replace(/=.*/, '=nope') })).status, 401);
    assert.equal(page.headers.get('access-control-allow-origin'), null, 'no CORS');
  });

  it('refuses requests addressed to another Host (DNS rebinding), token or not', async () => {
    const auth = { Authorization: `Bearer ${server.token}` };
    assert.equal((await rawRequest(server.origin, { path: '/api/jobs', headers: { ...auth, Host: host } })).status, 200);
    assert.equal((await rawRequest(server.origin, { path: '/api/jobs', headers: { ...auth, Host: `localhost:${server.port}` } })).status, 200);
    for (const foreign of ['evil.example', `evil.example:${server.port}`, `127.0.0.1:${server.port + 1}`, `127.0.0.1.nip.io:${server.port}`]) {
      const answer = await rawRequest(server.origin, { path: '/api/jobs', headers: { ...auth, Host: foreign } });
      assert.equal(answer.status, 403, foreign);
      assert.match(answer.body, /ARCHIVER_CONSOLE_HOST/);
    }
    assert.equal((await rawRequest(server.origin, { path: '/', headers: { Host: 'evil.example' } })).status, 403, 'the page too');
  });

  it('refuses POSTs from a foreign Origin, and those a browser marks cross-site', async () => {
    const post = (headers: Record<string, string>) => withToken.call('POST', '/api/crawl/pause?job=site', {}, headers);
    assert.equal((await post({ Origin: 'http://evil.example' })).status, 403);
    assert.equal((await post({ Origin: `http://127.0.0.1:${server.port + 1}` })).status, 403);
    assert.equal((await post({ Origin: 'null' })).status, 403);
    assert.equal((await post({ 'Sec-Fetch-Site': 'cross-site' })).status, 403);
    assert.equal((await post({ 'Sec-Fetch-Site': 'same-site' })).status, 403, 'another port of the same host is another site for us');
    // Our own origin passes the check; the job is not running here, hence 409.
    assert.equal((await post({ Origin: server.origin, 'Sec-Fetch-Site': 'same-origin' })).status, 409);
  });

  it('takes control calls as POST only', async () => {
    for (const p of ['/api/crawl/pause', '/api/crawl/resume', '/api/crawl/stop', '/api/crawl/seeds', '/api/crawl/exclude']) {
      const answer = await withToken.get(`${p}?job=site`);
      assert.equal(answer.status, 405, p);
      assert.equal(answer.headers.get('allow'), 'POST');
    }
    assert.equal((await withToken.post('/api/crawl?job=site')).status, 405);
  });

  it('lets no job name or path reach a file outside the job directories', async () => {
    for (const job of ['..', '../outside', '..%2Foutside', '/etc', 'site/../..', '.hidden', 'escape', 'a\\b', '%00']) {
      const answer = await withToken.get(`/api/log?job=${encodeURIComponent(job)}`);
      assert.ok(answer.status === 400 || answer.status === 404, `${job}: ${answer.status}`);
      assert.doesNotMatch(answer.text, /secret\.example/);
    }
    const bad = (await withToken.get('/api/log?job=..')).json as { error: { code: string } };
    assert.equal(bad.error.code, 'ARCHIVER_CONSOLE_BAD_JOB');
    assert.deepEqual(((await withToken.get('/api/jobs')).json as Array<{ name: string }>).map((j) => j.name), ['site'], 'the symlink out is not a job');
    for (const p of ['/replay/archive/..%2Foutside/x', '/replay/archive/site/..%2F..%2Foutside%2Flogs%2Fcrawl.log', '/replay/archive/escape/x', '/replay/..%2F..%2Fpackage.json', '/app/..%2Fapp.css', '/app/%2E%2E/console-server.ts', '/replay/archive/site/a/b']) {
      const answer = await withToken.get(p);
      assert.ok(answer.status === 400 || answer.status === 404, `${p}: ${answer.status}`);
    }
    const traversal = await rawRequest(server.origin, { path: '/app/../../package.json', headers: { Host: host } });
    assert.equal(traversal.status, 404);
    assert.doesNotMatch(traversal.body, /"name"/);
  });
});
