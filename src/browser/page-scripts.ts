/**
 * What runs inside a rendered page, as source strings (the crawler
 * compiles without the DOM typings): its scroll height, one scroll step,
 * and its links as the live DOM has them after behaviors — a[href] (SVG
 * ones too, by their resolved href), area[href] — in the frame evaluated.
 */

export const SCROLL_STATE = `(() => {
  const el = document.scrollingElement || document.documentElement;
  return { height: el ? el.scrollHeight : 0, bottom: el ? window.scrollY + window.innerHeight >= el.scrollHeight - 2 : true };
})()`;

export const SCROLL_STEP = `(() => { window.scrollBy(0, Math.max(200, Math.floor(window.innerHeight * 0.9))); })()`;

export const SCROLL_TOP = `(() => { window.scrollTo(0, 0); })()`;

export const DOM_LINKS = `(() => {
  const out = [];
  for (const el of document.querySelectorAll('a[href], area[href]')) {
    let href = el.href;
    if (href && typeof href === 'object' && 'baseVal' in href) {
      try { href = new URL(href.baseVal, document.baseURI).href; } catch { href = ''; }
    }
    if (typeof href !== 'string' || href === '') {
      try { href = new URL(el.getAttribute('href') || '', document.baseURI).href; } catch { href = ''; }
    }
    if (href !== '') out.push(href);
  }
  return out;
})()`;
