/** A process's node id in a crawl of several processes: default the hostname, checked when given. */
import os from 'node:os';
import { UsageError } from '../core/errors.js';

/** A node id from a hostname: letters, digits and `._-` only. */
export function defaultNodeId(): string {
  return os.hostname().replace(/[^A-Za-z0-9._-]/g, '_') || 'node';
}

export function checkNodeId(node: string): string {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(node)) throw new UsageError(`--node ${JSON.stringify(node)}: letters, digits and ._- only (at most 64)`);
  return node;
}
