import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimSync

/// The layers an App Store Server API request passes, in this order, as `storesim serve` and
/// `storesim api` both run them (after the transport's own layers in `serve`: framing, limits,
/// the connection budget), and around them all the log line of `RequestLog` (`serve` unless
/// `--quiet`, `api --log`):
/// 1. `/verifyReceipt` (production or sandbox) is its own endpoint, without a bearer token;
/// 2. routing, once (`ServerAPI.match`);
/// 3. authentication (`Authentication.Gate`), before the session is touched: no token, no read;
/// 4. a path or method that is not an endpoint answers 404 or 405;
/// then the route runs on the session and the token's `bid` is checked against it: in `serve`
/// through `SessionService` (the answer cache, 503 when the session's lock stays taken), in
/// `api` through `ServerAPI.respond`.
package enum APILayers {
  /// What the layers before the session make of a request.
  package enum Admission {
    /// A `/verifyReceipt` request, to the endpoint of an environment.
    case verifyReceipt(StoreEnvironment)
    /// Answered without the session: 401, 404 or 405.
    case refused(APIResponse)
    /// A routed request, with its bearer token when its route needs one and a gate checked it.
    case routed(Route, RouteRequest, Authentication.Token?)
  }

  /// Layers 1 to 4. `gate` nil: the caller is trusted (`api` without `--authorization`).
  package static func admit(_ request: HTTPRequest, gate: Authentication.Gate?, now: () -> Date) -> Admission {
    if let endpoint = VerifyReceipt.endpoint(request) { return .verifyReceipt(endpoint) }
    let match = ServerAPI.match(request)
    var token: Authentication.Token?
    if let gate, match.route?.needs.contains(.bearerToken) ?? true {
      switch gate.token(request.headers["authorization"], now: now()) {
      case .failure(let refusal): return .refused(.unauthenticated(refusal.text))
      case .success(let t): token = t
      }
    }
    if let refusal = ServerAPI.unrouted(request, match) { return .refused(refusal) }
    guard case .found(let route, let routed) = match else { return .refused(.error(.generalInternal)) }
    return .routed(route, routed, token)
  }
}

extension Authentication {
  /// The authentication layer: the one way a bearer token is checked, for `serve` and `api`
  /// (`Authentication.token`, with the team's key when given). A token accepted once is
  /// accepted again until its exp without decoding it again (clients send the same token for
  /// many requests).
  package final class Gate: Sendable {
    package let key: Key?
    /// The last token accepted, and until when (its exp).
    private let accepted = Mutex<(header: String, token: Token)?>(nil)

    package init(key: Key?) { self.key = key }

    /// The bearer token of an `Authorization` header, its shape and claims checked (the `bid`
    /// is checked against the session later, `Token.refusal(for:)`).
    package func token(_ header: String?, now: Date) -> Result<Token, Refusal> {
      if let header, let a = accepted.current, a.header == header, now.timeIntervalSince1970 < a.token.expiry {
        return .success(a.token)
      }
      let result = Authentication.token(header, now: now, key: key)
      if let header, case .success(let token) = result { accepted.withLock { $0 = (header, token) } }
      return result
    }

    /// nil when the header carries an acceptable token for `bundleID`, else the reason it does not.
    package func check(_ header: String?, bundleID: String, now: Date) -> String? {
      switch token(header, now: now) {
      case .failure(let reason): return reason.text
      case .success(let token): return token.refusal(for: bundleID)
      }
    }
  }
}
