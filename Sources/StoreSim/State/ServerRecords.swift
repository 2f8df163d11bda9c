import Foundation

/// What the App Store Server API's writing endpoints left in a session.
public struct ServerRecords: Sendable, Hashable, Codable {
  /// Consumption information sent (Send Consumption Information v1 and v2), in order.
  public var consumption: [ConsumptionRecord] = []
  /// Renewal-date extensions, one per subscription extended, in order.
  public var extensions: [RenewalExtension] = []
  /// Mass extension requests, in order.
  public var massExtensions: [MassExtension] = []
  /// Test notifications requested: token and the notification's index.
  public var testNotifications: [TestNotificationRecord] = []

  /// Nothing recorded.
  public init() {}
}

/// Consumption information sent for a transaction.
public struct ConsumptionRecord: Sendable, Hashable, Codable {
  /// The transaction.
  public var transactionID: TransactionID
  /// Its customer.
  public var customer: CustomerID
  /// When it was sent (virtual date).
  public var date: Date
  /// 1 (`/inApps/v1/...`, deprecated) or 2.
  public var version: Int
  /// The request's fields as sent (wire names; values as JSON text).
  public var fields: [String: String]
  /// The pending refund request (CONSUMPTION_REQUEST) it answered, if any.
  public var refundRequestID: String?

  /// Creates a record.
  public init(
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
public struct RenewalExtension: Sendable, Hashable, Codable {
  /// The subscription.
  public var originalTransactionID: TransactionID
  /// Its customer.
  public var customer: CustomerID
  /// Days added.
  public var days: Int
  /// Apple's `extendReasonCode` (0 undeclared, 1 customer satisfaction, 2 other, 3 service issue).
  public var reason: Int
  /// The caller's request identifier (a mass extension's for its subscriptions).
  public var requestIdentifier: String
  /// When (virtual date).
  public var date: Date
  /// The new renewal date.
  public var effectiveDate: Date
  /// The latest transaction, whose `expiresDate` moved.
  public var transactionID: TransactionID
  /// Whether it was part of a mass extension.
  public var mass: Bool
}

/// A mass extension request and its outcome.
public struct MassExtension: Sendable, Hashable, Codable {
  /// The caller's request identifier.
  public var requestIdentifier: String
  /// The product whose active subscribers were extended.
  public var productID: ProductID
  /// Days added.
  public var days: Int
  /// Apple's `extendReasonCode`.
  public var reason: Int
  /// Storefronts it was limited to (nil: all).
  public var storefronts: [String]?
  /// When it ran (virtual date); storesim completes a mass extension at once.
  public var date: Date
  /// Subscriptions extended.
  public var succeeded: Int
  /// Subscriptions that could not be (the yearly limit).
  public var failed: Int
}

/// A TEST notification requested through the API.
public struct TestNotificationRecord: Sendable, Hashable, Codable {
  /// The token returned to the caller.
  public var token: String
  /// The index of the notification in the outbox.
  public var index: Int
}

/// Why a renewal-date extension was refused (Apple's error conditions).
public enum ExtensionRefusal: Error, Sendable, Equatable {
  /// No subscription has this original transaction id.
  case notFound
  /// The subscription is not active (expired, revoked, in billing retry or grace).
  case ineligible
  /// Two extensions in the last 365 days already.
  case maximumReached
  /// The id is a family member's shared copy; only the purchaser's can be extended.
  case familyShared
}
