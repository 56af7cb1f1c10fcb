/**
 * What the console's route modules share, and the job starter `serve`
 * gives them: in a file of its own so the routes and the server that
 * mounts them do not import each other.
 */
import type { AccessGuard } from './access-guard.js';
import type { ArchiveResources } from './archive-resources.js';
import type { ArchiveSearch } from './archive-search.js';
import type { JobCatalog } from './job-catalog.js';
import type { LiveJob } from './live-job.js';

export interface ConsoleDeps {
  catalog: JobCatalog;
  search: ArchiveSearch | null;
  starter: JobStarter | null;
  archive: ArchiveResources;
  guard: AccessGuard;
}

/** Starts crawls from the profiles a `serve` console offers. */
export interface JobStarter {
  /** File names of the profiles one can start from. */
  profiles(): Promise<string[]>;
  /** Start the crawl `profile` (a name from profiles()) describes; it joins the catalog. */
  start(profile: string): Promise<LiveJob>;
}
