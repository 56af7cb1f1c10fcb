/**
 * Loads a crawl profile: parse JSON, validate against the schema (unknown keys
 * rejected, defaults filled), apply the checks a schema cannot express, and
 * deep-freeze the result. Every error is one line naming the file and the JSON
 * path of the offending field. A renamed key is still read from its old place
 * (DEPRECATED_KEYS), with a one-line warning.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { ProfileError } from '../core/errors.js';
import { applyFocus } from './check-focus.js';
import { checkOverrides } from './check-overrides.js';
import type { Profile } from './profile.js';
import { profileSchema } from './profile-schema.js';

/** Where warnings about the profile go: one line each. Default: stderr. */
export type ProfileWarn = (line: string) => void;

const warnOnStderr: ProfileWarn = (line) => void process.stderr.write(`${line}\n`);

/**
 * Keys that moved: the old one is still accepted, its value used when the
 * new one is absent (the new one wins when both are given), and removed from
 * the loaded profile.
 */
const DEPRECATED_KEYS: ReadonlyArray<{ from: readonly [string, string]; to: readonly [string, string] }> = [
  { from: ['frontier', 'seenMemoryKeys'], to: ['uniq', 'memoryKeys'] },
];

/** Changes made to the profile's JSON before it is validated (command-line overrides). */
export type ProfilePatch = (json: Record<string, unknown>) => void;

/** Reads and validates the profile at `file`. Relative output dirs resolve against `cwd`. */
export async function loadProfile(file: string, cwd = process.cwd(), warn: ProfileWarn = warnOnStderr, patch?: ProfilePatch): Promise<Profile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ProfileError('', `${file}: cannot read profile (${(err as NodeJS.ErrnoException).code ?? String(err)})`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ProfileError('', `${file}: not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (patch !== undefined && json !== null && typeof json === 'object' && !Array.isArray(json)) patch(json as Record<string, unknown>);
  return validateProfile(json, file, cwd, warn);
}

/** Validates an already parsed profile; `source` names it in errors and warnings. */
export function validateProfile(json: unknown, source = 'profile', cwd = process.cwd(), warn: ProfileWarn = warnOnStderr): Profile {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, strict: true });
  const validate = ajv.compile<Profile>(profileSchema);
  const copy: unknown = structuredClone(json);
  if (!validate(copy)) {
    const first = validate.errors?.[0];
    const at = first ? first.instancePath || '/' : '/';
    throw new ProfileError(at, `${source}: ${at}: ${describe(first)}`);
  }
  const profile = copy as Profile & { scope: { hosts?: string[] }; output: { dir?: string } };
  moveDeprecated(json, profile, source, warn);
  checkSemantics(profile, source);
  applyFocus(json, profile, cwd, (at, problem) => fail(source, at, problem));
  if (profile.scope.hosts === undefined) {
    profile.scope.hosts = defaultHosts(profile.seeds);
    (profile.scope as { hostsFromSeeds?: boolean }).hostsFromSeeds = true;
  }
  profile.output.dir = path.resolve(cwd, profile.output.dir ?? path.join('jobs', profile.name));
  return deepFreeze(profile);
}

/**
 * Applies DEPRECATED_KEYS to the validated `profile`; whether the new key was
 * given is read from the `raw` input, since validation filled its default.
 */
function moveDeprecated(raw: unknown, profile: Profile, source: string, warn: ProfileWarn): void {
  for (const { from, to } of DEPRECATED_KEYS) {
    const oldParent = field(profile, from[0]) as Record<string, unknown> | undefined;
    if (oldParent === undefined || !(from[1] in oldParent)) continue;
    const newGiven = field(field(raw, to[0]), to[1]) !== undefined;
    const both = newGiven ? ` (${to.join('.')} is also given and wins)` : '';
    warn(`${source}: ${from.join('.')} is deprecated; use ${to.join('.')}${both}`);
    if (!newGiven) (field(profile, to[0]) as Record<string, unknown>)[to[1]] = oldParent[from[1]];
    delete oldParent[from[1]];
  }
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

function describe(error: ErrorObject | undefined): string {
  if (!error) return 'invalid';
  switch (error.keyword) {
    case 'additionalProperties':
      return `unknown key "${String(error.params['additionalProperty'])}"`;
    case 'required':
      return `missing required key "${String(error.params['missingProperty'])}"`;
    case 'enum':
      return `must be one of ${(error.params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return error.message ?? 'invalid';
  }
}

function fail(source: string, at: string, problem: string): never {
  throw new ProfileError(at, `${source}: ${at}: ${problem}`);
}

function checkSemantics(p: Profile, source: string): void {
  p.seeds.forEach((seed, i) => {
    let url: URL;
    try {
      url = new URL(seed);
    } catch {
      fail(source, `/seeds/${i}`, `not an absolute URL: ${JSON.stringify(seed)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(source, `/seeds/${i}`, `only http and https seeds are crawled, got ${url.protocol}`);
  });
  if (!/\+?https?:\/\/\S+/.test(p.userAgent)) {
    fail(source, '/userAgent', 'must contain a contact URL, e.g. "archiver/0.1 (+https://example.org/crawler)"');
  }
  for (const key of ['include', 'exclude'] as const) {
    p.scope[key].forEach((re, i) => {
      try {
        new RegExp(re);
      } catch (err) {
        fail(source, `/scope/${key}/${i}`, `invalid regular expression: ${(err as Error).message}`);
      }
    });
  }
  (p.scope.hosts ?? []).forEach((h, i) => {
    if (!/^[^\s/:]+(:\d{1,5})?$/.test(h) && !/^\[[0-9a-fA-F:.]+\](:\d{1,5})?$/.test(h)) {
      fail(source, `/scope/hosts/${i}`, `must be a host name, optionally with a port ("example.org", "127.0.0.1:8080")`);
    }
  });
  if (p.politeness.minDelayMs > p.politeness.maxDelayMs) {
    fail(source, '/politeness/minDelayMs', `must not exceed maxDelayMs (${p.politeness.maxDelayMs})`);
  }
  if (p.robots.policy === 'custom' && p.robots.custom.trim() === '') {
    fail(source, '/robots/custom', 'the custom policy needs robots.txt text here');
  }
  if (p.robots.policy === 'mostFavoredSet' && p.robots.candidateUserAgents.length === 0) {
    fail(source, '/robots/candidateUserAgents', 'mostFavoredSet needs at least one candidate user agent');
  }
  checkOverrides(p, (at, problem) => fail(source, at, problem));
}

/** The seeds' hosts, with the port when it is not the scheme's default. */
export function defaultHosts(seeds: readonly string[]): string[] {
  const hosts = new Set<string>();
  for (const seed of seeds) hosts.add(new URL(seed).host.toLowerCase());
  return [...hosts];
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
