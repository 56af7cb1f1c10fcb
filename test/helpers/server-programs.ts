/**
 * Real web server programs started on loopback for tests: Python's
 * http.server (HTTP/1.0, closes the connection after every response) and
 * nginx (HTTP/1.1 keep-alive), each on a free port, serving a directory.
 * `programPath()` says whether the program is installed; a test skips with
 * the package to install when it is not.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

export interface RunningServer {
  origin: string;
  stop(): Promise<void>;
}

/** The program's path (PATH, then /usr/sbin where Debian puts nginx), or null when it is not installed. */
export function programPath(program: string): string | null {
  const found = spawnSync('sh', ['-c', `command -v ${program} || command -v /usr/sbin/${program}`], { encoding: 'utf8' });
  const line = found.stdout.trim().split('\n')[0] ?? '';
  return found.status === 0 && line !== '' ? line : null;
}

async function freePort(host: string): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once something accepts connections on host:port (bounded: 10 s). */
async function waitForPort(host: string, port: number, child: ChildProcess): Promise<void> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before listening`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, host, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listening on ${host}:${port} after 10 s`);
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
}

export async function startPythonHttpServer(dir: string, host = '127.0.0.1'): Promise<RunningServer> {
  const port = await freePort(host);
  const child = spawn('python3', ['-m', 'http.server', '--bind', host, String(port), '--directory', dir], { stdio: 'ignore' });
  await waitForPort(host, port, child);
  return { origin: `http://${host}:${port}`, stop: stopper(child) };
}

export async function startNginx(dir: string, workDir: string, host = '127.0.0.1'): Promise<RunningServer> {
  const port = await freePort(host);
  await mkdir(workDir, { recursive: true });
  const conf = path.join(workDir, 'nginx.conf');
  await writeFile(
    conf,
    [
      'daemon off;',
      'master_process off;',
      'worker_processes 1;',
      `pid ${path.join(workDir, 'nginx.pid')};`,
      `error_log ${path.join(workDir, 'error.log')};`,
      'events { worker_connections 64; }',
      'http {',
      '  types { text/html html; text/css css; image/png png; application/octet-stream bin; }',
      `  access_log ${path.join(workDir, 'access.log')};`,
      `  client_body_temp_path ${workDir}/body; proxy_temp_path ${workDir}/proxy; fastcgi_temp_path ${workDir}/fastcgi; uwsgi_temp_path ${workDir}/uwsgi; scgi_temp_path ${workDir}/scgi;`,
      '  gzip on; gzip_types text/css;',
      `  server { listen ${host}:${port}; root ${dir}; index index.html; }`,
      '}',
      '',
    ].join('\n'),
  );
  const child = spawn(programPath('nginx') ?? 'nginx', ['-c', conf, '-p', workDir], { stdio: 'ignore' });
  await waitForPort(host, port, child);
  return { origin: `http://${host}:${port}`, stop: stopper(child) };
}
