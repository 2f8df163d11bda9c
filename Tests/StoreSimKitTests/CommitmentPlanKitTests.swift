import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// Commitment plans and prorated refunds through StoreKit's API (rules
/// commitment-plan-bills-monthly-inside-twelve-months, cancelling-a-commitment-stops-only-its-renewal,
/// refund-carries-revocation-percentage).
@Suite("Commitment plans", .isolatedTestSession)
struct CommitmentPlanKitTests {
  static let configuration = Kit.root.appendingPathComponent("Configurations/CommitmentPlan.storekit")

  @Test func pricingTermsListUpFrontAndTheMonthlyCommitmentAndPurchaseCarriesCommitmentInfo() async throws {
    let session = try SKTestSession(contentsOf: Self.configuration, startDate: Kit.start)
    try await session.run {
      let pro = try #require(try await Product.products(for: ["com.example.studio.pro.yearly"]).first)
      let terms = try #require(pro.subscription?.pricingTerms)
      #expect(terms.map(\.billingPlanType) == [.upFront, .monthly])
      #expect(terms[1].billingPrice == Decimal(string: "9.99"))
      #expect(terms[1].billingPeriod == .monthly)
      #expect(terms[1].commitmentInfo?.price == Decimal(string: "119.88"))
      let basic = try #require(try await Product.products(for: ["com.example.studio.basic.yearly"]).first)
      #expect(basic.subscription?.pricingTerms.map(\.billingPlanType) == [.upFront])

      guard case .success(let result) = try await pro.purchase(options: [.billingPlanType(.monthly)]) else {
        Issue.record("expected a purchase"); return
      }
      let transaction = try result.payloadValue
      #expect(transaction.billingPlanType == .monthly)
      #expect(transaction.commitmentInfo?.billingPeriodNumber == 1)
      #expect(transaction.commitmentInfo?.totalBillingPeriods == 12)
      #expect(transaction.price == Decimal(string: "9.99"))
      try session.disableAutoRenewForTransaction(identifier: UInt(transaction.id))
      let status = try #require(try await pro.subscription?.status.first)
      let renewal = try status.renewalInfo.payloadValue
      #expect(renewal.willAutoRenew)
      #expect(renewal.renewalBillingPlanType == .monthly)
      #expect(renewal.commitmentInfo?.willAutoRenew == false)
      #expect(renewal.commitmentInfo?.autoRenewPreference == "com.example.studio.pro.yearly")
    }
  }

  @Test func aProratedRefundShowsItsTypeAndPercentage() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let bought = try await session.buyProduct(identifier: "nonconsumable.car")
      #expect(bought.revocationType == nil)
      try session.refundTransaction(identifier: UInt(bought.id))
      let refunded = try #require(await Transaction.latest(for: "nonconsumable.car")?.unsafePayloadValue)
      #expect(refunded.revocationType == .fullRefund)
      #expect(refunded.revocationPercentage == 100)
    }
  }
}
