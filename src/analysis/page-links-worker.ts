/**
 * The program of the analysis' link-extraction threads (page-links.ts):
 * tokenizes the pages it is sent and resolves their links.
 */
import { serveBatches } from '../core/batch-server.js';
import { nameThisThread } from '../core/thread-name.js';
import { pageLinksHere, type PageLinksRequest } from './page-links.js';

nameThisThread('arch-links');
serveBatches((input: PageLinksRequest) => pageLinksHere(input.html, input.url));
