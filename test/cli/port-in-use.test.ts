/**
 * A port already taken. The walk-through met `cannot listen on
 * 127.0.0.1:18765` with no reason given; every server of the CLI (replay,
 * serve, run --console, the demo web) now says "port in use" and names the
 * option that chooses another port.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../helpers/capture.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { pageHtml, warcBytes } from '../analysis/synthetic.js';

function listen(host: string, port = 0): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject).listen(port, host, () => resolve(server));
  });
}

describe('a port in use', () => {
  let dir: string;
  let taken: net.Server;
  let port: number;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-port-'));
    await fs.writeFile(path.join(dir, 'a.warc.gz'), await warcBytes([{ url: 'http://p.test/', html: pageHtml('P', []) }], true));
    taken = await listen('127.0.0.1');
    port = (taken.address() as net.AddressInfo).port;
  });

  after(async () => {
    await new Promise((r) => taken.close(r));
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('replay and serve say so and suggest --port', async () => {
    for (const argv of [['replay', path.join(dir, 'a.warc.gz'), '--port', String(port)], ['serve', dir, '--port', String(port)]]) {
      const io = captureIo();
      assert.equal(await main(argv, io), 1, argv[0]);
      assert.match(io.stderr.text, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: port in use .*choose another with --port N, or --port 0 for any free one`), io.stderr.text);
    }
  });

  it('run --console names --console-port', async () => {
    const profile = path.join(dir, 'p.json');
    await fs.writeFile(profile, JSON.stringify(testProfileJson('p', ['http://127.0.0.1:9/'], path.join(dir, 'job'))));
    const io = captureIo();
    assert.equal(await main(['run', profile, '--console', '--console-port', String(port), '--quiet'], io), 1);
    assert.match(io.stderr.text, /the console cannot listen on 127\.0\.0\.1:\d+: port in use .*choose another with --console-port N/);
  });

  it('the demo web names --port', async () => {
    const demoTaken = await listen('127.0.0.2');
    const demoPort = (demoTaken.address() as net.AddressInfo).port;
    try {
      const io = captureIo();
      assert.equal(await main(['demo', '--serve-only', '--port', String(demoPort)], io), 1);
      assert.match(io.stderr.text, new RegExp(`cannot listen on 127\\.0\\.0\\.2, 127\\.0\\.0\\.3, 127\\.0\\.0\\.4 port ${demoPort}: port in use .*--port N`));
    } finally {
      await new Promise((r) => demoTaken.close(r));
    }
  });
});
