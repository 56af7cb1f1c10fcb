// The console's API from the page: the token from the URL fragment is traded
// once for an HttpOnly cookie (POST /api/session), then every call carries it
// (and the Bearer header while the page still knows the token).

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export class Api {
  #token = null;

  /** Reads the token from `#token=…`, drops it from the address bar, opens the session. */
  async open() {
    const hash = new URLSearchParams(location.hash.slice(1));
    const token = hash.get('token');
    if (token) {
      this.#token = token;
      sessionStorage.setItem('archiver-token', token);
      hash.delete('token');
      const rest = hash.toString();
      history.replaceState(null, '', location.pathname + location.search + (rest ? `#${rest}` : ''));
    } else {
      this.#token = sessionStorage.getItem('archiver-token');
    }
    return this.post('/api/session');
  }

  get(path, params = {}) {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') query.set(k, String(v));
    const qs = query.toString();
    return this.#call('GET', qs ? `${path}?${qs}` : path);
  }

  post(path, body = {}) {
    return this.#call('POST', path, body);
  }

  async #call(method, path, body) {
    const headers = {};
    if (this.#token) headers.Authorization = `Bearer ${this.#token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
    const text = await res.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (!res.ok) {
      const err = json && json.error ? json.error : { code: 'HTTP', message: `${res.status} ${res.statusText}` };
      throw new ApiError(res.status, err.code, err.message);
    }
    return json;
  }
}
