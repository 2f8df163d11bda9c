import Foundation

/// What the App Store Server API's writing endpoints left in a session.
package struct ServerRecords: Sendable, Hashable, Codable {
  /// Consumption information sent (Send Consumption Information v1 and v2), in order.
  package var consumption: [ConsumptionRecord] = []
  /// Renewal-date extensions, one per subscription extended, in order.
  package var extensions: [RenewalExtension] = []
  /// Mass extension requests, in order.
  package var massExtensions: [MassExtension] = []
  /// Test notifications requested: token and the notification's index.
  package var testNotifications: [TestNotificationRecord] = []

  /// Nothing recorded.
  package init() {}
}

/// Consumption information sent for a transaction.
package struct ConsumptionRecord: Sendable, Hashable, Codable {
  /// The transaction.
  package var transactionID: TransactionID
  /// Its customer.
  package var customer: CustomerID
  /// When it was sent (virtual date).
  package var date: Date
  /// 1 (`/inApps/v1/...`, deprecated) or 2.
  package var version: Int
  /// The request's fields as sent (wire names; values as JSON text).
  package var fields: [String: String]
  /// The pending refund request (CONSUMPTION_REQUEST) it answered, if any.
  package var refundRequestID: String?

  /// Creates a record.
  package init(
    transactionID: TransactionID, customer: CustomerID, date: Date, version: Int, fields: [String: String],
    refundRequestID: String?
  ) {
    self.transactionID = transactionID
    self.customer = customer
    self.date = date
    self.version = version
    self.fields = fields
    self.refundRequestID = refundRequestID
  }
}

/// One subscription's renewal date moved later.
package struct RenewalExtension: Sendable, Hashable, Codable {
  /// The subscription.
  package var originalTransactionID: TransactionID
  /// Its customer.
  package var customer: CustomerID
  /// Days added.
  package var days: Int
  /// Apple's `extendReasonCode` (0 undeclared, 1 customer satisfaction, 2 other, 3 service issue).
  package var reason: Int
  /// The caller's request identifier (a mass extension's for its subscriptions).
  package var requestIdentifier: String
  /// When (virtual date).
  package var date: Date
  /// The new renewal date.
  package var effectiveDate: Date
  /// The latest transaction, whose `expiresDate` moved.
  package var transactionID: TransactionID
  /// Whether it was part of a mass extension.
  package var mass: Bool
}

/// A mass extension request and its outcome.
package struct MassExtension: Sendable, Hashable, Codable {
  /// The caller's request identifier.
  package var requestIdentifier: String
  /// The product whose active subscribers were extended.
  package var productID: ProductID
  /// Days added.
  package var days: Int
  /// Apple's `extendReasonCode`.
  package var reason: Int
  /// Storefronts it was limited to (nil: all).
  package var storefronts: [String]?
  /// When it ran (virtual date); storesim completes a mass extension at once.
  package var date: Date
  /// Subscriptions extended.
  package var succeeded: Int
  /// Subscriptions that could not be (the yearly limit).
  package var failed: Int
}

/// A TEST notification requested through the API.
package struct TestNotificationRecord: Sendable, Hashable, Codable {
  /// The token returned to the caller.
  package var token: String
  /// The index of the notification in the outbox.
  package var index: Int
}

/// Why a renewal-date extension was refused (Apple's error conditions).
package enum ExtensionRefusal: Error, Sendable, Equatable {
  /// No subscription has this original transaction id.
  case notFound
  /// The subscription is not active (expired, revoked, in billing retry or grace).
  case ineligible
  /// Two extensions in the last 365 days already.
  case maximumReached
  /// The id is a family member's shared copy; only the purchaser's can be extended.
  case familyShared
  /// The id is a purchase of another product type than an auto-renewable subscription.
  case notAutoRenewable
  /// The subscription is in a free offer period (only paid periods can be extended).
  case freeOfferPeriod
}
