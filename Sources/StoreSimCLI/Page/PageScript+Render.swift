extension PageAssets {
  /// `/page/render.js`: the elements of the page, made with `createElement` and
  /// `textContent` only, so a name a user wrote is always text and never markup.
  static let renderScript = #"""
    import { transactionRow, statusRow, pendingRow, notificationRow } from '/page/rows.js';

    // An element: attributes (text: its text, on: its listeners) and children (nodes or text).
    export function el(tag, attributes = {}, ...children) {
      const node = document.createElement(tag);
      for (const [key, value] of Object.entries(attributes)) {
        if (value === undefined || value === null || value === false) continue;
        if (key === 'text') node.textContent = String(value);
        else if (key === 'on') for (const [name, f] of Object.entries(value)) node.addEventListener(name, f);
        else node.setAttribute(key, value === true ? '' : String(value));
      }
      for (const child of children) {
        if (child !== null && child !== undefined) node.append(child);
      }
      return node;
    }

    export function show(id) { document.getElementById(id).hidden = false; }

    export function date(ms) {
      return ms === undefined || ms === null ? '' : new Date(ms).toISOString().replace('.000Z', 'Z');
    }

    // A table: a caption, the column names, and the rows (each a <tr>).
    export function table(caption, columns, rows) {
      return el('table', {},
        el('caption', { text: caption }),
        el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', { scope: 'col', text: c })))),
        el('tbody', {}, ...rows));
    }

    // "1-50 of 1,000" with Previous and Next, for a window {total, from, items}.
    export function pager(name, window, size, move) {
      const last = window.from + window.items.length;
      const text = window.total === 0 ? 'none'
        : `${window.from + 1}\u2013${last} of ${window.total.toLocaleString('en')}`;
      return el('div', { class: 'pager' },
        el('span', { class: 'muted', text: `${name}: ${text}` }),
        el('button', {
          type: 'button', 'aria-label': `Previous ${name}`, text: 'Previous', disabled: window.from === 0,
          on: { click: () => move(window.from - size) },
        }),
        el('button', {
          type: 'button', 'aria-label': `Next ${name}`, text: 'Next', disabled: last >= window.total,
          on: { click: () => move(window.from + size) },
        }));
    }

    // Replaces a part of the page; the control that had the focus (named by its data-key) has
    // it again afterwards, so a redraw never throws a keyboard user back to the top.
    function replace(id, ...nodes) {
      const focused = document.activeElement && document.activeElement.dataset
        ? document.activeElement.dataset.key : undefined;
      document.getElementById(id).replaceChildren(...nodes);
      if (focused) {
        const again = document.querySelector(`[data-key="${CSS.escape(focused)}"]`);
        if (again && again !== document.activeElement) again.focus();
      }
    }

    export function renderSessions(ids) {
      document.getElementById('title').textContent = 'sessions';
      replace('session-list', ...ids.map((id) => el('li', {},
        el('a', { href: id === 'default' ? '/' : '/sessions/' + encodeURIComponent(id) + '/', text: id }))));
      show('sessions');
    }

    export function renderSession(data, view, handlers) {
      document.getElementById('title').textContent = 'session ' + data.session;
      document.title = 'storesim: ' + data.session;
      document.getElementById('clock').textContent =
        `Now ${date(data.now)} \u00b7 ${data.environment} \u00b7 ${data.bundleId}`;
      const products = document.getElementById('buy-product');
      const catalogue = JSON.stringify(data.products);
      if (products.dataset.catalogue !== catalogue) {
        products.dataset.catalogue = catalogue;
        products.replaceChildren(...data.products.map((p) =>
          el('option', { value: p.productId, text: `${p.productId} (${p.type})` })));
      }
      const customer = document.getElementById('buy-customer');
      if (document.activeElement !== customer) customer.value = data.customer;
      document.getElementById('ask-to-buy').checked = !!data.askToBuy;
      document.getElementById('billing').textContent = data.billingRetry ? 'Bill normally' : 'Fail billing';

      const customers = data.customers;
      replace('customers',
        pager('customers', customers, 50, (from) => handlers.page('customers', from)),
        table('Customers, in the order they joined', ['Customer', 'Transactions'],
          customers.items.map((c) => el('tr', {},
            el('td', {}, el('button', {
              type: 'button', class: c.customer === data.customer ? 'selected' : null,
              'aria-pressed': c.customer === data.customer ? 'true' : 'false', text: c.customer,
              'data-key': 'customer ' + c.customer,
              on: { click: () => handlers.select(c.customer) },
            })),
            el('td', { text: c.transactions.toLocaleString('en') })))));

      const current = new Map(data.statuses.map((s) => [s.transaction.transactionId, s]));
      const transactions = data.transactions;
      replace('transactions',
        pager('transactions', transactions, 50, (from) => handlers.page('transactions', from)),
        table(`Transactions of ${data.customer}, newest first`,
          ['Transaction', 'Product', 'Type', 'Purchased', 'Expires', 'Offer', 'Ownership', 'Revoked', 'Actions'],
          transactions.items.map((t) => transactionRow(t, current.get(t.transactionId), data.customer, handlers.act))));

      replace('statuses', data.statuses.length === 0
        ? el('p', { class: 'muted', text: `${data.customer} has no subscriptions.` })
        : table(`Subscriptions of ${data.customer}`,
          ['Group', 'State', 'Product', 'Expires', 'Auto-renew', 'Renewal info'],
          data.statuses.map((s) => statusRow(s))));

      replace('pending', data.pending.length === 0
        ? el('p', { class: 'muted', text: 'No Ask to Buy or refund requests are waiting.' })
        : table('Waiting for an answer, every customer', ['Request', 'Kind', 'Product', 'Customer', 'Asked', 'Actions'],
          data.pending.map((p) => pendingRow(p, handlers.act))));
    }

    export function renderNotifications(window, view, handlers) {
      replace('notifications',
        pager('notifications', window, 20, (from) => handlers.page('notifications', from)),
        window.total === 0 ? el('p', { class: 'muted', text: 'No notifications yet.' })
          : table('The outbox, newest first',
            ['#', 'Type', 'Customer', 'Signed', 'Attempts', 'Actions'],
            window.items.map((n) => notificationRow(n, handlers.act))));
    }
    """#
}
