/**
 * `datapackage.json` and `datapackage-digest.json` of a WACZ 1.1.1 package
 * (https://specs.webrecorder.net/wacz/1.1.1/): the list of every file in the
 * package with its sha256 and size, plus when and by what it was made and
 * which page a viewer opens first.
 */
import { createHash } from 'node:crypto';

export const WACZ_VERSION = '1.1.1';

export interface PackagedFile {
  /** Path inside the ZIP, e.g. `archive/WEB-….warc.gz`. */
  path: string;
  /** `sha256:<hex>` of the file's bytes. */
  hash: string;
  bytes: number;
}

export interface DataPackageInfo {
  title: string;
  /** ISO 8601. */
  created: string;
  software: string;
  mainPageUrl?: string;
  /** ISO 8601. */
  mainPageDate?: string;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function dataPackageJson(info: DataPackageInfo, files: readonly PackagedFile[]): Buffer {
  const doc: Record<string, unknown> = {
    profile: 'data-package',
    wacz_version: WACZ_VERSION,
    title: info.title,
    created: info.created,
    modified: info.created,
    software: info.software,
  };
  if (info.mainPageUrl) doc['mainPageUrl'] = info.mainPageUrl;
  if (info.mainPageDate) doc['mainPageDate'] = info.mainPageDate;
  doc['resources'] = files.map((f) => ({ name: f.path.slice(f.path.lastIndexOf('/') + 1), path: f.path, hash: f.hash, bytes: f.bytes }));
  return Buffer.from(JSON.stringify(doc, null, 2) + '\n', 'utf8');
}

export function dataPackageDigestJson(dataPackage: Buffer): Buffer {
  const doc = { path: 'datapackage.json', hash: `sha256:${sha256Hex(dataPackage)}` };
  return Buffer.from(JSON.stringify(doc, null, 2) + '\n', 'utf8');
}
