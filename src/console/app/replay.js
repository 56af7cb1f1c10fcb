// Hosts ReplayWeb.page's <replay-web-page> element for one capture: the
// archive, URL and timestamp come in the query string; its service worker is
// /replay/sw.js (scope /replay/), so nothing is fetched from anywhere else.
const params = new URLSearchParams(location.search);
document.documentElement.style.height = '100%';
document.body.style.height = '100%';
document.body.style.margin = '0';
const view = document.createElement('replay-web-page');
view.setAttribute('source', params.get('source') ?? '');
view.setAttribute('url', params.get('url') ?? '');
if (params.get('ts')) view.setAttribute('ts', params.get('ts'));
view.setAttribute('replaybase', '/replay/');
view.setAttribute('embed', 'replayonly');
view.style.height = '100%';
view.style.display = 'block';
document.body.append(view);
