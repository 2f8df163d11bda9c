extension PageAssets {
  /// `/page/actions.js`: reads, and actions through the control API
  /// (`POST /storesim/v1/sessions/{session}/{command}`), each shown with its answer, the
  /// command line that does the same and the HTTP call (curl), so a click becomes a scenario
  /// line or a test.
  static let actionsScript = #"""
    let token = sessionStorage.getItem('storesim-token') || '';

    export function setToken(value) {
      token = value.trim();
      sessionStorage.setItem('storesim-token', token);
    }

    function headers(json) {
      const h = {};
      if (json) h['Content-Type'] = 'application/json';
      if (token) h.Authorization = 'Bearer ' + token;
      return h;
    }

    function failure(response, body) {
      const message = body && body.error ? body.error.message : `${response.status} ${response.statusText}`;
      const error = new Error(message);
      error.status = response.status;
      return error;
    }

    export async function getJSON(path) {
      const response = await fetch(path, { headers: headers(false), cache: 'no-store' });
      const body = await response.json().catch(() => null);
      if (!response.ok) throw failure(response, body);
      return body;
    }

    // A word as a POSIX shell reads it back.
    export function quote(word) {
      const text = String(word);
      return /^[A-Za-z0-9_.,:\/=@%+-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
    }

    // The command line that does what `body` asks of `command`.
    export function commandLine(file, command, body) {
      const words = ['storesim', '--session', file];
      if (body.customer) words.push('--customer', body.customer);
      words.push(command, ...(body.arguments || []));
      for (const [key, value] of Object.entries(body)) {
        if (key === 'arguments' || key === 'customer') continue;
        if (value === true) words.push('--' + key);
        else words.push('--' + key, value);
      }
      return words.map(quote).join(' ');
    }

    export function curlLine(url, body) {
      return `curl -X POST ${quote(url)} -d ${quote(JSON.stringify(body))}`;
    }

    // What an answer says in a few words: its result, or its events.
    function summary(answer) {
      if (Array.isArray(answer)) {  // deliveries: one attempt each
        return answer.map((a) => `#${a.index} ${a.httpStatus ?? a.error ?? ''} ${a.sendAttemptResult ?? ''}`.trim())
          .join('; ') || 'nothing to send';
      }
      if (!answer || typeof answer !== 'object') return 'done';
      const parts = [];
      if (answer.result) parts.push(answer.result);
      const events = Array.isArray(answer.events) ? answer.events : [];
      for (const e of events) parts.push([e.event, e.productId, e.transactionId].filter(Boolean).join(' '));
      if (Array.isArray(answer.attempts)) parts.push(`${answer.attempts.length} attempt(s)`);
      return parts.length ? parts.join('; ') : 'done';
    }

    export async function act(view, label, command, body) {
      const path = `/storesim/v1/sessions/${encodeURIComponent(view.session)}/${command}`;
      const url = location.origin + path;
      document.getElementById('result-cli').textContent = commandLine(view.data.sessionFile, command, body);
      document.getElementById('result-http').textContent = curlLine(url, body);
      const text = document.getElementById('result-text');
      text.textContent = `${label}: working\u2026`;
      text.className = 'muted';
      document.getElementById('result').hidden = false;
      let answer = null;
      try {
        const response = await fetch(path, { method: 'POST', headers: headers(true), body: JSON.stringify(body) });
        answer = await response.json().catch(() => null);
        const ok = response.ok;
        text.textContent = ok ? `${label}: ${summary(answer)}`
          : `${label}: refused (${response.status}): ${answer && answer.error ? answer.error.message : ''}`;
        text.className = ok ? 'ok' : 'bad';
      } catch (error) {
        text.textContent = `${label}: ${error.message}`;
        text.className = 'bad';
      }
      document.getElementById('result-json').textContent = JSON.stringify(answer, null, 2);
    }
    """#
}
