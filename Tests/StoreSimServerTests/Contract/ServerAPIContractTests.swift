import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimHTTP
@testable import StoreSimServer
@testable import StoreSimServerTestSupport
@testable import StoreSimTestSupport

/// One row of docs/server-api.md: a request to `storesim serve` and what it must answer.
struct ContractRow: Sendable, CustomTestStringConvertible {
  /// The endpoint's route pattern, as the table and `ServerAPI.routes` write it.
  var endpoint: String
  /// The table's entry this row proves: an Apple error code, a status ("200", "202"), or a
  /// name for an error Apple gives no number for.
  var entry: String
  var method: String
  var target: String
  var body: String?
  /// A binary body sent as `image/png` (Upload Image) instead of `body`.
  var png: [UInt8]? = nil
  /// Requests made first (method, target, body), each expected to succeed.
  var setup: [(String, String, String?)] = []
  var status: Int
  var errorCode: Int?
  /// A further check of the answer and the session after it.
  var check: (@Sendable (LiveServer.Answer, LiveServer) throws -> Bool)? = nil
  /// Changes the session before the requests (what no request can do).
  var prepare: (@Sendable (LiveServer) throws -> Void)? = nil
  /// The target, from the answers to the setup requests (a token one of them returned).
  var resolve: (@Sendable ([LiveServer.Answer]) -> String)? = nil

  var testDescription: String { "\(method) \(endpoint) → \(entry)" }
}

@Suite struct ServerAPIContractTests {
  static let any = "2000000000000001"
  static let renewal = "2000000000000007"
  static let lifetime = "2000000000000002"
  static let coins = "2000000000000004"
  static let refunded = "2000000000000003"
  static let kidCopy = "2000000000000005"
  static let kidLifetime = "2000000000000006"
  static let trial = "2000000000000009"
  static let appTransactionID = "704000000000000001"
  static let unknown = "2000000000000999"
  static let mass = "5A0D1E4B-3F06-4C9B-9E57-6F6E2C1D0A11"
  static let start = 1_767_225_600_000 + 8 * 86_400_000 - 29 * 86_400_000
  static let end = 4_102_444_800_000

  static func decoded(_ node: JSONNode?) -> JSONNode? { ServerAPICall.decoded(node) }

  static func history(_ a: LiveServer.Answer) -> [String] {
    ServerAPICall.array(a.json?["signedTransactions"]).compactMap {
      ServerAPICall.string(decoded($0)?["transactionId"])
    }
  }

  static func extend(_ days: Int = 5, reason: Int = 1, request: String = "r1") -> String {
    #"{"extendByDays":\#(days),"extendReasonCode":\#(reason),"requestIdentifier":"\#(request)"}"#
  }

  static func massBody(
    _ days: Int = 3, request: String = mass, product: String = "com.example.premium.monthly"
  )
    -> String
  {
    #"{"extendByDays":\#(days),"extendReasonCode":3,"requestIdentifier":"\#(request)","productId":"\#(product)"}"#
  }

  static let v1 =
    #"{"customerConsented":true,"consumptionStatus":1,"platform":1,"sampleContentProvided":true,"deliveryStatus":0,"appAccountToken":"","accountTenure":2,"playTime":3,"lifetimeDollarsRefunded":0,"lifetimeDollarsPurchased":4,"userStatus":1,"refundPreference":2}"#
  static func v1(_ field: String, _ value: String) -> String {
    let pattern = try! NSRegularExpression(pattern: #""\#(field)":[^,}]*"#)
    return pattern.stringByReplacingMatches(
      in: v1, range: NSRange(v1.startIndex..., in: v1), withTemplate: #""\#(field)":\#(value)"#)
  }
  static func v2(_ extra: String = "", delivery: String = "DELIVERED", consented: String = "true") -> String {
    #"{"customerConsented":\#(consented),"sampleContentProvided":false,"deliveryStatus":"\#(delivery)"\#(extra)}"#
  }
  static func notes(_ extra: String = "", start: Int = start, end: Int = end) -> String {
    #"{"startDate":\#(start),"endDate":\#(end)\#(extra)}"#
  }

  static let rows: [ContractRow] =
    transactionRows + historyRows + notificationRows + extensionRows + writingRows + messagingRows
}

extension ServerAPIContractTests {
  /// Each row: set up, make the request, check status, `errorCode` (absent where the row says
  /// none) and the row's own check.
  @Test(arguments: rows)
  func row(_ row: ContractRow) throws {
    let server = try LiveServer(copying: ContractFixture.session)
    try row.prepare?(server)
    var answers: [LiveServer.Answer] = []
    for (method, target, body) in row.setup {
      let a = try server.request(method, target, body: body)
      #expect((200...299).contains(a.status), "setup \(method) \(target): \(a.status) \(a.body)")
      answers.append(a)
    }
    let answer = try server.request(row.method, row.resolve?(answers) ?? row.target, body: row.body, png: row.png)
    #expect(answer.status == row.status, "\(answer.body)")
    #expect(answer.errorCode == row.errorCode, "\(answer.body)")
    if answer.status >= 400, answer.status != 401 {
      #expect(answer.headers["content-type"] == "application/json")
      #expect(answer.json?["errorMessage"] != nil, "\(answer.body)")
    }
    if let check = row.check { #expect(try check(answer, server), "\(answer.body)") }
  }

  /// Every route answers 401 without a token, in plain text with no `errorCode`, and without
  /// reading the session (it is removed first).
  @Test func everyEndpointAnswers401WithoutATokenBeforeReadingTheSession() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    try FileManager.default.removeItem(atPath: server.location.file)
    for route in ServerAPI.routes {
      let target = route.path.replacingOccurrences(
        of: #"\{[A-Za-z]+\}"#, with: "2000000000000001", options: .regularExpression)
      let a = try server.request(route.method, target, body: route.method == "GET" ? nil : "{}", auth: nil)
      #expect(a.status == 401, "\(route.method) \(route.path)")
      #expect(a.headers["content-type"]?.hasPrefix("text/plain") == true)
      #expect(a.errorCode == nil && a.body.hasPrefix("Unauthenticated"), "\(a.body)")
      #expect(!a.body.contains(server.folder))
    }
  }

  /// The table in docs/server-api.md and the rows here list the same (endpoint, entry) pairs,
  /// apart from the entries the table marks † (not produced by storesim, said why there).
  @Test func theDocumentedTableIsTheTestedOne() throws {
    let url = Fixtures.projectRoot.appendingPathComponent("docs/server-api.md")
    let text = try String(contentsOf: url, encoding: .utf8)
    var documented: Set<String> = []
    var endpoints: Set<String> = []
    for line in text.split(separator: "\n") where line.hasPrefix("| ") {
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard cells.count >= 6, cells[2].hasPrefix("`"), cells[3].hasPrefix("served") else { continue }
      let parts = cells[2].trimmingCharacters(in: CharacterSet(charactersIn: "`")).split(separator: " ")
      guard parts.count == 2 else { continue }
      let endpoint = "\(parts[0]) \(parts[1])"
      endpoints.insert(endpoint)
      for entry in cells[5].split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
      where !entry.isEmpty && !entry.hasSuffix("†") && entry != "401" {
        documented.insert("\(endpoint) \(entry)")
      }
    }
    let tested = Set(Self.rows.map { "\($0.method) \($0.endpoint) \($0.entry)" })
    #expect(endpoints == Set(ServerAPI.routes.map { "\($0.method) \($0.path)" }))
    #expect(documented.subtracting(tested).sorted() == [], "documented but not tested")
    #expect(tested.subtracting(documented).sorted() == [], "tested but not documented")
  }
}
