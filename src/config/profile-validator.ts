/**
 * The profile's JSON-schema validator. Compiling the schema with ajv at
 * every start cost a crawl ~0.2 s of CPU and ~10 MB (ajv's compiler and
 * code generator); the build compiles it once to standalone code
 * (scripts/compile-profile-validator.mjs, next to this module in dist/ as
 * profile-validator.standalone.cjs), which loads in milliseconds. Run from
 * the TypeScript sources, where no build wrote that file, or after the
 * schema changed since it was written, the schema is compiled here as
 * before, with the same options and the same result.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
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

/**
 * What the build's validator was made from: the schema's JSON and the options, hashed. The
 * build writes it into the validator; a validator of another schema is not used. (Compared by
 * content: a bare `tsc` after the build rewrites every module and their times, and a check of
 * times sent every later run through ajv's compiler, ~0.1 s more to each start.)
 */
export function profileSchemaHash(): string {
  return createHash('sha1').update(JSON.stringify([profileSchema, PROFILE_AJV_OPTIONS])).digest('hex');
}

export function profileValidator(): ProfileValidate {
  if (compiled !== null) return compiled;
  const made = import.meta.url.endsWith('.js') && existsSync(fileURLToPath(STANDALONE)) ? (require(fileURLToPath(STANDALONE)) as ProfileValidate & { schemaHash?: string }) : null;
  if (made !== null && made.schemaHash === profileSchemaHash()) {
    compiled = made;
  } else {
    const { Ajv } = require('ajv') as typeof import('ajv');
    compiled = new Ajv({ ...PROFILE_AJV_OPTIONS }).compile<Profile>(profileSchema) as ProfileValidate;
  }
  return compiled;
}
