// Requests to `tsume serve`, all to the page's own origin (relative URLs).

// The error message of a failed response: the body's {"error"} when it has one.
async function failure(res) {
  let msg = `${res.status} ${res.statusText}`;
  try {
    const text = await res.text();
    try {
      const j = JSON.parse(text);
      if (j && j.error) msg = j.error;
    } catch {
      if (text.trim()) msg = text.trim();
    }
  } catch {
    /* the body could not be read: the status line says enough */
  }
  const e = new Error(msg);
  e.status = res.status;
  return e;
}

function post(url, body, signal, raw) {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': raw ? 'application/octet-stream' : 'application/json' },
    body: raw ? body : JSON.stringify(body),
    signal,
  });
}

export async function postJson(url, body, signal) {
  const res = await post(url, body, signal, false);
  if (!res.ok) throw await failure(res);
  return res.json();
}

export async function postText(url, body, signal) {
  const res = await post(url, body, signal, false);
  if (!res.ok) throw await failure(res);
  return res.text();
}

// POST /api/parse with the raw text or bytes of a diagram in any format.
export async function parseDiagram(data, signal) {
  const res = await post('/api/parse', data, signal, true);
  if (!res.ok) throw await failure(res);
  return res.json();
}

export async function getJson(url, signal) {
  const res = await fetch(url, { signal });
  if (!res.ok) throw await failure(res);
  return res.json();
}

// Reads an NDJSON response line by line, calling onLine with each parsed object.
async function readLines(res, onLine) {
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) onLine(JSON.parse(line));
    }
  }
  buf += dec.decode();
  if (buf.trim()) onLine(JSON.parse(buf.trim()));
}

// A streamed job (check, compose): POSTs body, calls onLine for each object,
// and resolves with the last object of the stream.
export async function stream(url, body, signal, onLine) {
  const res = await post(url, body, signal, false);
  if (!res.ok) throw await failure(res);
  let last = null;
  await readLines(res, (o) => {
    last = o;
    onLine(o);
  });
  return last;
}

// GET of an NDJSON list (the database query).
export async function getLines(url, signal, onLine) {
  const res = await fetch(url, { signal });
  if (!res.ok) throw await failure(res);
  await readLines(res, onLine);
}

export async function stopJob(id) {
  const res = await fetch(`/api/jobs/${encodeURIComponent(id)}/stop`, { method: 'POST' });
  if (!res.ok) throw await failure(res);
}

export const isAbort = (e) => e && (e.name === 'AbortError' || e.name === 'TimeoutError');
