/**
 * The profile's JSON-schema validator. Compiling the schema with ajv at
 * every start cost a crawl ~0.2 s of CPU and ~10 MB (ajv's compiler and
 * code generator); the build compiles it once to standalone code
 * (scripts/compile-profile-validator.mjs, next to this module in dist/ as
 * profile-validator.standalone.cjs), which loads in milliseconds. Run from
 * the TypeScript sources, where no build wrote that file, the schema is
 * compiled here as before, with the same options and the same result.
 */
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ErrorObject } from 'ajv';
import type { Profile } from './profile.js';
import { profileSchema } from './profile-schema.js';

export interface ProfileValidate {
  (data: unknown): data is Profile;
  errors?: ErrorObject[] | null;
}

/**
 * The options the schema is compiled with, here and by the build. verbose:
 * an error carries its schema, whose known keys an unknown one is checked
 * against (did you mean …).
 */
export const PROFILE_AJV_OPTIONS = Object.freeze({ allErrors: true, useDefaults: true, strict: true, verbose: true });

const STANDALONE = new URL('./profile-validator.standalone.cjs', import.meta.url);
const require = createRequire(import.meta.url);
let compiled: ProfileValidate | null = null;

/** The build's validator exists and was made after the schema was last compiled (a bare `tsc` does not remake it). */
function standaloneIsCurrent(): boolean {
  const made = statSync(fileURLToPath(STANDALONE), { throwIfNoEntry: false });
  const schema = statSync(fileURLToPath(new URL('./profile-schema.js', import.meta.url)), { throwIfNoEntry: false });
  return made !== undefined && schema !== undefined && made.mtimeMs >= schema.mtimeMs;
}

export function profileValidator(): ProfileValidate {
  if (compiled !== null) return compiled;
  if (import.meta.url.endsWith('.js') && standaloneIsCurrent()) {
    compiled = require(fileURLToPath(STANDALONE)) as ProfileValidate;
  } else {
    const { Ajv } = require('ajv') as typeof import('ajv');
    compiled = new Ajv({ ...PROFILE_AJV_OPTIONS }).compile<Profile>(profileSchema) as ProfileValidate;
  }
  return compiled;
}
