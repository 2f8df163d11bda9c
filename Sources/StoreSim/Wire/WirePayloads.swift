import Foundation
import StoreSimCrypto

/// Epoch milliseconds, the App Store Server API's date form.
func milliseconds(_ date: Date) -> JSONOutput {
  .int(date.epochMilliseconds)
}

/// Currency units to the API's Int64 milliunits (`4.99` → `4990`).
func milliunits(_ price: Decimal) -> JSONOutput {
  var value = price * 1000
  var rounded = Decimal()
  NSDecimalRound(&rounded, &value, 0, .plain)
  return .int(NSDecimalNumber(decimal: rounded).int64Value)
}

/// A transaction as a `JWSTransactionDecodedPayload` (rule transaction-payload-is-apple-shape):
/// wire names, ms dates, string ids,
/// absent values and a false `isUpgraded` omitted. The transaction's own fields come from its
/// declaration (`Transaction.Fields.visitRow`); the rest from the session and the signing.
public struct TransactionPayload {
  /// The JSON object.
  public let json: JSONOutput

  /// Every name the payload can hold: the transaction's wire fields, then what comes from the
  /// session, the signing and the revocation.
  public static let wireNames: [String] = declared.names + contextNames

  /// The names of the fields holding dates (epoch milliseconds).
  public static let dateNames: [String] = declared.dates + ["signedDate"]

  private static let declared: TransactionWireNames = {
    var names = TransactionWireNames()
    var fields = Transaction.Fields.blank
    fields.visitRow(&names)
    return names
  }()

  /// The names that are not a transaction's own fields.
  static let contextNames = [
    "bundleId", "signedDate", "environment", "revocationType", "revocationPercentage", "appTransactionId",
    "billingPlanType", "commitmentInfo",
  ]

  /// Builds the payload of a transaction for a bundle and environment, signed at `signedDate`.
  public init(
    _ t: Transaction, bundleID: String, environment: StoreEnvironment, signedDate: Date, appTransactionID: String? = nil
  ) {
    var writer = RecordWireWriter()
    var fields = t.fields
    fields.visitRow(&writer)
    var d = writer.object
    d["bundleId"] = .string(bundleID)
    d["signedDate"] = milliseconds(signedDate)
    d["environment"] = .string(environment.rawValue)
    if let type = t.revocationType {
      d["revocationType"] = .string(type.rawValue)
      // Rule refund-carries-revocation-percentage: a full refund is 100000 milliunits (100 %),
      // a prorated one its share, a family revocation none.
      if let p = t.revocationPercentage { d["revocationPercentage"] = .int(Int64(p)) }
    }
    if let v = appTransactionID { d["appTransactionId"] = .string(v) }
    // Rule commitment-plan-bills-monthly-inside-twelve-months: every auto-renewable carries its
    // billing plan; a commitment plan's period carries its commitment.
    if let plan = t.billingPlanType { d["billingPlanType"] = .string(plan.rawValue) }
    if let c = t.commitmentInfo {
      d["commitmentInfo"] = .object([
        "billingPeriodNumber": .int(Int64(c.billingPeriodNumber)),
        "totalBillingPeriods": .int(Int64(c.totalBillingPeriods)),
        "commitmentExpiresDate": milliseconds(c.expirationDate),
        "commitmentPrice": milliunits(c.price),
      ])
    }
    json = .object(d)
  }
}

/// Renewal info as a `JWSRenewalInfoDecodedPayload` (rule renewal-info-payload-is-apple-shape).
public struct RenewalInfoPayload {
  /// The JSON object.
  public let json: JSONOutput

  /// Builds the payload: the renewal info's own fields from its declaration
  /// (`RenewalInfo.visitRow`), then what comes from the session and the signing.
  public init(_ r: RenewalInfo, environment: StoreEnvironment, appTransactionID: String? = nil) {
    var writer = RecordWireWriter()
    var fields = r
    fields.visitRow(&writer)
    var d = writer.object
    d["environment"] = .string(environment.rawValue)
    switch r.priceIncreaseStatus {
    case .noIncreasePending: break
    case .pending: d["priceIncreaseStatus"] = .int(0)
    case .agreed: d["priceIncreaseStatus"] = .int(1)
    }
    if let v = appTransactionID { d["appTransactionId"] = .string(v) }
    d["renewalBillingPlanType"] = .string(r.renewalBillingPlanType.rawValue)
    json = .object(d)
  }
}

extension Store {
  /// A transaction's JSON payload for this session, signed now.
  public func payload(_ t: Transaction, customer: CustomerID = .default) -> JSONOutput {
    TransactionPayload(
      t, bundleID: state.bundleID, environment: state.environment, signedDate: state.now,
      appTransactionID: self.customer(customer)?.appTransactionID
    ).json
  }

  /// A renewal info's JSON payload for this session.
  public func payload(_ r: RenewalInfo, customer: CustomerID = .default) -> JSONOutput {
    RenewalInfoPayload(r, environment: state.environment, appTransactionID: self.customer(customer)?.appTransactionID)
      .json
  }

  /// A subscription status as the product spec's `status` shape.
  public func payload(_ s: SubscriptionStatus, customer: CustomerID = .default) -> JSONOutput {
    .object([
      "subscriptionGroupIdentifier": .string(s.groupID),
      "state": .string(s.state.rawValue),
      "status": .int(Int64(s.state.serverStatus)),
      "transaction": payload(s.transaction, customer: customer),
      "renewalInfo": payload(s.renewalInfo, customer: customer),
      "isFamilyShared": s.isFamilyShared ? .bool(true) : nil,
    ])
  }

  /// A transaction as compact JWS, signed now.
  public func signed(_ t: Transaction, customer: CustomerID = .default) -> String {
    JWS.sign(payload(t, customer: customer), signer: state.signer)
  }

  /// A renewal info as compact JWS.
  public func signed(_ r: RenewalInfo, customer: CustomerID = .default) -> String {
    JWS.sign(payload(r, customer: customer), signer: state.signer)
  }

  /// A notification as a `ResponseBodyV2DecodedPayload`, exactly Apple's shape (rule
  /// notification-payload-is-apple-shape): `data` holds `bundleId`, `environment`,
  /// `signedTransactionInfo`, `signedRenewalInfo`, `status` and, for `CONSUMPTION_REQUEST`,
  /// `consumptionRequestReason`; nothing else. This is what is signed and delivered.
  public func payload(_ n: ServerNotification) -> JSONOutput {
    notificationPayload(n, decoded: false)
  }

  /// The notification for people to read: `payload(n)` plus the signed data decoded under
  /// `data.transactionInfo` and `data.renewalInfo`. Never signed nor delivered.
  public func decodedPayload(_ n: ServerNotification) -> JSONOutput {
    notificationPayload(n, decoded: true)
  }

  func notificationPayload(_ n: ServerNotification, decoded: Bool) -> JSONOutput {
    let appTransactionID = customer(n.customer)?.appTransactionID
    var data: [String: JSONOutput] = [
      "bundleId": .string(state.bundleID),
      "environment": .string(state.environment.rawValue),
    ]
    if let appAppleID = state.productionAppAppleID { data["appAppleId"] = appAppleID }
    if let t = n.transaction {
      let json = TransactionPayload(
        t, bundleID: state.bundleID, environment: state.environment, signedDate: n.signedDate,
        appTransactionID: appTransactionID
      ).json
      if decoded { data["transactionInfo"] = json }
      data["signedTransactionInfo"] = .string(JWS.sign(json, signer: state.signer))
    }
    if let r = n.renewalInfo {
      let json = RenewalInfoPayload(r, environment: state.environment, appTransactionID: appTransactionID).json
      if decoded { data["renewalInfo"] = json }
      data["signedRenewalInfo"] = .string(JWS.sign(json, signer: state.signer))
    }
    if let s = n.status { data["status"] = .int(Int64(s.serverStatus)) }
    if let reason = n.consumptionRequestReason { data["consumptionRequestReason"] = .string(reason.rawValue) }
    // RENEWAL_EXTENSION/SUMMARY carries `summary` instead of `data`; RESCIND_CONSENT `appData`.
    let summary = n.massExtensionRequestIdentifier.flatMap { request in
      serverRecords.massExtensions.first { $0.requestIdentifier == request }
    }
    let appData = n.notificationType == .rescindConsent ? appDataPayload(n, decoded: decoded) : nil
    return .object([
      "notificationType": .string(n.notificationType.rawValue),
      "subtype": n.subtype.map { .string($0.rawValue) },
      "notificationUUID": .string(n.notificationUUID),
      "version": .string("2.0"),
      "signedDate": milliseconds(n.signedDate),
      "data": summary == nil && appData == nil ? .object(data) : nil,
      "appData": appData,
      "summary": summary.map { m in
        .object([
          "requestIdentifier": .string(m.requestIdentifier),
          "environment": .string(state.environment.rawValue),
          "bundleId": .string(state.bundleID),
          "appAppleId": state.productionAppAppleID,
          "productId": .string(m.productID),
          "storefrontCountryCodes": m.storefronts.map { .array($0.map { .string($0) }) },
          "succeededCount": .int(Int64(m.succeeded)),
          "failedCount": .int(Int64(m.failed)),
        ])
      },
    ])
  }

  /// A `RESCIND_CONSENT`'s `appData` (rule rescind-consent-carries-app-data): the bundle id,
  /// the environment and the customer's signed app transaction; `appAppleId` only in
  /// Production (`init --app-apple-id`), as Apple's is absent in the sandbox.
  func appDataPayload(_ n: ServerNotification, decoded: Bool) -> JSONOutput {
    var appData: [String: JSONOutput] = [
      "bundleId": .string(state.bundleID),
      "environment": .string(state.environment.rawValue),
    ]
    if let appAppleID = state.productionAppAppleID { appData["appAppleId"] = appAppleID }
    if let json = appTransactionPayload(customer: n.customer, signedDate: n.signedDate) {
      if decoded { appData["appTransactionInfo"] = json }
      appData["signedAppTransactionInfo"] = .string(JWS.sign(json, signer: state.signer))
    }
    return .object(appData)
  }

  /// What Apple POSTs for a notification: `{"signedPayload": "<JWS>"}`.
  public func signedBody(_ n: ServerNotification) -> JSONOutput {
    .object(["signedPayload": .string(JWS.sign(payload(n), signer: state.signer))])
  }
}
