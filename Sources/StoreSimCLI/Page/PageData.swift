import Foundation
import StoreSim
import StoreSimServer
import StoreSimSession

/// What the page reads (docs/page.md): one session's first screen as JSON, a window of each
/// long list at a time, so a session of 100,000 transactions answers as fast as one of ten.
/// Each session's store is kept between reads (its `SessionService`'s snapshot) and read again
/// only when its file changed; `stamp` is the file's identity, which the page polls to notice another
/// process's change. Every name a user wrote goes out as a JSON string: the page shows it as
/// text.
final class PageData: Sendable {
  /// How many rows a window of a list holds.
  static let window = 50
  /// How many notifications a window holds (each is decoded and signed again to be shown).
  static let notificationWindow = 20

  let sessions: ControlSessions

  init(sessions: ControlSessions) { self.sessions = sessions }

  /// The session file's identity as text: it changes whenever the session is saved.
  func stamp(_ id: String) throws(ControlError) -> JSONOutput {
    let location = try sessions.location(id)
    return .object(["stamp": .string(Self.stamp(location))])
  }

  static func stamp(_ location: SessionLocation) -> String {
    guard let i = FileIdentity(location.file) else { return "none" }
    return "\(i.device)-\(i.inode)-\(i.size)-\(i.seconds).\(i.nanoseconds)"
  }

  /// The store of session `id` as its file is now: the snapshot its App Store Server API
  /// answers from (`SessionService.refreshed`), read again only when the file changed, so the
  /// page and the API of `default` share the one read serve made at its start.
  private func reading<T>(
    _ id: String, needsNotifications: Bool, _ body: (Store, SessionLocation) throws -> T
  ) throws -> T {
    let location = try sessions.location(id)
    guard let snapshot = try sessions.service(id).refreshed(needs: needsNotifications) else {
      throw ControlError(409, "refused", "session '\(TerminalText.field(id))' could not be read")
    }
    return try body(snapshot.store, location)
  }

  /// A window of `items`: `{"total", "from", "items"}`.
  static func window<T>(_ items: [T], from: Int, size: Int, _ row: (T) -> JSONOutput) -> JSONOutput {
    let start = max(0, min(from, items.count))
    let end = min(items.count, start + size)
    return .object([
      "total": .int(Int64(items.count)), "from": .int(Int64(start)),
      "items": .array(items[start..<end].map(row)),
    ])
  }

  /// `GET /sessions/{id}/page.json?customer=C&customers=N&transactions=N`.
  func overview(_ id: String, query: [(String, String)]) throws -> JSONOutput {
    func number(_ key: String) -> Int { query.last { $0.0 == key }.flatMap { Int($0.1) } ?? 0 }
    let asked = query.last { $0.0 == "customer" }?.1
    return try reading(id, needsNotifications: false) { store, location in
      let names = store.customerIDs
      let customer =
        asked.map(CustomerID.init(stringLiteral:))
        ?? (store.customer(.default).map { $0.transactions.isEmpty } == false ? .default : names.first ?? .default)
      let own = store.customer(customer)
      let transactions = Array((own?.transactions ?? []).reversed())
      let groups = store.configuration.subscriptionGroups.map(\.id)
      let statuses = own == nil ? [] : groups.flatMap { store.statuses(forGroup: $0, customer: customer) }
      return .object([
        "session": .string(id),
        "sessionFile": .string(id == ControlSessions.defaultName ? location.shown : location.file),
        "stamp": .string(Self.stamp(location)), "now": .int(store.state.now.epochMilliseconds),
        "environment": .string(store.state.environment.rawValue), "bundleId": .string(store.state.bundleID),
        "billingRetry": .bool(store.settings.shouldEnterBillingRetryOnRenewal),
        "askToBuy": .bool(store.settings.askToBuyEnabled),
        "products": .array(
          store.configuration.products.map {
            .object(["productId": .string($0.id), "type": .string($0.type.storeKitName)])
          }),
        "customer": .string(customer.rawValue), "known": .bool(own != nil),
        "customers": Self.window(names, from: number("customers"), size: Self.window) { name in
          .object([
            "customer": .string(name.rawValue),
            "transactions": .int(Int64(store.customer(name)?.transactions.count ?? 0)),
          ])
        },
        "transactions": Self.window(transactions, from: number("transactions"), size: Self.window) {
          store.payload($0, customer: customer)
        },
        "statuses": .array(statuses.map { store.payload($0, customer: customer) }),
        "pending": .array(Self.pending(store)),
      ])
    }
  }

  /// `GET /sessions/{id}/timeline.svg`: `timeline --svg`'s drawing of every subscription.
  func timeline(_ id: String) throws -> String {
    try reading(id, needsNotifications: true) { store, _ in
      TimelinePicture.svg(store: store, groups: store.configuration.subscriptionGroups)
    }
  }

  /// Every customer's open Ask to Buy requests and refund requests, as `pending --json` gives one's.
  static func pending(_ store: Store) -> [JSONOutput] {
    store.pendingRequests().map {
      .object([
        "requestId": .string($0.id), "kind": .string($0.kind.rawValue), "productId": .string($0.productID),
        "customer": .string($0.customer.rawValue), "date": .int($0.date.epochMilliseconds),
      ])
    }
      + store.refundRequests().map {
        .object([
          "requestId": .string($0.id), "kind": .string("refund"), "productId": .string($0.productID),
          "customer": .string($0.customer.rawValue), "date": .int($0.date.epochMilliseconds),
          "transactionId": .string(String($0.transactionID)),
        ])
      }
  }

  /// `GET /sessions/{id}/notifications.json?from=N`: the outbox newest first, each decoded
  /// (`notifications --decoded`) with its delivery attempts.
  func notifications(_ id: String, query: [(String, String)]) throws -> JSONOutput {
    let from = query.last { $0.0 == "from" }.flatMap { Int($0.1) } ?? 0
    return try reading(id, needsNotifications: true) { store, location in
      let log = Dictionary(grouping: store.state.deliveryLog ?? [], by: \.index)
      let indexed = Array(store.notifications.enumerated().reversed())
      return .object([
        "stamp": .string(Self.stamp(location)),
        "notifications": Self.window(indexed, from: from, size: Self.notificationWindow) { index, n in
          .object([
            "index": .int(Int64(index)), "customer": .string(n.customer.rawValue),
            "payload": store.decodedPayload(n),
            "attempts": .array(
              (log[index] ?? []).map { d in
                .object([
                  "url": .string(d.url), "date": .int(d.date.epochMilliseconds),
                  "httpStatus": d.httpStatus.map { .int(Int64($0)) } ?? .null,
                  "error": d.error.map(JSONOutput.string) ?? .null, "result": d.result.map(JSONOutput.string) ?? .null,
                  "origin": d.origin.map { .string($0.rawValue) } ?? .null,
                ])
              }),
          ])
        },
      ])
    }
  }
}
