import Foundation

extension Store {
  /// What stands in the outbox for a notification written out (`writeOutNotifications`): one
  /// record shared by every place, so a place costs a reference, not a notification.
  package static let writtenOut = ServerNotification(
    notificationType: .test, subtype: nil, sequence: -1, signedDate: Date(timeIntervalSince1970: 0),
    customer: .default, transaction: nil, renewalInfo: nil, status: nil)

  /// Hands the notifications from `start` on to `write`, in order, each with the transaction
  /// stored under its transaction's id now (nil when there is none), and leaves `writtenOut` in
  /// their places: the outbox keeps its count (a notification's `sequence` is its place) but
  /// not what the notifications hold. For `populate`, whose notifications are written out as
  /// they are made, so that a large population's memory does not hold them (issue 50, item 6;
  /// docs/performance.md): a state with written-out notifications is saved only together with
  /// what `write` wrote, and is never used for anything that reads its notifications.
  package mutating func writeOutNotifications(
    from start: Int, _ write: (ServerNotification, _ stored: Transaction?) throws -> Void
  ) rethrows {
    let end = state.notifications.count
    guard start < end else { return }
    for i in start..<end {
      let n = state.notifications[i]
      let stored = n.transaction.flatMap { owner(of: $0.id)?.transaction }
      try write(n, stored)
    }
    for i in start..<end { state.notifications[i] = Self.writtenOut }
  }
}
