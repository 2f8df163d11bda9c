import Foundation
import StoreSim

// The payment queue and the store: running an added payment, restoring, and what changes in
// the store (from StoreKit 2, test controls, the clock) mean for StoreKit 1 observers.
extension SKPaymentQueue {
  /// Runs an added payment through the store; returns the transaction's end state.
  func process(_ transaction: SKPaymentTransaction) -> Change {
    guard let core else { return .failed(transaction, .unknown) }
    guard paymentsAllowed else { return .failed(transaction, .paymentNotAllowed) }
    let payment = transaction.payment
    var options = PurchaseOptions(quantity: payment.quantity)
    options.appAccountToken = payment.applicationUsername.flatMap(UUID.init(uuidString:))
    if let discount = payment.paymentDiscount {
      options.offer = .promotional(discount.identifier)
      options.offerSignature = .separated(
        keyID: discount.keyIdentifier, nonce: discount.nonce, timestamp: discount.timestamp.int64Value,
        signature: discount.signature)
    }
    let cancel = core.userCancelsPurchases
    let result: PurchaseResult
    do {
      result = try core.mutate(fromStoreKit1: true) { (store: inout Store) throws(StoreError) in
        try store.purchase(payment.productIdentifier, options: options, customer: core.customer, cancel: cancel)
      }
    } catch {
      if case .productNotFound = error { return .failed(transaction, .storeProductNotAvailable) }
      return .failed(transaction, .unknown)
    }
    switch result {
    case .success(let t, _):
      let ledger = core.read { $0.customer(core.customer)?.transaction(t.id) } ?? t
      return .purchased(transaction, ledger, original: nil)
    case .pending(let requestID):
      let kind = core.read { $0.pendingRequests(customer: core.customer).first { $0.id == requestID }?.kind }
      guard kind == .askToBuy else { return .failed(transaction, .unknown) }  // interrupted: fails first
      state.withLock { $0.deferred.append((requestID, transaction)) }
      return Change(transaction, state: .deferred)
    case .userCancelled:
      return .failed(transaction, .paymentCancelled)
    case .failed(let failure):
      var change = Change(transaction, state: .failed)
      change.error = SKError.purchase(failure)
      return change
    }
  }

  /// The steps of a restore: the restored transactions (one call), then the Finished call; or
  /// the failure alone.
  func restore(username: String?) -> [Step] {
    guard let core else { return [.restoreFailed(SKError(.unknown))] }
    let (error, ledger, now) = core.read { store in
      (
        store.settings.simulatedError(forAPI: .appStoreSync),
        (store.customer(core.customer)?.transactions ?? []).filter {
          ($0.productType == .nonConsumable || $0.productType == .autoRenewable) && !$0.isRevoked
        },
        store.now
      )
    }
    if let error { return [.restoreFailed(SKError.simulated(error.name))] }
    let changes = state.withLock { s in
      ledger.map { t -> Change in
        let payment = SKPayment(
          fields: .init(
            productIdentifier: t.productID, quantity: t.purchasedQuantity,
            applicationUsername: username ?? t.appAccountToken?.uuidString))
        var change = Change(SKPaymentTransaction(payment: payment, state: .restored), state: .restored)
        change.identifier = String(s.nextRestoredID)
        s.nextRestoredID += 1
        change.date = now
        change.original = SKPaymentTransaction(ledger: t)
        return change
      }
    }
    receipt.refresh(core)
    return (changes.isEmpty ? [] : [.updated(changes)]) + [.restoreFinished]
  }

  /// What a change to the store means for StoreKit 1 (called holding the session's lock, after
  /// every mutation): new transactions reach observers as `purchased` (a deferred one that was
  /// approved is the same object), a declined Ask to Buy leaves quietly, a transaction finished
  /// in StoreKit 2 leaves the queue, a refund revokes entitlements, and the receipt is
  /// rewritten. Returns whether there is something to deliver.
  func storeChanged(
    _ events: [StoreEvent], store: Store, customer: CustomerID, fromStoreKit1: Bool
  ) -> Bool {
    if !events.isEmpty { receipt.storeChanged(store, customer: customer) }
    var created: [StoreSim.Transaction] = []
    var revoked: [String] = []
    var declined: Set<String> = []
    let ledger = store.customer(customer)
    for event in events where event.customer == customer {
      switch event.kind {
      case .transactionCreated(let id, _, let delivery):
        if fromStoreKit1 && delivery == .purchaseResult { continue }  // the added payment's own
        if let t = ledger?.transaction(id) { created.append(t) }
      case .transactionRevoked(let id, let product):
        // Consumables and non-renewing subscriptions revoke nothing the app unlocks for good.
        guard let t = ledger?.transaction(id), t.productType == .nonConsumable || t.productType == .autoRenewable
        else { continue }
        if !revoked.contains(product) { revoked.append(product) }
      case .askToBuyDeclined(let requestID, _):
        declined.insert(requestID)
      case .transactionUpgraded, .subscriptionRenewed, .renewalFailed, .gracePeriodExpired, .subscriptionExpired,
        .renewalPreferenceChanged, .autoRenewStatusChanged, .priceIncreaseStatusChanged, .offerRedeemed,
        .askToBuyRequested, .purchaseInterrupted, .refundRequested, .refundDeclined, .refundReversed,
        .notificationSent, .clockAdvanced:
        // Nothing StoreKit 1 observers are told of (a renewal arrives as `transactionCreated`;
        // the receipt, rewritten above, shows the rest).
        break
      }
    }
    let pending = Set(store.pendingRequests(customer: customer).map(\.id))
    let observed = !liveObservers.isEmpty
    return state.withLock { s in
      var steps: [Step] = []
      var stillDeferred: [(requestID: String, transaction: SKPaymentTransaction)] = []
      for d in s.deferred {
        let product = d.transaction.payment.productIdentifier
        if pending.contains(d.requestID) {
          stillDeferred.append(d)
        } else if declined.contains(d.requestID) {
          steps.append(.vanish(d.transaction))
        } else if let i = created.firstIndex(where: { $0.productID == product }) {
          steps.append(.updated([.purchased(d.transaction, created.remove(at: i), original: nil)]))
        } else if let owned = store.latestTransaction(for: product, customer: customer), !owned.isRevoked {
          steps.append(.updated([.purchased(d.transaction, owned, original: nil)]))  // approved, already owned
        } else {
          steps.append(.vanish(d.transaction))  // the request is gone (transactions cleared)
        }
      }
      s.deferred = stillDeferred
      if !created.isEmpty {
        steps.append(
          .updated(
            created.map { t in
              let original = t.reason == .renewal && t.originalID != t.id ? ledger?.transaction(t.originalID) : nil
              return .purchased(
                SKPaymentTransaction(ledger: t), t, original: original.map(SKPaymentTransaction.init(ledger:)))
            }))
      }
      var removed: [SKPaymentTransaction] = []
      let queue = s
      s.entries.removeAll { entry in
        let f = entry.fields.withLock { $0 }
        // One the app finished leaves with its own `removed` step.
        guard f.finishesLedger, let id = f.ledgerID, !queue.isFinishing(entry) else { return false }
        let gone = ledger?.transaction(id).map(\.isFinished) ?? true
        if gone { removed.append(entry) }
        return gone
      }
      if !removed.isEmpty { steps.append(.removed(removed)) }
      if !revoked.isEmpty { steps.append(.revoked(revoked)) }
      guard observed else {
        // The app is not listening: the queue changes, and an observer added later is told of
        // what is unfinished then; there is no one to tell of removals and revocations.
        for step in steps {
          if case .updated(let changes) = step { for change in changes { change.apply(to: &s) } }
          if case .vanish(let t) = step { s.entries.removeAll { $0 === t } }
        }
        return false
      }
      s.outbox.append(contentsOf: steps)
      return !steps.isEmpty
    }
  }

  /// The storefront changed (called holding the session's lock).
  func storefrontChanged() {
    guard !liveObservers.isEmpty else { return }
    state.withLock { s in s.outbox.append(.storefrontChanged) }
  }
}
