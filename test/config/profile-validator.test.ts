/**
 * The build's ready-made profile validator (scripts/compile-profile-validator.mjs) is what a
 * built run uses: it carries the hash of the schema it was made from, and that is today's
 * schema's. Checked by content, not by file times: a bare `tsc` after the build rewrote every
 * module, and a check of times had every later run compile the schema with ajv at start.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { profileSchemaHash, profileValidator } from '../../src/config/profile-validator.js';

const built = import.meta.url.endsWith('.js');
const standalone = fileURLToPath(new URL('../../src/config/profile-validator.standalone.cjs', import.meta.url));

test('a built run takes the build\'s validator, made from this schema', { skip: built ? false : 'run from the TypeScript sources: no build wrote a validator' }, () => {
  assert.ok(existsSync(standalone), `the build wrote ${standalone}`);
  const v = profileValidator() as ReturnType<typeof profileValidator> & { schemaHash?: string };
  assert.equal(v.schemaHash, profileSchemaHash(), 'the validator in use is the build\'s, for this schema');
  assert.equal(v({ name: 'x', seeds: ['http://127.0.0.1/'], userAgent: 'a (+http://127.0.0.1/)' }), true);
  assert.equal(v({ name: 'x' }), false);
});

test('the schema\'s hash is of its content: the same twice, 40 hex digits', () => {
  assert.equal(profileSchemaHash(), profileSchemaHash());
  assert.match(profileSchemaHash(), /^[0-9a-f]{40}$/);
});
