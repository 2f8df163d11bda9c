import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimHTTP
@testable import StoreSimServer
@testable import StoreSimTestSupport

/// `POST /verifyReceipt` over a session: every status it answers, and the valid answer.
@Suite struct VerifyReceiptTests {
  /// A subscription renewed twice and a non-consumable for the default customer; a car for "bob".
  static func store(_ environment: StoreEnvironment = .xcode) throws -> Store {
    var store = Store(configuration: Fixtures.configuration, start: Fixtures.start, environment: environment)
    try store.purchase("pro")
    _ = try store.advance(by: 62 * 86_400)
    try store.purchase("car")
    try store.addCustomer("bob")
    try store.purchase("car", customer: "bob")
    return store
  }

  static func body(_ fields: [String: JSONOutput]) -> String { JSONOutput.object(fields).rendered(pretty: false) }

  /// The status and body of a request at `path` (production: /verifyReceipt).
  static func verify(
    _ store: Store, _ body: String, path: String = "/verifyReceipt", method: String = "POST", secret: String? = nil,
    host: String? = nil
  ) throws -> (Int, JSONNode) {
    var headers: [String: String] = [:]
    if let host { headers["host"] = host }
    let request = HTTPRequest(method: method, target: path, headers: headers, body: Array(body.utf8))
    let endpoint = try #require(VerifyReceipt.endpoint(request))
    let response = VerifyReceipt.answer(request, store: store, endpoint: endpoint, sharedSecret: secret)
    #expect(response.status == 200)  // Apple answers HTTP 200 whatever the status
    let node = try JSONParser.parse(Array(response.body.utf8))
    guard case .number(let status)? = node["status"]?.value, let code = Int(status) else {
      Issue.record("no status in \(response.body)")
      return (-1, node)
    }
    return (code, node)
  }

  static func receipt(_ store: Store, customer: CustomerID = .default) -> JSONOutput {
    .string(store.appReceiptData(customer: customer))
  }

  @Test func theUsualServerFlowRetriesASandboxReceiptAtTheSandbox() throws {
    let store = try Self.store()
    let body = Self.body(["receipt-data": Self.receipt(store), "password": .string("s3cret")])
    #expect(try Self.verify(store, body).0 == 21007)
    let (status, answer) = try Self.verify(store, body, path: "/sandbox/verifyReceipt")
    #expect(status == 0)
    #expect(answer["environment"]?.value == .string("Sandbox"))
    guard case .array(let inApp)? = answer["receipt"]?["in_app"]?.value,
      case .array(let latest)? = answer["latest_receipt_info"]?.value,
      case .array(let pending)? = answer["pending_renewal_info"]?.value
    else {
      Issue.record("missing receipt.in_app, latest_receipt_info or pending_renewal_info")
      return
    }
    #expect(inApp.count == 4)  // pro, two renewals, car
    #expect(latest.count == 4)
    #expect(pending.count == 1)
    // The same answer `storesim receipt` prints for the sandbox endpoint.
    #expect(
      try JSONParser.parse(Array(store.receipt(askedAs: .sandbox).rendered(pretty: false).utf8)) == answer)
  }

  /// The server asks whether a target is a verifyReceipt request for every request head it
  /// reads (to pick its body limit), from the target alone: the same answer as routing it.
  @Test(arguments: [
    ("/verifyReceipt", true), ("/sandbox/verifyReceipt", true), ("/verifyReceipt?a=1", true),
    ("/sandbox/verifyReceipt?", true), ("/verifyReceiptX", false), ("/verifyreceipt", false),
    ("/inApps/v1/transactions/1", false), ("/inApps/v1/transactions/1?verifyReceipt", false), ("", false),
  ])
  func aTargetIsAVerifyReceiptEndpointExactlyWhenRoutingSaysSo(target: String, expected: Bool) {
    #expect(VerifyReceipt.isEndpoint(target: target) == expected)
    #expect((VerifyReceipt.endpoint(HTTPRequest(method: "POST", target: target)) != nil) == expected)
  }

  @Test func theHostNameAlsoNamesTheSandbox() throws {
    let store = try Self.store()
    let body = Self.body(["receipt-data": Self.receipt(store)])
    #expect(try Self.verify(store, body, host: "sandbox.itunes.apple.com").0 == 0)
    #expect(try Self.verify(store, body, host: "buy.itunes.apple.com").0 == 21007)
  }

  @Test func aProductionReceiptAtTheSandboxAnswers21008() throws {
    let store = try Self.store(.production)
    let body = Self.body(["receipt-data": Self.receipt(store)])
    #expect(try Self.verify(store, body, path: "/sandbox/verifyReceipt").0 == 21008)
    let (status, answer) = try Self.verify(store, body)
    #expect(status == 0)
    #expect(answer["environment"]?.value == .string("Production"))
  }

  @Test(arguments: [
    ("GET", #"{"receipt-data": "e30="}"#, 21000), ("POST", "not json", 21000), ("POST", "[1]", 21000),
    ("POST", "{}", 21002), ("POST", #"{"receipt-data": 7}"#, 21002), ("POST", #"{"receipt-data": "%%%"}"#, 21002),
    ("POST", #"{"receipt-data": "e30="}"#, 21002),  // {} is not a receipt
  ])
  func malformedRequestsAndReceipts(_ method: String, _ body: String, _ status: Int) throws {
    #expect(try Self.verify(try Self.store(), body, path: "/sandbox/verifyReceipt", method: method).0 == status)
  }

  @Test func theSharedSecretIsCheckedWhenTheServerHasOne() throws {
    let store = try Self.store()
    let data = Self.receipt(store)
    let path = "/sandbox/verifyReceipt"
    #expect(try Self.verify(store, Self.body(["receipt-data": data]), path: path, secret: "s3cret").0 == 21003)
    #expect(
      try Self.verify(
        store, Self.body(["receipt-data": data, "password": .string("nope")]), path: path, secret: "s3cret"
      ).0
        == 21004)
    #expect(
      try Self.verify(
        store, Self.body(["receipt-data": data, "password": .string("s3cret")]), path: path, secret: "s3cret"
      ).0
        == 0)
  }

  @Test func anotherAppsReceiptIsNotAuthenticated() throws {
    let store = try Self.store()
    var other = Store(configuration: Fixtures.configuration, start: Fixtures.start, bundleID: "com.example.other")
    try other.purchase("car")
    let body = Self.body(["receipt-data": Self.receipt(other)])
    #expect(try Self.verify(store, body, path: "/sandbox/verifyReceipt").0 == 21003)
  }

  @Test func aReceiptOfTransactionsNoCustomerOwnsAnswers21010() throws {
    let store = try Self.store()
    var stranger = Store(configuration: Fixtures.configuration, start: Fixtures.start)
    stranger.state.nextTransactionID = 9_000_000_000_000_001
    try stranger.purchase("car")
    let body = Self.body(["receipt-data": Self.receipt(stranger)])
    #expect(try Self.verify(store, body, path: "/sandbox/verifyReceipt").0 == 21010)
  }

  @Test func theReceiptNamesItsCustomer() throws {
    let store = try Self.store()
    let (status, answer) = try Self.verify(
      store, Self.body(["receipt-data": Self.receipt(store, customer: "bob")]), path: "/sandbox/verifyReceipt")
    #expect(status == 0)
    guard case .array(let inApp)? = answer["receipt"]?["in_app"]?.value else {
      Issue.record("no in_app")
      return
    }
    #expect(inApp.count == 1)
    #expect(answer["latest_receipt_info"] == nil)  // no auto-renewable: absent
    // `latest_receipt` is itself receipt-data: a server that stored it verifies it again.
    let (_, first) = try Self.verify(
      store, Self.body(["receipt-data": Self.receipt(store)]), path: "/sandbox/verifyReceipt")
    guard case .string(let latest)? = first["latest_receipt"]?.value else {
      Issue.record("no latest_receipt")
      return
    }
    #expect(
      try Self.verify(store, Self.body(["receipt-data": .string(latest)]), path: "/sandbox/verifyReceipt").0 == 0)
  }

  @Test func excludeOldTransactionsKeepsTheNewestOfEachSubscription() throws {
    let store = try Self.store()
    let (_, answer) = try Self.verify(
      store, Self.body(["receipt-data": Self.receipt(store), "exclude-old-transactions": .bool(true)]),
      path: "/sandbox/verifyReceipt")
    guard case .array(let latest)? = answer["latest_receipt_info"]?.value,
      case .array(let inApp)? = answer["receipt"]?["in_app"]?.value
    else {
      Issue.record("missing latest_receipt_info")
      return
    }
    // Newest first: the car, then the second renewal of pro (not the purchase or the first renewal).
    #expect(latest.map { $0["transaction_id"]?.value } == [.string("2000000000000004"), .string("2000000000000003")])
    #expect(inApp.count == 4)
  }

  @Test func otherPathsAreNotVerifyReceipt() {
    #expect(VerifyReceipt.endpoint(HTTPRequest(method: "POST", target: "/verifyReceipt/x")) == nil)
    #expect(VerifyReceipt.endpoint(HTTPRequest(method: "POST", target: "/inApps/v1/verifyReceipt")) == nil)
    #expect(VerifyReceipt.endpoint(HTTPRequest(method: "POST", target: "/verifyReceipt?x=1")) == .production)
  }
}
