/**
 * The program of the analysis' link-extraction threads (page-links.ts):
 * tokenizes the pages it is sent and resolves their links.
 */
import { serveBatches } from '../core/batch-server.js';
import { pageLinksHere, type PageLinksRequest } from './page-links.js';

serveBatches('arch-links', (input: PageLinksRequest) => pageLinksHere(input.html, input.url));
