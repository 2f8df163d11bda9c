import Foundation

/// One attempt to POST a notification to a server.
public struct NotificationDelivery: Sendable, Hashable, Codable {
  /// Index of the notification in the outbox.
  public var index: Int
  /// The URL posted to.
  public var url: String
  /// The HTTP status, when the server answered.
  public var httpStatus: Int?
  /// Why it failed without an HTTP status (connection refused, timeout).
  public var error: String?
  /// Virtual date of the attempt.
  public var date: Date

  /// Creates a record.
  public init(index: Int, url: String, httpStatus: Int?, error: String?, date: Date) {
    self.index = index
    self.url = url
    self.httpStatus = httpStatus
    self.error = error
    self.date = date
  }

  /// HTTP 200-206: what the App Store counts as a successful post ("Responding to App Store
  /// Server Notifications"); every other status is retried.
  public var succeeded: Bool { httpStatus.map { (200...206).contains($0) } ?? false }
}
