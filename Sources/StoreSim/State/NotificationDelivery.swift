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
  /// Apple's `sendAttemptResult`, decided when the attempt was made (absent in older session
  /// files: derived from the status and the error).
  package var result: String?
  /// Who made the attempt: absent for the App Store's own attempts (the first and Apple's
  /// retries, which Get Notification History lists); `resend` for the tester's manual resend,
  /// `duplicate` for storesim's injected second copy (neither is an App Store attempt).
  package var origin: DeliveryOrigin?
  /// What storesim's delivery faults did to this attempt (never Apple's): `duplicate`,
  /// `delayed 25min`, `reordered: held 10min`, `outage`.
  package var fault: String?
  /// When the App Store tries again after this failed attempt (Production; absent when it
  /// does not: success, the sixth attempt, another environment, not an App Store attempt).
  package var nextAttempt: Date?

  /// Creates a record.
  package init(
    index: Int, url: String, httpStatus: Int?, error: String?, date: Date, result: String? = nil,
    origin: DeliveryOrigin? = nil, fault: String? = nil, nextAttempt: Date? = nil
  ) {
    self.index = index
    self.url = url
    self.httpStatus = httpStatus
    self.error = error
    self.date = date
    self.result = result
    self.origin = origin
    self.fault = fault
    self.nextAttempt = nextAttempt
  }

  /// HTTP 200-206 (and no other reason to fail, such as an unsupported charset): what the App
  /// Store counts as a successful post ("Responding to App Store Server Notifications"); every
  /// other answer is retried.
  package var succeeded: Bool {
    if let result { return result == "SUCCESS" }
    return httpStatus.map { (200...206).contains($0) } ?? false
  }

  /// Whether the App Store made it (not the tester's resend nor an injected duplicate).
  package var isAppStoreAttempt: Bool { origin == nil }
}

/// Who made a delivery attempt other than the App Store.
package enum DeliveryOrigin: String, Sendable, Hashable, Codable {
  /// The tester's own resend (`notifications deliver --retry`).
  case resend
  /// A second copy storesim's delivery faults sent (`settings delivery-faults`).
  case duplicate
}
