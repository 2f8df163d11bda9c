import Foundation
import StoreSimSync
import Testing

@testable import StoreSim
@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport
@testable import StoreSimServer
@testable import StoreSimServerTestSupport
@testable import StoreSimSession
@testable import StoreSimTestSupport

/// `storesim serve` as a test talks to it: a copy of a session, its `SessionService` behind an
/// `HTTPServer` on 127.0.0.1 port 0, and raw HTTP/1.1 requests.
final class LiveServer: @unchecked Sendable {
  /// A request the server did not answer.
  struct NoAnswer: Error {
    var request: String
  }

  /// The wall clock of every live server.
  static let wallClock = Date(timeIntervalSince1970: 1_767_225_600)
  /// A bearer token shaped as Apple's libraries make it, for `com.example.app`.
  static let token = ServerAPICall.token(exp: 1_767_225_600 + 900)

  let folder: String
  let location: SessionLocation
  let service: SessionService
  let running: RunningHTTPServer
  let warnings = Warnings()

  final class Warnings: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ s: String) { lock.withLock { lines.append(s) } }
    var all: [String] { lock.withLock { lines } }
  }

  /// Serves a copy of the session file at `session` (its configuration stays where it is).
  init(
    copying session: String, lockWait: TimeInterval = 3, cacheAnswers: Bool = false, waitClock: WaitClock = .system
  ) throws {
    folder = NSTemporaryDirectory() + "storesim-live-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let file = folder + "/session.json"
    try FileManager.default.copyItem(atPath: session, toPath: file)
    location = try SessionLocation(shown: file, resolve: { $0 })
    let warnings = self.warnings
    service = SessionService(
      location: location, now: { LiveServer.wallClock }, warning: { warnings.append($0) }, lockWait: lockWait,
      cacheAnswers: cacheAnswers,
      waitClock: waitClock)
    let service = self.service
    // As `storesim serve`: kept answers are given on the event loop, and the transport reads
    // the service's clock (a request's arrival is compared with the service's look at the file).
    let quick: HTTPServer.QuickHandler? = cacheAnswers ? { @Sendable in service.quickAnswer($0) } : nil
    running = try RunningHTTPServer(clock: service.clock, quickHandler: quick) { service.answer($0) }
  }

  deinit {
    running.stop()
    try? FileManager.default.removeItem(atPath: folder)
  }

  var port: Int { running.server.port }

  struct Answer {
    var status: Int
    var headers: [String: String]
    var body: String
    var json: JSONNode? { try? JSONParser.parse(Array(body.utf8)) }
    /// `errorCode` of a JSON error body (nil when there is none).
    var errorCode: Int? {
      guard let node = json?["errorCode"], case .number(let n) = node.value else { return nil }
      return Int(n)
    }
  }

  /// One request on a new connection; `auth` nil sends no Authorization header.
  /// `png`, when given, is sent as the body with `Content-Type: image/png` instead of `body`.
  func request(
    _ method: String, _ target: String, body: String? = nil, png: [UInt8]? = nil, auth: String? = LiveServer.token
  ) throws
    -> Answer
  {
    let client = try HTTPTestClient(port: port)
    var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    if let auth { text += "Authorization: \(auth)\r\n" }
    if let png {
      text += "Content-Type: image/png\r\nContent-Length: \(png.count)\r\n\r\n"
      client.send(bytes: Array(text.utf8) + png)
      guard let r = client.response() else { throw NoAnswer(request: "\(method) \(target)") }
      return Answer(status: r.status, headers: r.headers, body: r.body)
    }
    if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
    text += "\r\n" + (body ?? "")
    client.send(text)
    guard let r = client.response() else { throw NoAnswer(request: "\(method) \(target)") }
    return Answer(status: r.status, headers: r.headers, body: r.body)
  }

  /// The store in the session file now.
  func store() throws -> Store { Store(state: try SessionFile.read(location.file, shownAs: location.shown).state) }
}

/// The session every contract test starts from (built once through the core and the session
/// store, as `init`, `buy`, `family add`, `advance`, `refund`, `notifications deliver` and
/// `settings deliver-url` would; copied per test): Premium.storekit, bundle id com.example.app,
/// started 2026-01-01, now 2026-01-09.
///
/// - default: 2000000000000001 monthly (free trial, then renewed at full price on 01-08 as
///   2000000000000007: a paid period), 2000000000000002 lifetime (non-consumable),
///   2000000000000003 and 2000000000000004 coins (consumables; 3 refunded, 4 has a refund
///   request); appTransactionId 704000000000000001.
/// - kid (family of default): 2000000000000005 monthly copy, 2000000000000006 lifetime copy,
///   2000000000000008 renewal copy.
/// - trial: 2000000000000009 quarterly in its free trial.
/// Every notification has one failed delivery attempt (to 127.0.0.1:9); the delivery URL is
/// that dead port, so a test notification can be requested.
enum ContractFixture {
  static let deadURL = "http://127.0.0.1:9/"

  static let session: String = {
    let folder = NSTemporaryDirectory() + "storesim-contract-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let configuration = Fixtures.projectRoot.appendingPathComponent("Configurations/Premium.storekit").path
    let data = try! Data(contentsOf: URL(fileURLWithPath: configuration))
    var store = Store(
      configuration: try! ConfigurationReader.read(data).configuration, start: Fixtures.start,
      bundleID: "com.example.app", environment: .xcode)
    for product in [
      "com.example.premium.monthly", "com.example.premium.lifetime", "com.example.coins.100", "com.example.coins.100",
    ] {
      try! store.purchase(product)
    }
    try! store.addFamilyMember(CustomerID("kid"), to: .default)
    try! store.advance(by: 8 * 86_400)
    try! store.addCustomer(CustomerID("trial"))
    try! store.purchase("com.example.premium.quarterly", customer: CustomerID("trial"))
    try! store.refund(2_000_000_000_000_003)
    try! store.requestRefund(2_000_000_000_000_004)
    // Every notification so far, posted to a port nothing listens on: one failed attempt each.
    let planned = PlannedDeliveries(store, indexes: store.undelivered(to: deadURL).new.sorted(), to: deadURL)
    _ = Delivery.deliver(planned) { record in record(&store) }
    store.setDeliveryURL(deadURL)
    let document = SessionDocument(
      format: SessionDocument.formatName, version: SessionDocument.currentVersion, configurationPath: configuration,
      configurationDigest: SessionFileFormat.digest(data), state: store.state)
    let location = try! SessionLocation(shown: folder + "/session.json", resolve: { $0 })
    try! SessionFile.write(document, to: location)
    return location.file
  }()
}

extension LiveServer {
  /// Changes the session file as a command would (under no server request).
  func change(_ body: (inout Store) throws -> Void) throws {
    var document = try SessionFile.read(location.file, shownAs: location.shown)
    var store = Store(state: document.state)
    try body(&store)
    document.state = store.state
    try SessionFile.write(document, to: location)
  }
}
