import Foundation
import StoreSim
import StoreSimHTTP

/// One endpoint: its method, its path pattern (`{name}` segments are parameters), whether
/// answering it changes the session, what answering it needs, and the function that answers.
///
/// A route is one value in `ServerAPI.routes`; the server takes the session's write lock for
/// the routes that change it, reads the notification outbox only for the routes that need it,
/// and checks the bearer token only where the route asks for one.
package struct Route: Sendable {
  package typealias Handler = @Sendable (RouteRequest, Store) throws -> APIResponse

  /// What answering a request needs besides the store's customers and transactions.
  package struct Needs: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// The notification outbox (notification history, test notifications).
    package static let notifications = Needs(rawValue: 1 << 0)
    /// Apple's bearer token (an App Store Server API JWT); without an acceptable one, 401.
    package static let bearerToken = Needs(rawValue: 1 << 1)
    /// Only the customer holding the path's `{transactionId}`: answerable from that customer's
    /// row alone while a large session is still being read (`SessionService.checkHead`).
    package static let oneCustomer = Needs(rawValue: 1 << 2)
    /// With `oneCustomer`: the customers who shared the family copies the customer holds, too
    /// (a member's subscription statuses come from the organiser's subscription), so a customer
    /// holding such copies is not answered from their row alone.
    package static let familyOwners = Needs(rawValue: 1 << 3)
  }

  package var method: String
  /// The path pattern, e.g. `/inApps/v1/transactions/{transactionId}`.
  package var path: String
  /// Whether answering may change the session (it is then answered under the write lock).
  package var changesSession: Bool
  package var needs: Needs
  package var handler: Handler
  /// The pattern's segments: a literal, or nil for a parameter (named in `parameterNames`).
  let literals: [String?]
  let parameterNames: [String]

  package init(_ method: String, _ path: String, changesSession: Bool, needs: Needs, _ handler: @escaping Handler) {
    self.method = method
    self.path = path
    self.changesSession = changesSession
    // A request that changes the session saves all of it, outbox included.
    self.needs = changesSession ? needs.union(.notifications) : needs
    self.handler = handler
    var literals: [String?] = []
    var names: [String] = []
    for segment in path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
      if segment.hasPrefix("{") && segment.hasSuffix("}") {
        literals.append(nil)
        names.append(String(segment.dropFirst().dropLast()))
      } else {
        literals.append(String(segment))
      }
    }
    self.literals = literals
    parameterNames = names
  }

  /// A route that only reads the session.
  package static func reads(
    _ method: String, _ path: String, needs: Needs = [.bearerToken], _ handler: @escaping Handler
  ) -> Route {
    Route(method, path, changesSession: false, needs: needs, handler)
  }

  /// A route that may change the session.
  package static func changes(
    _ method: String, _ path: String, needs: Needs = [.bearerToken], _ handler: @escaping Handler
  ) -> Route {
    Route(method, path, changesSession: true, needs: needs, handler)
  }

  /// The path parameters when `segments` match the pattern (nil otherwise).
  func parameters(_ segments: [Substring]) -> [String: String]? {
    // Literals are ASCII without the few letters another character is canonically equivalent
    // to (K, `;`, `` ` ``), so comparing bytes is comparing strings.
    guard segments.count == literals.count,
      zip(segments, literals).allSatisfy({ segment, literal in
        literal.map { segment.utf8.elementsEqual($0.utf8) } ?? !segment.isEmpty
      })
    else { return nil }
    var values: [String: String] = [:]
    var name = parameterNames.makeIterator()
    for (segment, literal) in zip(segments, literals) {
      if let literal {
        guard segment == literal else { return nil }
      } else {
        guard !segment.isEmpty, let n = name.next() else { return nil }
        values[n] = String(segment)
      }
    }
    return values
  }

  /// How many of the pattern's segments are literals: the most literal pattern wins.
  var specificity: Int { literals.count { $0 != nil } }
}

/// A request matched to a route: the HTTP request and the values of the path's parameters.
package struct RouteRequest: Sendable {
  package var http: HTTPRequest
  package var parameters: [String: String]

  package init(_ http: HTTPRequest, parameters: [String: String] = [:]) {
    self.http = http
    self.parameters = parameters
  }

  /// A path parameter (the route's pattern names it, so it is always there).
  package subscript(_ name: String) -> String { parameters[name] ?? "" }
  package func value(_ name: String) -> String? { http.value(name) }
  package func values(_ name: String) -> [String] { http.values(name) }
  package var body: [UInt8] { http.body }
}

/// What a request's method and path select in a route table.
package enum RouteMatch: Sendable {
  case found(Route, RouteRequest)
  /// No pattern matches the path.
  case notFound
  /// The most specific patterns matching the path take other methods (listed).
  case methodNotAllowed([String])

  /// Finds the route for a request: among the patterns matching its path, the most literal
  /// ones; among those, the one for its method.
  package init(_ request: HTTPRequest, in routes: [Route]) {
    guard request.path.hasPrefix("/") else {
      self = .notFound
      return
    }
    let segments = request.path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
      .dropFirst().map { Substring($0) }
    var best: [(Route, [String: String])] = []
    for route in routes {
      guard let parameters = route.parameters(segments) else { continue }
      if let first = best.first {
        if route.specificity < first.0.specificity { continue }
        if route.specificity > first.0.specificity { best = [] }
      }
      best.append((route, parameters))
    }
    guard !best.isEmpty else {
      self = .notFound
      return
    }
    if let (route, parameters) = best.first(where: { $0.0.method == request.method }) {
      self = .found(route, RouteRequest(request, parameters: parameters))
    } else {
      self = .methodNotAllowed(best.map(\.0.method))
    }
  }

  /// The route found (nil for an unknown path or method).
  package var route: Route? {
    if case .found(let route, _) = self { return route }
    return nil
  }
}
