/** The raw profile JSON test crawls start from: no politeness delays, short timeouts, few retries. */
export const TEST_USER_AGENT = 'archiver-test/0.1 (+https://example.org/test)';

export function testProfileJson(name: string, seeds: readonly string[], dir: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    seeds,
    userAgent: TEST_USER_AGENT,
    politeness: { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0 },
    limits: { fetchTimeoutMs: 5000, maxRetries: 1, retryDelayMs: 10 },
    workers: 4,
    output: { dir },
    ...overrides,
  };
}
