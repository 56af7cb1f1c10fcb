/**
 * `focus` in the profile: defaults, what it implies (frontier.order
 * best-first, frontier.precedence priority), and each contradiction or
 * mistake one line naming the JSON path, with the stable code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import type { ProfileError } from '../../src/core/errors.js';
import { BASE_PROFILE, pathErrorOf } from '../helpers/profile-errors.js';

const base = BASE_PROFILE;

function errorOf(extra: Record<string, unknown>): ProfileError {
  return pathErrorOf({ ...base, ...extra });
}

test('without focus nothing changes', () => {
  const p = validateProfile(base, 'p.json');
  assert.equal(p.focus, undefined);
  assert.equal(p.frontier.order, 'breadth-first');
  assert.equal(p.frontier.precedence, 'fifo');
  assert.equal(validateProfile({ ...base, frontier: { order: 'best-first' } }, 'p.json').frontier.order, 'best-first', 'best-first alone orders by priority (sitemaps lastmod)');
});

test('focus fills its defaults and implies best-first and priority; training paths resolve against the working directory', () => {
  const p = validateProfile({ ...base, focus: { keywords: ['茶'], training: ['https://example.org/tea', 'jobs/earlier', '/abs/x.warc.gz'] } }, 'p.json', '/work/dir');
  assert.deepEqual(p.focus, {
    keywords: ['茶'],
    training: ['https://example.org/tea', path.resolve('/work/dir', 'jobs/earlier'), '/abs/x.warc.gz'],
    weighting: 'tfidf',
    threshold: 0.2,
    restrictHops: 2,
    feedback: false,
  });
  assert.equal(p.frontier.order, 'best-first');
  assert.equal(p.frontier.precedence, 'priority');
  assert.ok(Object.isFrozen(p.focus!.training));
  const explicit = validateProfile({ ...base, focus: { keywords: ['x'], weighting: 'seed', threshold: 0.5, restrictHops: 0 }, frontier: { order: 'best-first', precedence: 'priority' } }, 'p.json');
  assert.equal(explicit.focus!.weighting, 'seed');
  assert.equal(explicit.focus!.restrictHops, 0);
});

test('contradictions and mistakes name their path', () => {
  assert.equal(errorOf({ focus: { keywords: ['x'] }, frontier: { order: 'breadth-first' } }).path, '/frontier/order');
  assert.equal(errorOf({ focus: { keywords: ['x'] }, frontier: { order: 'depth-first' } }).path, '/frontier/order');
  assert.equal(errorOf({ focus: { keywords: ['x'] }, frontier: { precedence: 'fifo' } }).path, '/frontier/precedence');
  assert.equal(errorOf({ focus: {} }).path, '/focus');
  assert.equal(errorOf({ focus: { keywords: [], training: [] } }).path, '/focus');
  assert.equal(errorOf({ focus: { keywords: ['x'], threshold: 1.5 } }).path, '/focus/threshold');
  assert.equal(errorOf({ focus: { keywords: ['x'], weighting: 'bm25' } }).path, '/focus/weighting');
  assert.equal(errorOf({ focus: { keywords: ['x'], restrictHops: -1 } }).path, '/focus/restrictHops');
  assert.equal(errorOf({ focus: { keywords: ['x'], restrict: 2 } }).path, '/focus');
  assert.equal(errorOf({ focus: { training: ['ftp://example.org/x'] } }).path, '/focus/training/0');
});
