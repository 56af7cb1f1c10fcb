/**
 * What bin.ts runs once V8's flags are set and the crash guard is in place:
 * an entry point of the bundle (scripts/bundle.mjs builds
 * dist/bundle/cli-entry.js from this file), or this file itself when there
 * is no fresh bundle. bin.ts takes every module from one side or the other,
 * never both: the bundle's entries share one copy of each module they have
 * in common (an error class, say), and a second copy loaded beside them
 * would make `instanceof` lie.
 */
export { main } from './main.js';
export { watchParentUnderNpm } from './parent-watch.js';
