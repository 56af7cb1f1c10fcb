/**
 * Loads a crawl profile: parse JSON, validate against the schema (unknown keys
 * rejected, defaults filled), apply the checks a schema cannot express, and
 * deep-freeze the result. Every error is one line naming the file and the JSON
 * path of the offending field. A renamed key is still read from its old place
 * (DEPRECATED_KEYS), with a one-line warning.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ErrorObject } from 'ajv';
import { NoInputError, ProfileError } from '../core/errors.js';
import { applyFocus } from './check-focus.js';
import { checkOverrides } from './check-overrides.js';
import type { Profile } from './profile.js';
import { nearestName } from './nearest-name.js';
import { EMAIL_PATTERN, FILE_NAME_PATTERN, STORE_PATTERN } from './profile-schema.js';
import { profileValidator } from './profile-validator.js';
import { regexProblem } from './regex-check.js';

/** The user agent the messages give as an example: a name, and a contact URL after `+`. */
const EXAMPLE_USER_AGENT = 'archiver/0.1 (+https://example.org/crawler)';

/** Problems listed in one error at most; past it, a count of the rest. */
export const MAX_LISTED_PROBLEMS = 20;

interface Problem {
  path: string;
  problem: string;
}

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
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory, not a profile file' : (code ?? String(err));
    throw new NoInputError(`${file}: cannot read the profile (${why})`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ProfileError('', `${file}: not valid JSON: ${jsonSyntaxProblem(text, err as Error)}`, { cause: err });
  }
  if (patch !== undefined && json !== null && typeof json === 'object' && !Array.isArray(json)) patch(json as Record<string, unknown>);
  return validateProfile(json, file, cwd, warn);
}

/**
 * Where JSON.parse stopped, as line and column (its message gives a
 * character position, or nothing at the end of the input), with V8's words
 * for what it found there.
 */
export function jsonSyntaxProblem(text: string, err: Error): string {
  const at = /at position (\d+)/.exec(err.message);
  const pos = at !== null ? Number(at[1]) : text.length;
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const column = pos - (before.lastIndexOf('\n') + 1) + 1;
  const what = err.message.replace(/\s*(in JSON )?at position \d+.*$/s, '').replace(/\s*\(line \d+ column \d+\)$/, '');
  return `line ${line}, column ${column}: ${what}`;
}

/** Validates an already parsed profile; `source` names it in errors and warnings. Every problem found is reported at once. */
export function validateProfile(json: unknown, source = 'profile', cwd = process.cwd(), warn: ProfileWarn = warnOnStderr): Profile {
  const validate = profileValidator();
  const copy: unknown = structuredClone(json);
  const problems: Problem[] = [];
  const add = (path: string, problem: string): void => {
    if (!problems.some((p) => p.path === path && p.problem === problem)) problems.push({ path, problem });
  };
  const schemaValid = validate(copy);
  for (const e of validate.errors ?? []) add(e.instancePath || '/', describe(e));
  const profile = copy as Profile & { scope: { hosts?: string[] }; output: { dir?: string } };
  if (schemaValid) moveDeprecated(json, profile, source, warn);
  checkSemantics(profile, add);
  if (schemaValid) applyFocus(json, profile, cwd, add);
  if (problems.length > 0) throw profileError(source, problems);
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
    case 'additionalProperties': {
      const key = String(error.params['additionalProperty']);
      const known = Object.keys((error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
      const meant = nearestName(key, known);
      return `unknown key "${key}"${meant !== null ? ` (did you mean "${meant}"?)` : ''}`;
    }
    case 'required': {
      const key = String(error.params['missingProperty']);
      return `missing required key "${key}"${error.instancePath === '' ? (REQUIRED_HINTS[key] ?? '') : ''}`;
    }
    case 'enum':
      return `must be one of ${(error.params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'pattern':
      return PATTERN_WORDS[String(error.params['pattern'])] ?? error.message ?? 'invalid';
    // Ajv's own words for these ("must NOT have fewer than 1 items") read as a riddle to a newcomer.
    case 'minItems':
      return `needs at least ${count(error.params['limit'], 'item')}`;
    case 'maxItems':
      return `takes at most ${count(error.params['limit'], 'item')}`;
    case 'minLength':
      return error.params['limit'] === 1 ? 'must not be empty' : `needs at least ${count(error.params['limit'], 'character')}`;
    case 'maxLength':
      return `takes at most ${count(error.params['limit'], 'character')}`;
    default:
      return error.message ?? 'invalid';
  }
}

/** What a newcomer most often leaves out of a first profile, with what to put there. */
const REQUIRED_HINTS: Readonly<Record<string, string>> = {
  userAgent: `: who the crawler is and where its operator can be reached, e.g. ${JSON.stringify(EXAMPLE_USER_AGENT)}`,
  seeds: ': the URLs the crawl starts from, e.g. ["https://example.org/"]',
  name: ': the job\'s name, which names its folder and files, e.g. "site"',
};

/** The schema's patterns (profile-schema.ts), said in words: a regular expression is no answer to a typo. */
const PATTERN_WORDS: Readonly<Record<string, string>> = {
  [FILE_NAME_PATTERN]: 'may hold only letters, digits, ".", "_" and "-" (it names files and folders)',
  [EMAIL_PATTERN]: 'must be an e-mail address',
  [STORE_PATTERN]: 'must be level, memory, redis://HOST:PORT[/DB] or redis+cluster://HOST:PORT[,HOST:PORT…]',
};

function count(n: unknown, noun: string): string {
  return `${String(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** One problem: one line naming the path. Several: a line saying how many, then one per problem (at most MAX_LISTED_PROBLEMS). */
function profileError(source: string, problems: readonly Problem[]): ProfileError {
  const first = problems[0]!;
  if (problems.length === 1) return new ProfileError(first.path, `${source}: ${first.path}: ${first.problem}`, { problems });
  const lines = problems.slice(0, MAX_LISTED_PROBLEMS).map((p) => `  ${p.path}: ${p.problem}`);
  if (problems.length > MAX_LISTED_PROBLEMS) lines.push(`  … and ${problems.length - MAX_LISTED_PROBLEMS} more`);
  return new ProfileError(first.path, `${source}: ${problems.length} problems\n${lines.join('\n')}`, { problems });
}

type AddProblem = (path: string, problem: string) => void;

/**
 * The checks a schema cannot express. They run whether or not the schema
 * accepted the profile, so every problem is told at once; each is guarded,
 * since a part the schema refused may not have the shape it expects.
 */
function checkSemantics(p: Profile, add: AddProblem): void {
  const checks: ((p: Profile) => void)[] = [
    (p) =>
      p.seeds.forEach((seed, i) => {
        if (typeof seed !== 'string') return;
        let url: URL;
        try {
          url = new URL(seed);
        } catch {
          add(`/seeds/${i}`, `not an absolute URL: ${JSON.stringify(seed)}`);
          return;
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:') add(`/seeds/${i}`, `only http and https seeds are crawled, got ${url.protocol}`);
      }),
    (p) => {
      if (typeof p.userAgent === 'string' && !/\+?https?:\/\/\S+/.test(p.userAgent)) {
        add('/userAgent', `must contain a contact URL, e.g. ${JSON.stringify(EXAMPLE_USER_AGENT)}`);
      }
    },
    (p) => {
      for (const key of ['include', 'exclude'] as const) {
        p.scope[key].forEach((re, i) => {
          const problem = typeof re === 'string' ? regexProblem(re) : null;
          if (problem !== null) add(`/scope/${key}/${i}`, problem);
        });
      }
    },
    (p) =>
      (p.scope.hosts ?? []).forEach((h, i) => {
        if (typeof h === 'string' && !/^[^\s/:]+(:\d{1,5})?$/.test(h) && !/^\[[0-9a-fA-F:.]+\](:\d{1,5})?$/.test(h)) {
          add(`/scope/hosts/${i}`, `must be a host name, optionally with a port ("example.org", "127.0.0.1:8080")`);
        }
      }),
    (p) => {
      if (p.politeness.minDelayMs > p.politeness.maxDelayMs) add('/politeness/minDelayMs', `must not exceed maxDelayMs (${p.politeness.maxDelayMs})`);
    },
    (p) => {
      if (p.robots.policy === 'custom' && p.robots.custom.trim() === '') add('/robots/custom', 'the custom policy needs robots.txt text here');
      if (p.robots.policy === 'mostFavoredSet' && p.robots.candidateUserAgents.length === 0) {
        add('/robots/candidateUserAgents', 'mostFavoredSet needs at least one candidate user agent');
      }
    },
    (p) => checkOverrides(p, add),
    (p) => {
      // A page's render waits for its subrequests, which its own queue serves: depth-first holds that queue until the page is done.
      const rendering = p.browser?.enabled === true || p.overrides.some((o) => o.browser?.enabled === true);
      if (rendering && p.frontier.order === 'depth-first') add('/browser/enabled', 'browser capture needs frontier.order breadth-first or best-first, not depth-first');
    },
  ];
  for (const check of checks) {
    try {
      check(p);
    } catch (err) {
      // A shape the schema has already refused (told above); nothing more to say about it here.
      if (!(err instanceof TypeError)) throw err;
    }
  }
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
