/**
 * How a POST a rendered page made is found again at replay: wabac
 * (ReplayWeb.page) turns a POST into a GET key, its body as query
 * parameters after `__wb_method=POST` (JSON flattened, forms as they are,
 * anything else base64 as `__wb_post_data`). warcio.js's postToGetUrl does
 * exactly that; the capture journal keeps the result, and the CDXJ key is
 * built from it.
 */
import { postToGetUrl } from '../writer/warcio.js';

/** The journal fields of a POST capture (JournaledCapture.method/requestBody). */
export function postIndexFields(url: string, post: { body: string; type: string }): { method: 'POST'; requestBody: string } {
  const request = { url, method: 'POST', headers: new Headers([['content-type', post.type]]), postData: Buffer.from(post.body, 'base64') } as Parameters<typeof postToGetUrl>[0];
  postToGetUrl(request);
  return { method: 'POST', requestBody: (request as { requestBody?: string }).requestBody ?? '' };
}
