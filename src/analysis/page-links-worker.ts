/**
 * The program of the analysis' page threads (page-links.ts): decodes the
 * page bodies it is sent, scans them and resolves their links.
 */
import { serveBatches } from '../core/batch-server.js';
import { pageLinksHere, type PageBody } from './page-links.js';

serveBatches('arch-links', (input: PageBody) => pageLinksHere(input));
