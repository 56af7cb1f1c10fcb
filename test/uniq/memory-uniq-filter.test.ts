/** The in-memory seen filter runs the shared conformance suite. */
import { MemoryUriUniqFilter } from '../../src/uniq/memory-uniq-filter.js';
import { uniqFilterConformance } from './conformance.js';

uniqFilterConformance('memory', async () => new MemoryUriUniqFilter());
