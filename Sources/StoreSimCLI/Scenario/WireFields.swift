import Foundation
import StoreSim

/// The field names of Apple's wire models that `expect latest` and `expect renewal` read.
enum WireFields {
  /// `JWSTransactionDecodedPayload`: the names a transaction's payload can hold, from its
  /// declaration.
  static let transaction = TransactionPayload.wireNames + transactionCommitment.map { "commitmentInfo." + $0 }
  /// `TransactionCommitmentInfo`, read as `commitmentInfo.NAME`.
  static let transactionCommitment = [
    "billingPeriodNumber", "totalBillingPeriods", "commitmentExpiresDate", "commitmentPrice",
  ]
  /// `RenewalCommitmentInfo`, read as `commitmentInfo.NAME`.
  static let renewalCommitment = [
    "commitmentAutoRenewProductId", "commitmentAutoRenewStatus", "commitmentRenewalBillingPlanType",
    "commitmentRenewalDate", "commitmentRenewalPrice",
  ]
  /// `JWSRenewalInfoDecodedPayload`.
  static let renewalInfo =
    [
      "autoRenewStatus", "autoRenewProductId", "productId", "expirationIntent", "gracePeriodExpiresDate",
      "isInBillingRetryPeriod", "priceIncreaseStatus", "renewalDate", "recentSubscriptionStartDate",
      "originalTransactionId",
      "offerType", "offerIdentifier", "offerDiscountType", "offerPeriod", "eligibleWinBackOfferIds", "renewalPrice",
      "currency",
      "signedDate", "environment", "appAccountToken", "appTransactionId", "renewalBillingPlanType", "commitmentInfo",
    ] + renewalCommitment.map { "commitmentInfo." + $0 }
  /// Apple's `NotificationTypeV2` and `Subtype` values.
  static let notificationTypes = NotificationTypeV2.allCases.map(\.rawValue)
  static let notificationSubtypes = Subtype.allCases.map(\.rawValue)
  /// How messages name the two models.
  static let transactionModel = "a transaction (JWSTransactionDecodedPayload)"
  static let renewalInfoModel = "renewal info (JWSRenewalInfoDecodedPayload)"
  /// Fields holding dates (epoch milliseconds on the wire; ISO 8601 in expectations).
  static let dates = Set(
    TransactionPayload.dateNames + [
      "gracePeriodExpiresDate", "renewalDate", "recentSubscriptionStartDate", "signedDate",
      "commitmentInfo.commitmentExpiresDate", "commitmentInfo.commitmentRenewalDate",
    ])

  /// Fields holding prices: whole milliunits of the currency on the wire (9.99 is 9990).
  static let prices: Set = [
    "price", "renewalPrice", "commitmentInfo.commitmentPrice", "commitmentInfo.commitmentRenewalPrice",
  ]

  /// The error for a price written as a decimal (`price 9.99`): prices are milliunits.
  static func priceProblem(_ name: String, _ value: String) -> String {
    let text = "\(name) is in milliunits (thousandths of the currency unit, as Apple's payloads carry it)"
    guard let amount = Double(value), amount.isFinite, abs(amount) < 1e12 else {
      return text + ": write a whole number, e.g. 9990 for 9.99"
    }
    return text + ": write \(Int64((amount * 1000).rounded())) for \(value)"
  }

  /// Checks that `name` is one of `fields` (of the model `what`) and that a date field's value
  /// reads as a date (`absent` stands for an omitted field).
  static func check(_ name: String, value: String, in fields: [String], of what: String) throws(ScenarioProblem) {
    guard fields.contains(name) else {
      throw ScenarioProblem(Suggest.appending(to: "unknown field '\(name)' of \(what)", for: name, in: fields))
    }
    if prices.contains(name), value != "absent", Int64(value) == nil {
      throw ScenarioProblem(priceProblem(name, value))
    }
    guard value != "absent", dates.contains(name), Int64(value) == nil else { return }
    do { _ = try ValueParsing.date(value) } catch {
      throw ScenarioProblem("\(name) is a date: \((error as? CLIError)?.message ?? "invalid date '\(value)'")")
    }
  }
}
