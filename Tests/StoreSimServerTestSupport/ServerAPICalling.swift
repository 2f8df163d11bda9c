import Foundation
import StoreSim
import StoreSimCrypto
import StoreSimHTTP
import StoreSimServer
import StoreSimTestSupport

/// The App Store Server API called as a pure function (`ServerAPI.respond`), and readers for its
/// answers. A suite that conforms calls them as its own (`Self.call`); others say `ServerAPICall`.
protocol ServerAPICalling {}

/// The calls and readers of `ServerAPICalling`, for code that is not a conforming suite.
enum ServerAPICall: ServerAPICalling {}

extension ServerAPICalling {
  static var wallClock: Date { Date(timeIntervalSince1970: 1_800_000_000) }

  /// A bearer token shaped as Apple's libraries make it (the signature is not checked).
  static func token(
    alg: String = "ES256", kid: String? = "KEY123", bid: String = "com.example.app", aud: String = "appstoreconnect-v1",
    iat: Double? = nil, exp: Double = 1_800_000_000 + 300
  ) -> String {
    var header: [String: JSONOutput] = ["alg": .string(alg), "typ": .string("JWT")]
    if let kid { header["kid"] = .string(kid) }
    var payload: [String: JSONOutput] = [
      "iss": .string("issuer"), "aud": .string(aud), "bid": .string(bid), "exp": .int(Int64(exp)),
    ]
    if let iat { payload["iat"] = .int(Int64(iat)) }
    let h = JWS.base64URL(Array(JSONOutput.object(header).rendered(pretty: false).utf8))
    let p = JWS.base64URL(Array(JSONOutput.object(payload).rendered(pretty: false).utf8))
    return "Bearer \(h).\(p).c2lnbmF0dXJl"
  }

  static func call(
    _ store: Store, _ method: String, _ target: String, body: String = "", auth: String? = token()
  ) -> (Int, JSONNode) {
    var headers: [String: String] = [:]
    if let auth { headers["authorization"] = auth }
    let r = ServerAPI.respond(
      HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8)), store: store,
      now: wallClock
    )
    return (r.status, (try? JSONParser.parse(Array(r.body.utf8))) ?? (try! JSONParser.parse(Array("null".utf8))))
  }

  static func decoded(_ jws: JSONNode?) -> JSONNode? {
    guard let jws, case .string(let s) = jws.value, let bytes = JWS.payload(of: s) else {
      return nil
    }
    return try? JSONParser.parse(bytes)
  }

  static func string(_ node: JSONNode?) -> String? {
    if let node, case .string(let s) = node.value { return s }
    return nil
  }

  static func array(_ node: JSONNode?) -> [JSONNode] {
    if let node, case .array(let a) = node.value { return a }
    return []
  }

  /// 1 subscription bought and renewed twice, then 25 unfinished consumables.
  static func store() throws -> Store {
    var store = Store(configuration: Fixtures.configuration, start: Fixtures.start)
    try store.purchase("pro")
    _ = try store.advance(by: 62 * 86_400)
    for _ in 0..<25 { try store.purchase("fuel") }
    return store
  }

  /// The `errorCode` of a JSON error body (nil when there is none).
  static func code(_ r: APIResponse) -> String? {
    (try? JSONParser.parse(Array(r.body.utf8)))?["errorCode"].flatMap {
      if case .number(let n) = $0.value { return n } else { return nil }
    }
  }
}
