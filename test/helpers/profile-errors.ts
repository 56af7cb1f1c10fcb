/** Profile validation in tests: the smallest valid profile, and the one-line ProfileError a bad one gives. */
import assert from 'node:assert/strict';
import { validateProfile } from '../../src/config/load-profile.js';
import { ProfileError } from '../../src/core/errors.js';

export const BASE_PROFILE = { name: 'site', seeds: ['https://example.org/'], userAgent: 'archiver/0.1 (+https://example.org/bot)' };

/** The ProfileError `json` is refused with (as if read from p.json): stable code, one line. Fails when it is accepted. */
export function profileErrorOf(json: unknown): ProfileError {
  try {
    validateProfile(json, 'p.json');
  } catch (err) {
    assert.ok(err instanceof ProfileError, `expected ProfileError, got ${String(err)}`);
    assert.equal(err.code, 'ARCHIVER_INVALID_PROFILE');
    assert.ok(!err.message.includes('\n'), 'one line');
    return err;
  }
  assert.fail('profile was accepted');
}

/** profileErrorOf, and the message starts with the file and the offending JSON path. */
export function pathErrorOf(json: unknown): ProfileError {
  const err = profileErrorOf(json);
  assert.ok(err.message.startsWith(`p.json: ${err.path}: `), err.message);
  return err;
}
