import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSession

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

  /// Checks that `name` is one of `fields` (of the model `what`) and that a date field's value
  /// reads as a date (`absent` stands for an omitted field).
  static func check(_ name: String, value: String, in fields: [String], of what: String) throws(ScenarioProblem) {
    guard fields.contains(name) else {
      throw ScenarioProblem(Suggest.appending(to: "unknown field '\(name)' of \(what)", for: name, in: fields))
    }
    guard value != "absent", dates.contains(name), Int64(value) == nil else { return }
    do { _ = try ValueParsing.date(value) } catch {
      throw ScenarioProblem("\(name) is a date: \((error as? CLIError)?.message ?? "invalid date '\(value)'")")
    }
  }
}
