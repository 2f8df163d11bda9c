import Foundation

/// A recorded App Store Server Notification V2, with the data it carried when emitted.
///
/// Copy-on-write: the outbox holds one reference per notification, and the record (with its
/// renewal info) is a single allocation.
public struct ServerNotification: Sendable, Hashable, Codable {
  /// The stored fields.
  struct Fields: Sendable, Hashable, Codable {
    var notificationType: NotificationTypeV2
    var subtype: Subtype?
    var sequence: Int
    var signedDate: Date
    var customer: CustomerID
    var transaction: Transaction?
    var renewalInfo: RenewalInfo?
    var status: RenewalState?
    var consumptionRequestReason: ConsumptionRequestReason?
  }

  private var storage: CopyOnWrite<Fields>

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

  /// `notificationType`.
  public package(set) var notificationType: NotificationTypeV2 {
    _read { yield storage.fields.notificationType }
    _modify { yield &storage.fields.notificationType }
  }
  /// `subtype`.
  public package(set) var subtype: Subtype? {
    _read { yield storage.fields.subtype }
    _modify { yield &storage.fields.subtype }
  }
  /// Position in the outbox (0-based); the `notificationUUID` is derived from it.
  public package(set) var sequence: Int {
    _read { yield storage.fields.sequence }
    _modify { yield &storage.fields.sequence }
  }
  /// `signedDate`: the emission time.
  public package(set) var signedDate: Date {
    _read { yield storage.fields.signedDate }
    _modify { yield &storage.fields.signedDate }
  }
  /// The customer it is about.
  public package(set) var customer: CustomerID {
    _read { yield storage.fields.customer }
    _modify { yield &storage.fields.customer }
  }
  /// The transaction it carries, as it was then.
  public package(set) var transaction: Transaction? {
    _read { yield storage.fields.transaction }
    _modify { yield &storage.fields.transaction }
  }
  /// The renewal info it carries, as it was then (auto-renewables only).
  public package(set) var renewalInfo: RenewalInfo? {
    _read { yield storage.fields.renewalInfo }
    _modify { yield &storage.fields.renewalInfo }
  }
  /// The subscription status then (auto-renewables only).
  public package(set) var status: RenewalState? {
    _read { yield storage.fields.status }
    _modify { yield &storage.fields.status }
  }

  /// `data.consumptionRequestReason` of a `CONSUMPTION_REQUEST`.
  public package(set) var consumptionRequestReason: ConsumptionRequestReason? {
    _read { yield storage.fields.consumptionRequestReason }
    _modify { yield &storage.fields.consumptionRequestReason }
  }

  public init(from decoder: any Decoder) throws { storage = CopyOnWrite(try Fields(from: decoder)) }

  public func encode(to encoder: any Encoder) throws { try storage.fields.encode(to: encoder) }

  /// `notificationUUID`: unique per notification, stable across reads and retries.
  public var notificationUUID: String {
    let hex = String(UInt64(sequence + 1), radix: 16)
    return "5e1a0000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
  }
}
