import Foundation

extension Store {
  /// Records a delivery attempt made by the front end.
  package mutating func recordDelivery(_ attempt: NotificationDelivery) {
    if state.deliveryLog == nil { state.deliveryLog = [] }
    state.deliveryLog!.append(attempt)
  }

  /// Keeps the first attempts a plan holds for later (delivery faults), replacing those it took.
  package mutating func keepHeldDeliveries(_ plan: DeliveryPlan) {
    guard plan.heldChanged || !(state.heldDeliveries ?? []).isEmpty else { return }
    state.heldDeliveries = plan.held.isEmpty ? nil : plan.held
  }

  /// Sets or clears the URL notifications are delivered to as they happen.
  package mutating func setDeliveryURL(_ url: String?) {
    state.deliveryURL = url
  }

  /// The delivery URL of an App Store environment, as App Store Connect keeps one for
  /// production and one for the sandbox (rule two-notification-urls-per-app): the session's
  /// own environment's is `deliveryURL` (a Production session's is the production URL, every
  /// other's the sandbox URL); the other is kept and shown, never posted to.
  package func deliveryURL(production: Bool) -> String? {
    production == (state.environment == .production) ? state.deliveryURL : state.otherEnvironmentDeliveryURL
  }

  /// Sets the delivery URL of an App Store environment (see `deliveryURL(production:)`).
  package mutating func setDeliveryURL(_ url: String?, production: Bool) {
    if production == (state.environment == .production) {
      state.deliveryURL = url
    } else {
      state.otherEnvironmentDeliveryURL = url
    }
  }

  /// Turns storesim's delivery faults on (or off with nil).
  package mutating func setDeliveryFaults(_ faults: DeliveryFaults?) {
    state.deliveryFaults = faults
    if faults == nil, let held = state.heldDeliveries, !held.isEmpty {
      // Held first attempts are released at once: without faults nothing is held.
      state.heldDeliveries = held.map {
        var h = $0; h.date = min(h.date, state.now); return h
      }
    }
  }

  /// The App Store's attempts of notification `index`, in order (the tester's resends and
  /// injected duplicates left out), as Get Notification History lists them.
  package func appStoreAttempts(of index: Int) -> [NotificationDelivery] {
    (state.deliveryLog ?? []).filter { $0.index == index && $0.isAppStoreAttempt }
  }

  /// Notification indexes never delivered successfully to `url`, split into never attempted
  /// and failed before.
  package func undelivered(to url: String) -> (new: [Int], failed: [Int]) {
    let log = (state.deliveryLog ?? []).filter { $0.url == url }
    let done = Set(log.filter(\.succeeded).map(\.index))
    let tried = Set(log.map(\.index))
    let open = state.notifications.indices.filter { !done.contains($0) }
    return (open.filter { !tried.contains($0) }, open.filter { tried.contains($0) })
  }
}
