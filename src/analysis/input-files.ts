/**
 * Expands the command line's `<dir|file...>` into the list of files to read:
 * directories are walked recursively, entries sorted so runs are repeatable.
 * Whether a file is a WARC is decided later from its first bytes, not its
 * name, so that `.open` files and oddly named archives still count.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

export interface ExpandedInputs {
  files: string[];
  /** Paths that do not exist or cannot be listed, with the reason. */
  missing: { path: string; reason: string }[];
}

export async function expandInputs(paths: readonly string[]): Promise<ExpandedInputs> {
  const files: string[] = [];
  const missing: { path: string; reason: string }[] = [];
  const walk = async (p: string): Promise<void> => {
    let st;
    try {
      st = await fs.stat(p);
    } catch (err) {
      missing.push({ path: p, reason: (err as NodeJS.ErrnoException).code ?? String(err) });
      return;
    }
    if (st.isFile()) {
      files.push(p);
    } else if (st.isDirectory()) {
      let names: string[];
      try {
        names = await fs.readdir(p);
      } catch (err) {
        missing.push({ path: p, reason: (err as NodeJS.ErrnoException).code ?? String(err) });
        return;
      }
      names.sort();
      for (const name of names) await walk(path.join(p, name));
    }
  };
  for (const p of paths) await walk(p);
  return { files, missing };
}
