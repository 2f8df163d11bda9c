extension PageAssets {
  /// `/page/rows.js`: a row per transaction, status, request and notification, each with its
  /// actions in the row (Refund beside a refundable transaction; Cancel or Resume, Expire,
  /// Renew and Resolve beside a subscription's current one; Approve and Decline beside a
  /// request; Resend beside a notification whose delivery failed).
  static let rowsScript = #"""
    import { el, date } from '/page/render.js';

    const offerTypes = { 1: 'introductory', 2: 'promotional', 3: 'offer code', 4: 'win-back' };
    const shortTypes = {
      'Auto-Renewable Subscription': 'auto-renewable', 'Non-Renewing Subscription': 'non-renewing',
      Consumable: 'consumable', 'Non-Consumable': 'non-consumable',
    };

    function button(text, label, click) {
      return el('button', { type: 'button', 'aria-label': label, 'data-key': label, text, on: { click } });
    }

    // A refund's percent survives a redraw (a change made elsewhere) while it is being typed.
    const drafts = new Map();

    export function transactionRow(t, status, customer, act) {
      const id = t.transactionId;
      const actions = el('td', {});
      if (!t.revocationDate) {
        const percent = el('input', {
          type: 'number', min: '0.001', max: '99.999', step: 'any', placeholder: '100',
          'aria-label': `Refund percent for transaction ${id}`, 'data-key': `percent ${id}`, class: 'percent',
          on: { input: (event) => drafts.set(id, event.target.value) },
        });
        percent.value = drafts.get(id) || '';
        actions.append(percent, button('Refund', `Refund transaction ${id}`, () => {
          drafts.delete(id);
          const body = { arguments: [id], customer };
          const share = percent.value.trim();
          if (share && share !== '100') body.percent = share;
          act(`Refund ${id}` + (body.percent ? ` (${share}%)` : ''), 'refund', body);
        }));
      }
      const live = status && ['subscribed', 'inGracePeriod', 'inBillingRetryPeriod'].includes(status.state);
      if (live) {
        const on = status.renewalInfo.autoRenewStatus === 1;
        const body = { transaction: id, customer };
        actions.append(
          on ? button('Cancel', `Cancel the subscription of transaction ${id}`, () => act(`Cancel ${t.productId}`, 'cancel', body))
            : button('Resume', `Resume the subscription of transaction ${id}`, () => act(`Resume ${t.productId}`, 'resume', body)),
          button('Expire', `Expire the subscription of transaction ${id}`, () => act(`Expire ${t.productId}`, 'expire', body)),
          button('Renew', `Renew the subscription of transaction ${id}`, () => act(`Renew ${t.productId}`, 'renew', body)));
        if (status.state !== 'subscribed') {
          actions.append(button('Resolve', `Resolve the billing issue of transaction ${id}`,
            () => act(`Resolve ${t.productId}`, 'resolve', body)));
        }
      }
      const offer = t.offerType ? [offerTypes[t.offerType] || String(t.offerType), t.offerIdentifier].filter(Boolean).join(' ') : '';
      const revoked = t.revocationDate
        ? [date(t.revocationDate), t.revocationType, t.revocationPercentage ? `${t.revocationPercentage / 1000}%` : null]
          .filter(Boolean).join(' ')
        : '';
      return el('tr', { 'data-transaction': id },
        el('td', { text: id }),
        el('td', { text: t.productId }),
        el('td', { text: shortTypes[t.type] || t.type }),
        el('td', { text: date(t.purchaseDate) }),
        el('td', { text: date(t.expiresDate) }),
        el('td', { text: offer }),
        el('td', { text: t.inAppOwnershipType || '' }),
        el('td', { text: revoked }),
        actions);
    }

    export function statusRow(s) {
      const r = s.renewalInfo;
      const notes = [];
      if (r.autoRenewProductId && r.autoRenewProductId !== r.productId) notes.push('renews as ' + r.autoRenewProductId);
      // The renewal date is the end of the current period: a renewal only while auto-renew is on
      // and the subscription has not ended (status 2 expired, 5 revoked).
      const ended = s.status === 2 || s.status === 5;
      if (r.renewalDate) notes.push((ended ? 'ended ' : r.autoRenewStatus === 1 ? 'renews ' : 'ends ') + date(r.renewalDate));
      if (r.gracePeriodExpiresDate) notes.push('grace until ' + date(r.gracePeriodExpiresDate));
      if (r.expirationIntent) notes.push('expiration intent ' + r.expirationIntent);
      if (r.isInBillingRetryPeriod) notes.push('in billing retry');
      if (s.isFamilyShared) notes.push('family shared');
      return el('tr', {},
        el('td', { text: s.subscriptionGroupIdentifier }),
        el('td', { text: s.state }),
        el('td', { text: s.transaction.productId }),
        el('td', { text: date(s.transaction.expiresDate) }),
        el('td', { text: r.autoRenewStatus === 1 ? 'on' : 'off' }),
        el('td', { text: notes.join('; ') }));
    }

    export function pendingRow(p, act) {
      const actions = el('td', {});
      const customer = p.customer;
      if (p.kind === 'askToBuy') {
        actions.append(
          button('Approve', `Approve request ${p.requestId}`, () => act(`Approve ${p.requestId}`, 'approve', { arguments: [p.requestId], customer })),
          button('Decline', `Decline request ${p.requestId}`, () => act(`Decline ${p.requestId}`, 'decline', { arguments: [p.requestId], customer })));
      } else if (p.kind === 'refund') {
        actions.append(
          button('Approve', `Approve refund request ${p.requestId}`,
            () => act(`Approve refund ${p.requestId}`, 'refund', { arguments: ['approve', p.requestId], customer })),
          button('Decline', `Decline refund request ${p.requestId}`,
            () => act(`Decline refund ${p.requestId}`, 'refund', { arguments: ['decline', p.requestId], customer })));
      } else {
        actions.append(button('Resolve', `Resolve request ${p.requestId}`,
          () => act(`Resolve ${p.productId}`, 'resolve', { arguments: [p.productId], customer })));
      }
      return el('tr', {},
        el('td', { text: p.requestId }),
        el('td', { text: p.kind }),
        el('td', { text: p.productId + (p.transactionId ? ` (transaction ${p.transactionId})` : '') }),
        el('td', { text: customer }),
        el('td', { text: date(p.date) }),
        actions);
    }

    export function notificationRow(n, act) {
      const payload = n.payload;
      const attempts = n.attempts.map((a) =>
        `${date(a.date)} ${a.httpStatus ?? a.error ?? ''} ${a.result ?? ''}${a.origin ? ' (' + a.origin + ')' : ''}`.trim());
      const last = n.attempts[n.attempts.length - 1];
      const actions = el('td', {});
      if (last && last.result !== 'SUCCESS') {
        actions.append(button('Resend', `Resend notification ${n.index}`, () =>
          act(`Resend notification ${n.index} (and later failed ones)`, 'notifications',
            { arguments: ['deliver'], retry: true, since: String(n.index) })));
      }
      const type = payload.notificationType + (payload.subtype ? '/' + payload.subtype : '');
      return el('tr', {},
        el('td', { text: n.index }),
        el('td', {}, el('details', {}, el('summary', { text: type }),
          el('pre', { text: JSON.stringify(payload, null, 2) }))),
        el('td', { text: n.customer }),
        el('td', { text: date(payload.signedDate) }),
        el('td', { text: attempts.length ? attempts.join('\n') : 'not delivered', class: 'attempts' }),
        actions);
    }
    """#
}
