import StoreSim
import StoreSimSession

/// A session file a long-lived front end (the shell, `manage`) keeps loaded between its units
/// of work (`SessionWork.perform(keeping:)`).
struct KeptSession {
  let location: SessionLocation
  private(set) var kept = SessionWork.Kept()

  init(location: SessionLocation) { self.location = location }

  /// One unit of work on the session, warning on the invocation's standard error.
  @discardableResult
  mutating func perform(
    _ inv: Invocation, mutating: Bool, needsNotifications: Bool = true, _ body: (Store) throws -> Store
  ) throws -> Store {
    try SessionWork(location: location, warn: inv.warning).perform(
      keeping: &kept, mutating: mutating, needsNotifications: needsNotifications, body)
  }
}
