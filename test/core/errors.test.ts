/**
 * Which errors stop a crawl. The crawl loop used to match a regex over error
 * codes (/STORE|CLOSED|JOURNAL|…/), so a new code containing one of those
 * words became fatal by accident, and a renamed one silently stopped being
 * fatal. Now a failure is fatal by class (FatalCrawlError), by an explicit
 * table of codes, or by the errno of a failing disk; these tests hold the
 * errors the modules really throw against that.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ArchiverError, FATAL_CRAWL_CODES, FatalCrawlError, FetchError, isFatalCrawlError, NoInputError } from '../../src/core/errors.js';
import { fetchError } from '../../src/fetch/fetch-errors.js';
import { FrontierError, FrontierErrorCode } from '../../src/frontier/errors.js';
import { CaptureJournalError } from '../../src/job/capture-journal.js';
import { UniqFilterClosedError, UniqStoreError } from '../../src/uniq/uniq-filter.js';

describe('isFatalCrawlError', () => {
  it('recognises every code of the table', () => {
    assert.ok(FATAL_CRAWL_CODES.size > 0);
    for (const code of FATAL_CRAWL_CODES) assert.equal(isFatalCrawlError(new ArchiverError(code, 'x')), true, code);
  });

  it('recognises the storage failures the modules throw', () => {
    const thrown = [
      new FrontierError(FrontierErrorCode.storeFailed, 'x'),
      new FrontierError(FrontierErrorCode.closed, 'x'),
      new UniqFilterClosedError(),
      new UniqStoreError('x'),
      new CaptureJournalError('ARCHIVER_JOURNAL_WRITE', 'x'),
      new CaptureJournalError('ARCHIVER_JOURNAL_READ', 'x'),
      new FatalCrawlError('ARCHIVER_LOG_WRITE', 'x'),
      new FatalCrawlError('ARCHIVER_ANYTHING', 'x'),
    ];
    for (const err of thrown) assert.equal(isFatalCrawlError(err), true, err.code);
  });

  it('recognises a failing disk or LevelDB anywhere in the cause chain', () => {
    const enospc = Object.assign(new Error('write failed'), { code: 'ENOSPC' });
    assert.equal(isFatalCrawlError(new ArchiverError('ARCHIVER_OTHER', 'x', { cause: enospc })), true);
    const level = Object.assign(new Error('not open'), { code: 'LEVEL_DATABASE_NOT_OPEN' });
    assert.equal(isFatalCrawlError(new Error('wrapped', { cause: level })), true);
    assert.equal(isFatalCrawlError('a string thrown'), true);
  });

  it('leaves one URI\'s failures to that URI', () => {
    const perUri = [
      fetchError('timeout', 'x'),
      fetchError('other', 'x'),
      new FetchError('ARCHIVER_FETCH_DNS', -1, 'x'),
      new ArchiverError('ARCHIVER_BODY_UNDECODABLE', 'x'),
      new FrontierError(FrontierErrorCode.badUri, 'x'),
      new NoInputError('x'),
      new TypeError('x'),
      Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
    ];
    for (const err of perUri) assert.equal(isFatalCrawlError(err), false, err.message);
  });
});
