/** A LevelDB (buffer encodings) in a temp directory for one test file: opened before its tests, closed and removed after. */
import { after, before } from 'node:test';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import type { RootLevel } from '../../src/store/keyspace.js';

export interface TempLevel {
  /** The open database (from before() on). */
  readonly db: RootLevel;
  /** The temp directory holding it (free for other files of the test). */
  readonly dir: string;
}

/** Registers the before/after hooks of the calling test file. */
export function useTempLevel(): TempLevel {
  let dir = '';
  let db: RootLevel | null = null;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-'));
    db = new ClassicLevel<Buffer, Buffer>(path.join(dir, 'state'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await db.open();
  });
  after(async () => {
    await db?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });
  return {
    get db(): RootLevel {
      if (db === null) throw new Error('useTempLevel: the database opens in before()');
      return db;
    },
    get dir(): string {
      return dir;
    },
  };
}
