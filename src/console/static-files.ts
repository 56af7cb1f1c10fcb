/**
 * Files served as they are from a directory known at start: the page app
 * (src/console/app/, read from the package root, so the same files serve
 * from src/ under tsx and from the compiled dist/) and ReplayWeb.page's
 * ui.js and sw.js. The names a directory may serve are listed once; a
 * request names one of them or gets a 404, so no path in a request reaches
 * another file.
 */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { packageRoot } from '../core/package-root.js';
import { notFound } from './console-errors.js';
import { COMMON_HEADERS } from './http-io.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};

/** The page app's directory. */
export function appDir(): string {
  return path.join(packageRoot(), 'src', 'console', 'app');
}

export class StaticFiles {
  readonly #dir: string;
  readonly #names: ReadonlySet<string>;

  private constructor(dir: string, names: Iterable<string>) {
    this.#dir = dir;
    this.#names = new Set(names);
  }

  /** Every regular file of `dir` with a known type, or only `names` when given. */
  static async of(dir: string, names?: readonly string[]): Promise<StaticFiles> {
    const listed = names ?? (await readdir(dir)).filter((n) => path.extname(n) in TYPES);
    const present: string[] = [];
    for (const n of listed) if (await stat(path.join(dir, n)).then((s) => s.isFile(), () => false)) present.push(n);
    return new StaticFiles(dir, present);
  }

  has(name: string): boolean {
    return this.#names.has(name);
  }

  send(req: IncomingMessage, res: ServerResponse, name: string, headers: Record<string, string> = {}): void {
    if (!this.#names.has(name)) throw notFound(`no such file: ${name}`);
    res.writeHead(200, { ...COMMON_HEADERS, 'Cache-Control': 'no-cache', 'Content-Type': TYPES[path.extname(name)] ?? 'application/octet-stream', ...headers });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    pipeline(createReadStream(path.join(this.#dir, name)), res, () => {});
  }
}
