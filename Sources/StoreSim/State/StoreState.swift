import Foundation

/// The whole state of a session: a value that can be compared, saved and restored.
public struct StoreState: Sendable, Hashable, Codable {
  /// The catalogue.
  public var configuration: StoreConfiguration
  /// The settings in force.
  public var settings: StoreKitSettings
  /// The virtual clock.
  public var now: Date
  /// When the session started.
  public var startDate: Date
  /// The app's bundle id.
  public var bundleID: String
  /// The environment data is signed for.
  public var environment: StoreEnvironment
  /// Customers in creation order; the first is `default`.
  public var customers: [Customer]
  /// Open Ask to Buy requests and interrupted purchases.
  public var pendingRequests: [PendingRequest]
  /// Notifications emitted so far, in order.
  public var notifications: [ServerNotification]
  /// The next transaction id.
  public var nextTransactionID: TransactionID
  /// The next web order line item id.
  public var nextWebOrderLineItemID: UInt64
  /// The next request number.
  public var nextRequestNumber: Int
  /// Where notifications are POSTed as they happen (`settings deliver-url`), if anywhere.
  public var deliveryURL: String?
  /// Every delivery attempt of a notification, in order (absent in older session files).
  public var deliveryLog: [NotificationDelivery]?
  /// Refund requests the App Store has not answered yet (absent in older session files).
  public var refundRequests: [RefundRequest]?
  /// What the App Store Server API's writing endpoints recorded (absent until one is used).
  public var serverRecords: ServerRecords?
}
