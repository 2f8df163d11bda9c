import Foundation

/// What a mutating call on `Store` returns: its value and the events it caused, in order.
///
/// Every mutating call returns this one shape (`Outcome<Void>` when there is nothing else to
/// return), so a test reads `outcome.value` and `outcome.events` the same way after any of them.
/// A call that throws returns nothing and leaves the store as it was.
public struct Outcome<Value: Sendable>: Sendable {
  /// What the call returned (`()` for calls with nothing to return).
  public var value: Value
  /// What happened, in emission order (empty when nothing did).
  public var events: [StoreEvent]

  /// Creates an outcome.
  public init(value: Value, events: [StoreEvent]) {
    self.value = value
    self.events = events
  }

  /// The `TYPE` or `TYPE/SUBTYPE` names of the server notifications the call sent, in order
  /// (see `ServerNotification.name`).
  public var notificationNames: [String] {
    events.compactMap {
      guard case .notificationSent(_, let type, let subtype) = $0.kind else { return nil }
      return ServerNotification.name(type, subtype)
    }
  }
}

extension Outcome where Value == Void {
  /// An outcome with nothing to return.
  public init(events: [StoreEvent]) {
    self.init(value: (), events: events)
  }
}

extension Outcome where Value == PurchaseResult {
  /// The transaction of a successful purchase (`.success`), nil for pending, cancelled or failed.
  public var transaction: Transaction? {
    if case .success(let t, _) = value { return t }
    return nil
  }
}
