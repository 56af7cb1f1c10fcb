/**
 * The slack a shared crawl adds to politeness delays grows with the
 * machine's load: on an idle machine 10 ms, with processes queued for the
 * CPU more (a server put off the CPU after its write logs the end late),
 * never more than 50 ms.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BASE_SLACK_MS, MAX_SLACK_MS, machineLoadSlack, slackForLoadMs } from '../../src/politeness/load-slack.js';

describe('load slack', () => {
  it('is the base on a machine with a CPU for every runnable process, grows beyond, and is capped', () => {
    assert.equal(slackForLoadMs(0), BASE_SLACK_MS);
    assert.equal(slackForLoadMs(1), BASE_SLACK_MS);
    assert.equal(slackForLoadMs(2), BASE_SLACK_MS + 15);
    assert.ok(slackForLoadMs(2.5) > slackForLoadMs(2));
    assert.equal(slackForLoadMs(40), MAX_SLACK_MS);
  });

  it('reads the load at most once a second', () => {
    let t = 0;
    const slack = machineLoadSlack(() => t);
    const first = slack();
    assert.ok(first >= BASE_SLACK_MS && first <= MAX_SLACK_MS);
    t = 500;
    assert.equal(slack(), first);
  });
});
