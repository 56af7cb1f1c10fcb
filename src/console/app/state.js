// What every part of the console page shares: the API client, element lookup,
// page sizes, the page's state, and how a notice or a failure is shown.
import { Api, ApiError } from './api.js';

export const api = new Api();
export const $ = (id) => document.getElementById(id);
export const CHART_WINDOW_MS = 5 * 60 * 1000;
export const LOG_ROWS = 40;
export const HOSTS_PAGE = 25;
export const CAPTURES_PAGE = 30;
export const HITS_PAGE = 10;

export const s = {
  info: null,
  jobs: [],
  job: null,
  status: null,
  samples: [],
  events: null,
  tab: 'crawl',
  hosts: { sort: 'fetched', order: 'desc', offset: 0 },
  captures: { offset: 0, total: 0 },
  search: { q: '', offset: 0, total: 0 },
  selected: null,
  replaySource: null,
};

export function notice(text, error = false) {
  const box = $('notice');
  box.textContent = text;
  box.classList.toggle('error', error);
  box.hidden = !text;
}

export function live() {
  return s.status !== null && s.status.state !== 'finished';
}

export function report(err) {
  if (err instanceof ApiError && err.status === 401) notice('The console token is missing or wrong: open the console with the address archiver printed (it ends in #token=…).', true);
  else if (err instanceof TypeError) notice('The console is not reachable (has the crawl ended?).', true);
  else notice(err.message, true);
}
