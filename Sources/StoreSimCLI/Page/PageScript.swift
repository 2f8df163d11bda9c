extension PageAssets {
  /// `/page/app.js`: which session the address names, the reads (the first screen first, the
  /// notifications after it), the poll of the session's stamp that keeps the page live, and
  /// the store's own controls (Buy, Advance, Ask to Buy, Fail billing).
  static let appScript = #"""
    import { show, renderSessions, renderSession, renderNotifications } from '/page/render.js';
    import { act, getJSON, setToken } from '/page/actions.js';

    // The session this address shows: '/' is serve's own, '/sessions/ID/' another, '/sessions/' none.
    function sessionOfPath() {
      if (location.pathname === '/') return 'default';
      const parts = location.pathname.split('/');
      return parts[1] === 'sessions' && parts[2] ? decodeURIComponent(parts[2]) : null;
    }

    export const view = {
      session: sessionOfPath(),
      customer: null,
      customersFrom: 0,
      transactionsFrom: 0,
      notificationsFrom: 0,
      stamp: null,
      data: null,
      first: true,
    };

    const base = () => '/sessions/' + encodeURIComponent(view.session) + '/';

    function problem(error) {
      const box = document.getElementById('problem');
      if (!error) { box.hidden = true; return; }
      box.textContent = error.message;
      box.hidden = false;
      if (error.status === 401) document.getElementById('token-form').hidden = false;
    }

    async function listSessions(answer) {
      answer = answer || await getJSON('/storesim/v1/sessions');
      renderSessions(answer.sessions.map((s) => s.session));
    }

    // The first screen: the clock, customers, one customer's transactions, statuses and requests.
    export async function load() {
      const query = new URLSearchParams({
        customers: view.customersFrom, transactions: view.transactionsFrom,
      });
      if (view.customer !== null) query.set('customer', view.customer);
      const data = await getJSON(base() + 'page.json?' + query);
      view.data = data;
      view.stamp = data.stamp;
      if (view.customer === null) view.customer = data.customer;
      renderSession(data, view, { select, page, act: acted });
      show('session');
      if (view.first) {
        view.first = false;
        performance.mark('storesim-first-screen');
      }
      await loadNotifications();
    }

    async function loadNotifications() {
      const answer = await getJSON(base() + 'notifications.json?from=' + view.notificationsFrom);
      renderNotifications(answer.notifications, view, { page, act: acted });
    }

    function select(customer) {
      view.customer = customer;
      view.transactionsFrom = 0;
      reload();
    }

    function page(list, from) {
      view[list + 'From'] = Math.max(0, from);
      reload();
    }

    async function reload() {
      try { await load(); problem(null); } catch (error) { problem(error); }
    }

    async function acted(label, command, body) {
      await act(view, label, command, body);
      await reload();
    }

    // Live: the session file's stamp, polled each second; a change made anywhere (the command
    // line, the control API, another tab) reloads what is shown.
    async function poll() {
      try {
        const answer = await getJSON(base() + 'stamp.json');
        const live = document.getElementById('live');
        live.textContent = 'Live: checked ' + new Date().toLocaleTimeString();
        if (answer.stamp !== view.stamp) await load();
      } catch (error) {
        problem(error);
      }
      setTimeout(poll, 1000);
    }

    function wireControls() {
      document.getElementById('buy-form').addEventListener('submit', (event) => {
        event.preventDefault();
        const product = document.getElementById('buy-product').value;
        const customer = document.getElementById('buy-customer').value.trim();
        const quantity = document.getElementById('buy-quantity').value.trim();
        const offer = document.getElementById('buy-offer').value.trim();
        const body = { arguments: [product] };
        if (quantity && quantity !== '1') body.quantity = quantity;
        if (offer) body.offer = offer;
        if (customer) body.customer = customer;
        acted('Buy ' + product, 'buy', body);
      });
      document.getElementById('advance-form').addEventListener('submit', (event) => {
        event.preventDefault();
        const duration = document.getElementById('advance-duration').value.trim();
        acted('Advance ' + duration, 'advance', { arguments: [duration] });
      });
      document.getElementById('advance-next').addEventListener('click', () => {
        acted('Advance to the next event', 'advance', { next: true });
      });
      document.getElementById('ask-to-buy').addEventListener('change', (event) => {
        const on = event.target.checked ? 'on' : 'off';
        acted('Ask to Buy ' + on, 'settings', { arguments: ['ask-to-buy', on] });
      });
      document.getElementById('billing').addEventListener('click', () => {
        const on = view.data && view.data.billingRetry ? 'off' : 'on';
        acted(on === 'on' ? 'Fail billing' : 'Bill normally', 'settings', { arguments: ['billing-retry', on] });
      });
      document.getElementById('draw-timeline').addEventListener('click', () => {
        const image = document.getElementById('timeline');
        image.src = base() + 'timeline.svg?at=' + encodeURIComponent(view.stamp || '');
        document.getElementById('timeline-box').hidden = false;
      });
      document.getElementById('token-form').addEventListener('submit', (event) => {
        event.preventDefault();
        setToken(document.getElementById('token').value);
        document.getElementById('token-form').hidden = true;
        start();
      });
    }

    async function start() {
      try {
        if (view.session === 'default') {
          // serve --no-session has no session of its own: '/' is then the list.
          const answer = await getJSON('/storesim/v1/sessions');
          if (!answer.sessions.some((s) => s.session === 'default')) {
            view.session = null;
            await listSessions(answer);
            return;
          }
        }
        if (view.session === null) {
          await listSessions();
          return;
        }
        await load();
        show('session');
        problem(null);
        if (!view.polling) { view.polling = true; poll(); }
      } catch (error) {
        if (view.session === 'default' && error.status === 404) {
          view.session = null;
          await listSessions().catch(problem);
        } else {
          problem(error);
        }
      }
    }

    wireControls();
    start();
    """#
}
