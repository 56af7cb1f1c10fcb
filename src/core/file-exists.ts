/** Whether a file is there now (a WARC read under its `.open` name or, once closed, its final one). */
import { access } from 'node:fs/promises';

export async function fileExists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
