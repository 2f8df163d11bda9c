import Foundation

/// A commitment plan on a subscription: a one-year subscription billed monthly, twelve billing
/// periods to a commitment (rule commitment-plan-bills-monthly-inside-twelve-months).
public struct SubscriptionCommitment: Sendable, Hashable, Codable {
  /// Billing periods in a commitment.
  public static let totalBillingPeriods = 12

  /// The billing period now running, 1...12.
  public package(set) var billingPeriodNumber: Int
  /// When the whole commitment ends (`commitmentExpiresDate`); a late billing recovery moves it.
  public package(set) var expirationDate: Date
  /// Whether the commitment renews when period 12 ends (`commitmentAutoRenewStatus`).
  public package(set) var willAutoRenew: Bool
  /// The product the customer renews into when the commitment ends (`commitmentAutoRenewProductId`).
  public package(set) var autoRenewProductID: ProductID
  /// One monthly instalment.
  public package(set) var monthlyPrice: Decimal
  /// The whole commitment's price (`commitmentPrice`).
  public package(set) var price: Decimal

  package init(
    billingPeriodNumber: Int, expirationDate: Date, willAutoRenew: Bool, autoRenewProductID: ProductID,
    monthlyPrice: Decimal, price: Decimal
  ) {
    self.billingPeriodNumber = billingPeriodNumber
    self.expirationDate = expirationDate
    self.willAutoRenew = willAutoRenew
    self.autoRenewProductID = autoRenewProductID
    self.monthlyPrice = monthlyPrice
    self.price = price
  }

  /// Whether the period now running is the commitment's last.
  public var isInLastPeriod: Bool { billingPeriodNumber >= Self.totalBillingPeriods }
}

/// What a commitment-plan transaction records of its commitment (`TransactionCommitmentInfo`,
/// StoreKit's `Transaction.CommitmentInfo`).
public struct TransactionCommitment: Sendable, Hashable, Codable {
  /// Which billing period the transaction pays for, 1...12.
  public var billingPeriodNumber: Int
  /// Periods in the commitment (12).
  public var totalBillingPeriods: Int
  /// When the whole commitment ends (`commitmentExpiresDate`).
  public var expirationDate: Date
  /// The whole commitment's price (`commitmentPrice`).
  public var price: Decimal

  /// Creates a record.
  public init(billingPeriodNumber: Int, totalBillingPeriods: Int, expirationDate: Date, price: Decimal) {
    self.billingPeriodNumber = billingPeriodNumber
    self.totalBillingPeriods = totalBillingPeriods
    self.expirationDate = expirationDate
    self.price = price
  }
}

/// What the renewal info says of a commitment (`RenewalCommitmentInfo`, StoreKit's
/// `RenewalInfo.CommitmentInfo`): present only while the subscription is inside one.
public struct RenewalCommitment: Sendable, Hashable, Codable {
  /// The product renewed into when the commitment ends (`commitmentAutoRenewProductId`).
  public var autoRenewProductID: ProductID
  /// Whether the commitment renews (`commitmentAutoRenewStatus`).
  public var willAutoRenew: Bool
  /// The billing plan after the commitment (`commitmentRenewalBillingPlanType`).
  public var renewalBillingPlanType: BillingPlanType
  /// When the commitment renews (`commitmentRenewalDate`).
  public var renewalDate: Date
  /// One charge of the plan after the commitment (`commitmentRenewalPrice`).
  public var renewalPrice: Decimal

  /// Creates a record.
  public init(
    autoRenewProductID: ProductID, willAutoRenew: Bool, renewalBillingPlanType: BillingPlanType, renewalDate: Date,
    renewalPrice: Decimal
  ) {
    self.autoRenewProductID = autoRenewProductID
    self.willAutoRenew = willAutoRenew
    self.renewalBillingPlanType = renewalBillingPlanType
    self.renewalDate = renewalDate
    self.renewalPrice = renewalPrice
  }
}

extension SubscriptionCommitment: DeclaredRecord {
  /// A commitment with every field empty, for a reader to fill.
  package static let blank = SubscriptionCommitment(
    billingPeriodNumber: 0, expirationDate: Date(timeIntervalSince1970: 0), willAutoRenew: false,
    autoRenewProductID: "", monthlyPrice: 0, price: 0)

  /// Every field, in the order of a session row (the wire carries a transaction's and a renewal
  /// info's views of it, not this record).
  package mutating func visitRow<V: RecordFieldVisitor>(_ v: inout V) throws(V.Failure) {
    try v.visit(RecordField("billingPeriodNumber"), &billingPeriodNumber)
    try v.visit(RecordField("expirationDate"), &expirationDate)
    try v.visit(RecordField("willAutoRenew"), &willAutoRenew)
    try v.visit(RecordField("autoRenewProductID"), &autoRenewProductID)
    try v.visit(RecordField("monthlyPrice"), &monthlyPrice)
    try v.visit(RecordField("price"), &price)
  }
}

extension RenewalCommitment: DeclaredRecord {
  /// A commitment with every field empty, for a reader to fill.
  package static let blank = RenewalCommitment(
    autoRenewProductID: "", willAutoRenew: false, renewalBillingPlanType: .billedUpfront,
    renewalDate: Date(timeIntervalSince1970: 0), renewalPrice: 0)

  /// Every field, in the order of a session row, with its `commitmentInfo` name.
  package mutating func visitRow<V: RecordFieldVisitor>(_ v: inout V) throws(V.Failure) {
    try v.visit(RecordField("autoRenewProductID", wire: "commitmentAutoRenewProductId"), &autoRenewProductID)
    try v.visit(RecordField("willAutoRenew", wire: "commitmentAutoRenewStatus", flag: .number), &willAutoRenew)
    try v.visit(
      RecordField("renewalBillingPlanType", wire: "commitmentRenewalBillingPlanType"), &renewalBillingPlanType)
    try v.visit(RecordField("renewalDate", wire: "commitmentRenewalDate"), &renewalDate)
    try v.visit(RecordField("renewalPrice", wire: "commitmentRenewalPrice"), &renewalPrice)
  }
}

extension Product {
  /// The enabled `MONTHLY` billing plan of a one-year subscription, if it has one.
  public var monthlyBillingPlan: BillingPlan? {
    subscription?.billingPlans.first { $0.type == .monthly && $0.isEnabled }
  }
}

extension BillingPlan {
  /// The commitment's total: `commitmentDisplayPrice`, or twelve instalments.
  public var totalCommitmentPrice: Decimal {
    commitmentPrice ?? price * Decimal(SubscriptionCommitment.totalBillingPeriods)
  }
}
