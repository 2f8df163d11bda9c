import Foundation

/// The whole state of a session: a value that can be compared, saved and restored.
public struct StoreState: Sendable, Hashable, Codable {
  /// The catalogue.
  public package(set) var configuration: StoreConfiguration
  /// The settings in force.
  public package(set) var settings: StoreKitSettings
  /// The virtual clock.
  public package(set) var now: Date
  /// When the session started.
  public package(set) var startDate: Date
  /// The app's bundle id.
  public package(set) var bundleID: String
  /// The environment data is signed for.
  public package(set) var environment: StoreEnvironment
  /// Customers in creation order; the first is `default`.
  public package(set) var customers: [Customer]
  /// Open Ask to Buy requests and interrupted purchases.
  public package(set) var pendingRequests: [PendingRequest]
  /// Notifications emitted so far, in order.
  public package(set) var notifications: [ServerNotification]
  /// The next transaction id.
  public package(set) var nextTransactionID: TransactionID
  /// The next web order line item id.
  public package(set) var nextWebOrderLineItemID: UInt64
  /// The next request number.
  public package(set) var nextRequestNumber: Int
  /// Where notifications are POSTed as they happen (`settings deliver-url`), if anywhere.
  package var deliveryURL: String?
  /// Every delivery attempt of a notification, in order (absent in older session files).
  package var deliveryLog: [NotificationDelivery]?
  /// Refund requests the App Store has not answered yet (absent in older session files).
  public package(set) var refundRequests: [RefundRequest]?
  /// What the App Store Server API's writing endpoints recorded (absent until one is used).
  package var serverRecords: ServerRecords?
  /// The last `Transaction.modificationOrder` given (absent until one is).
  package var lastModificationOrder: UInt64?
  /// Retention Messaging: messages, images, defaults, realtime URL, calls (absent until used).
  package var retentionMessaging: RetentionMessaging?
  /// The receipts' `download_id`: what ties this session's app receipts to it, as Apple's are
  /// tied to a device (absent in older session files and in sessions made without one: 0).
  package var downloadID: Int64?
  /// The key and certificates the session signs with, made from random bytes at `init` (absent
  /// in older session files and in sessions made without random bytes: `signer` derives one).
  package var signing: SigningIdentity?
  /// Nonces of signed offers already redeemed, lower case (absent until one is).
  package var usedOfferNonces: [String]?
  /// The team's In-App Purchase key given to the session (`init --api-key`): its public half,
  /// key id and issuer id; it verifies offers and, in `serve`, bearer tokens (absent until given).
  public package(set) var teamKey: OfferKey?
  /// An introductory-offer eligibility JWS that does not verify fails the purchase
  /// (`invalidOfferSignature`) instead of being ignored (`settings strict-eligibility on`).
  package var strictIntroductoryOfferEligibility: Bool?
  /// The app's Apple id, carried in Production data (`init --app-apple-id`).
  public package(set) var appAppleID: Int64?
  /// The delivery URL of the other App Store environment: App Store Connect keeps a production
  /// and a sandbox URL; the session posts only to its own (`deliveryURL`) and keeps this one
  /// (absent until set).
  package var otherEnvironmentDeliveryURL: String?
  /// storesim's own delivery faults, off when absent (`settings delivery-faults`).
  package var deliveryFaults: DeliveryFaults?
  /// First attempts a delivery fault holds past the change that caused them (absent when none).
  package var heldDeliveries: [HeldDelivery]?

  /// `appAppleId` as Production data carries it (absent in other environments, as Apple's are).
  package var productionAppAppleID: JSONOutput? {
    guard environment == .production, let appAppleID else { return nil }
    return .int(appAppleID)
  }

  /// What the session signs with.
  package var signer: SigningIdentity {
    signing ?? SigningIdentity.derived(bundleID: bundleID, environment: environment)
  }
}
