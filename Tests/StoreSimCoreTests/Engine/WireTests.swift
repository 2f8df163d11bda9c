import Foundation
import StoreSimCrypto
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

@Suite struct WireTests {
  @Test func sha256AndHMACMatchKnownVectors() {
    let hex = { (b: [UInt8]) in b.map { String(format: "%02x", $0) }.joined() }
    #expect(hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    // RFC 4231 test case 2.
    #expect(
      hex(SHA256.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
        == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
  }

  @Test func signedTransactionIsCompactJWSWhosePayloadIsTheJSON() throws {
    var store = Fixtures.store()
    let t = try store.buyProduct("car")
    let jws = store.signed(t)
    #expect(jws.split(separator: ".").count == 3)
    let payload = try #require(JWS.verify(jws, signer: store.state.signer))
    #expect(String(decoding: payload, as: UTF8.self) == store.payload(t).rendered(pretty: false))
    let other = SigningIdentity.derived(bundleID: "other.bundle", environment: store.state.environment)
    #expect(JWS.verify(jws, signer: other) == nil)
  }

  @Test func payloadOfAJWSIsReadWithoutCheckingItsSignature() throws {
    var store = Fixtures.store()
    let jws = store.signed(try store.buyProduct("car"))
    let payload = try #require(JWS.payload(of: jws))
    #expect(payload == JWS.verify(jws, signer: store.state.signer))
    let parts = jws.split(separator: ".")
    #expect(JWS.payload(of: "\(parts[0]).\(parts[1]).forged") == payload)
    #expect(JWS.payload(of: "\(parts[0]).\(parts[1])") == nil)
    #expect(JWS.payload(of: "\(parts[0]).not*base64.\(parts[2])") == nil)
  }

  @Test func notificationBodyIsSignedPayloadWithSignedTransactionInside() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("basic")
    let n = try #require(store.notifications.last)
    guard case .string(let signed)? = store.signedBody(n)["signedPayload"] else {
      Issue.record("no signedPayload"); return
    }
    let decoded = try #require(JWS.verify(signed, signer: store.state.signer))
    let object = try #require(try JSONSerialization.jsonObject(with: Data(decoded)) as? [String: Any])
    #expect(object["notificationType"] as? String == "SUBSCRIBED")
    let data = try #require(object["data"] as? [String: Any])
    #expect(data["status"] as? Int == 1)
    #expect((data["signedTransactionInfo"] as? String)?.split(separator: ".").count == 3)
    #expect((data["signedRenewalInfo"] as? String)?.split(separator: ".").count == 3)
  }

  @Test func receiptAnswers21007ForATestReceiptAtProductionAnd21008TheOtherWay() throws {
    var store = Fixtures.store(environment: .sandbox)
    _ = try store.buyProduct("basic")
    #expect(store.receipt(askedAs: .production)["status"] == .int(21007))
    #expect(store.receipt()["status"] == .int(0))
    let production = Store(configuration: Fixtures.configuration, start: Fixtures.start, environment: .production)
    #expect(production.receipt(askedAs: .sandbox)["status"] == .int(21008))
    #expect(store.receipt(forcedStatus: 21005)["status"] == .int(21005))
    #expect(store.receipt(forcedStatus: 21150)["is-retryable"] == .bool(true))
  }

  @Test func receiptListsInAppLatestReceiptInfoAndPendingRenewalInfoAsStrings() throws {
    var store = Fixtures.store()
    let fuel = try store.buyProduct("fuel")
    _ = try store.buyProduct("monthly")
    try store.finish(fuel.id)
    let r = store.receipt()
    guard case .object(let receipt)? = r["receipt"], case .array(let inApp)? = receipt["in_app"] else {
      Issue.record("no in_app"); return
    }
    #expect(inApp.count == 1)  // the finished consumable is gone
    #expect(inApp[0]["is_trial_period"] == .string("true"))
    #expect(inApp[0]["purchase_date"] == .string("2026-01-01 00:00:00 Etc/GMT"))
    #expect(inApp[0]["purchase_date_pst"] == .string("2025-12-31 16:00:00 America/Los_Angeles"))
    #expect(inApp[0]["purchase_date_ms"] == .string("1767225600000"))
    guard case .array(let pending)? = r["pending_renewal_info"] else { Issue.record("no pending_renewal_info"); return }
    #expect(pending.first?["auto_renew_status"] == .string("1"))
    #expect(ReceiptDates.pacificOffsetMs(1_782_000_000_000) == -7 * 3_600_000)  // July 2026: PDT
  }
}

@Suite struct PriceDisplayTests {
  @Test func displayPricesGroupThousandsWithCommasAsAnEnglishUSDeviceShowsThem() {
    #expect(PriceFormatter.display(Decimal(string: "1234.5")!, currency: "USD") == "$1,234.50")
    #expect(PriceFormatter.display(Decimal(string: "1234567.891")!, currency: "EUR") == "€1,234,567.89")
    #expect(PriceFormatter.display(12000, currency: "JPY") == "¥12,000")
    #expect(PriceFormatter.display(990, currency: "HUF") == "HUF 990")
    #expect(PriceFormatter.display(Decimal(string: "1.99")!, currency: "CAD") == "CA$1.99")
    #expect(PriceFormatter.display(Decimal(string: "999.99")!, currency: "USD") == "$999.99")
  }
}
