import Foundation

/// One attempt to POST a notification to a server.
package struct NotificationDelivery: Sendable, Hashable, Codable {
  /// Index of the notification in the outbox.
  package var index: Int
  /// The URL posted to.
  package var url: String
  /// The HTTP status, when the server answered.
  package var httpStatus: Int?
  /// Why it failed without an HTTP status (connection refused, timeout).
  package var error: String?
  /// Virtual date of the attempt.
  package var date: Date

  /// Creates a record.
  package init(index: Int, url: String, httpStatus: Int?, error: String?, date: Date) {
    self.index = index
    self.url = url
    self.httpStatus = httpStatus
    self.error = error
    self.date = date
  }

  /// HTTP 200-206: what the App Store counts as a successful post ("Responding to App Store
  /// Server Notifications"); every other status is retried.
  package var succeeded: Bool { httpStatus.map { (200...206).contains($0) } ?? false }
}
