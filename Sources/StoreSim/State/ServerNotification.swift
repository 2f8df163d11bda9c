import Foundation

/// A recorded App Store Server Notification V2, with the data it carried when emitted.
///
/// Copy-on-write: the outbox holds one reference per notification, and the record (with its
/// renewal info) is a single allocation.
public struct ServerNotification: Sendable, Hashable, Codable {
  /// The stored fields. A field with a `///` comment is also a public property of
  /// `ServerNotification` with that comment (`public package(set)`), forwarded in
  /// ServerNotification+Forwarding.swift, which Scripts/generate-forwarding.sh writes from this
  /// declaration; a field with a `//` comment is reached through the accessor written for it.
  struct Fields: Sendable, Hashable, Codable {
    /// `notificationType`.
    var notificationType: NotificationTypeV2
    /// `subtype`.
    var subtype: Subtype?
    /// Position in the outbox (0-based); the `notificationUUID` is derived from it.
    var sequence: Int
    /// `signedDate`: the emission time.
    var signedDate: Date
    /// The customer it is about.
    var customer: CustomerID
    /// The transaction it carries, as it was then.
    var transaction: Transaction?
    /// The renewal info it carries, as it was then (auto-renewables only).
    var renewalInfo: RenewalInfo?
    /// The subscription status then (auto-renewables only).
    var status: RenewalState?
    /// `data.consumptionRequestReason` of a `CONSUMPTION_REQUEST`.
    var consumptionRequestReason: ConsumptionRequestReason?
    // See `massExtensionRequestIdentifier` (absent in older sessions).
    var massExtensionRequestIdentifier: String? = nil
    // See `original` (imported notifications only).
    var original: OriginalNotification? = nil
  }

  /// The fields, shared by copies.
  var storage: CopyOnWrite<Fields>

  /// Creates a record.
  package init(
    notificationType: NotificationTypeV2, subtype: Subtype?, sequence: Int, signedDate: Date, customer: CustomerID,
    transaction: Transaction?, renewalInfo: RenewalInfo?, status: RenewalState?,
    consumptionRequestReason: ConsumptionRequestReason? = nil
  ) {
    storage = CopyOnWrite(
      Fields(
        notificationType: notificationType, subtype: subtype, sequence: sequence, signedDate: signedDate,
        customer: customer, transaction: transaction, renewalInfo: renewalInfo, status: status,
        consumptionRequestReason: consumptionRequestReason))
  }

  /// The `requestIdentifier` of the mass extension a `RENEWAL_EXTENSION`/`SUMMARY` reports on
  /// (its `summary` object is built from that request's record).
  package var massExtensionRequestIdentifier: String? {
    get { storage.fields.massExtensionRequestIdentifier }
    set { storage.fields.massExtensionRequestIdentifier = newValue }
  }

  /// An imported notification as Apple sent it (`notifications replay` posts it again); nil for
  /// the session's own.
  package var original: OriginalNotification? {
    get { storage.fields.original }
    set { storage.fields.original = newValue }
  }

  public init(from decoder: any Decoder) throws { storage = CopyOnWrite(try Fields(from: decoder)) }

  public func encode(to encoder: any Encoder) throws { try storage.fields.encode(to: encoder) }

  /// `notificationUUID`: unique per notification, stable across reads and retries; an
  /// imported notification keeps Apple's.
  public var notificationUUID: String {
    if let uuid = storage.fields.original?.notificationUUID { return uuid }
    let hex = String(UInt64(sequence + 1), radix: 16)
    return "5e1a0000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
  }
}
