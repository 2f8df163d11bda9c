import Foundation
import StoreSim

// MARK: - Checking against the session

extension Expectation {
  /// nil when the expectation holds, else "expected ..., got ...". `lastError` is the failure
  /// of the command before, for `expect error`.
  func failure(
    in memory: MemorySession, lastError: (line: Int, message: String)?, customer: CustomerID = .default
  ) -> String? {
    if case .error(let text) = self {
      guard let lastError else { return "expected an error containing '\(text)', got success" }
      return lastError.message.contains(text)
        ? nil : "expected an error containing '\(text)', got '\(lastError.message)'"
    }
    guard let store = memory.store else { return "expected \(kind.name), got no session (start with init)" }
    if kind.takesCustomer, !store.hasCustomer(customer) {
      return Suggest.appending(
        to: "expected \(kind.name) for customer '\(customer)', got no customer named '\(customer)'",
        for: customer.rawValue, in: store.customerIDs.map(\.rawValue))
    }
    // " for kid" when the expectation names a customer other than the default one.
    let of = customer == .default ? "" : " for \(customer)"
    switch self {
    case .result(let result):
      let got = memory.lastPurchaseResult ?? "no purchase yet"
      return got == result.rawValue ? nil : "expected result \(result.rawValue), got \(got)"
    case .entitled(let product): return entitlementFailure(product, expected: true, store: store, customer: customer)
    case .notEntitled(let product):
      return entitlementFailure(product, expected: false, store: store, customer: customer)
    case .state(let subject, let state):
      guard let group = SubscriptionSubject.group(subject, in: store.configuration) else {
        return "expected \(subject) to be \(state.rawValue), got no such group or subscription"
      }
      let statuses = store.statuses(forGroup: group, customer: customer)
      let got = (statuses.first { !$0.isFamilyShared } ?? statuses.first)?.state.rawValue ?? "never subscribed"
      return got == state.rawValue ? nil : "expected \(subject) to be \(state.rawValue)\(of), got \(got)"
    case .pending(let count):
      let got = store.pendingRequests(customer: customer).count + store.refundRequests(customer: customer).count
      return got == count.value ? nil : "expected \(count.text) pending\(of), got \(got)"
    case .transactions(let count, let product):
      var list = store.allTransactions(customer: customer)
      if let product { list = list.filter { $0.productID == product } }
      let ofProduct = product.map { " of \($0)" } ?? ""
      return list.count == count.value ? nil : "expected \(count.text) transactions\(ofProduct)\(of), got \(list.count)"
    case .latest(let product, let field, let value):
      let written = "latest \(product) \(field) \(value)\(of)"
      guard let t = store.latestTransaction(for: product, customer: customer) else {
        return "expected \(written), got no transaction"
      }
      return WireValue.compare(value, WireValue.field(store.payload(t, customer: customer), field), written)
    case .renewal(let subject, let field, let value):
      let written = "renewal \(subject) \(field) \(value)\(of)"
      guard let group = SubscriptionSubject.group(subject, in: store.configuration),
        let s = store.statuses(forGroup: group, customer: customer).first
      else {
        return "expected \(written), got no subscription"
      }
      return WireValue.compare(value, WireValue.field(store.payload(s.renewalInfo, customer: customer), field), written)
    case .notification(let type, let subtype):
      let expected = ServerNotification.name(type, subtype)
      guard let n = store.notifications.last else { return "expected notification \(expected), got none" }
      return n.notificationType == type && n.subtype == subtype
        ? nil : "expected notification \(expected), got \(n.name)"
    case .receipt(let status, let endpoint):
      guard case .int(let got)? = store.receipt(customer: customer, askedAs: endpoint)["status"] else {
        return "expected receipt status \(status.text)\(of), got none"
      }
      return got == status.value ? nil : "expected receipt status \(status.text)\(of), got \(got)"
    case .retention(let field, let value):
      let calls = store.retentionMessaging.calls.filter { $0.customer == customer }
      if field == .requests {
        return String(calls.count) == value ? nil : "expected retention requests \(value)\(of), got \(calls.count)"
      }
      guard let call = calls.last else {
        return "expected retention \(field.rawValue) \(value)\(of), got no retention request"
      }
      let got = field.value(call)
      return field.matches(value, got)
        ? nil : "expected retention \(field.rawValue) \(value)\(of), got \(got ?? "none")"
    case .delivery(let field, let value):
      return field.mismatch(value, store: store).map { "expected delivery \(field.rawValue) \(value), got \($0)" }
    case .now(let date):
      return date.value == store.now ? nil : "expected now \(date.text), got \(ISO8601.string(store.now))"
    case .error:
      return nil  // answered above
    }
  }
}

extension Expectation {
  /// `expect entitled|not-entitled PRODUCT [--customer NAME]`.
  fileprivate func entitlementFailure(
    _ product: ProductID, expected: Bool, store: Store, customer: CustomerID
  ) -> String? {
    if store.configuration.product(product) == nil {
      return "expected \(kind.name) \(product), got unknown product '\(product)'"
    }
    let of = customer == .default ? "" : " for \(customer)"
    let entitled = store.isEntitled(to: product, customer: customer)
    if expected { return entitled ? nil : "expected \(product) to be entitled\(of), got not entitled" }
    return entitled ? "expected \(product) not to be entitled\(of), got entitled" : nil
  }
}

/// A field of a wire payload as text, compared with the value an expectation wrote.
enum WireValue {
  /// The field's value as text: `absent` when omitted, arrays comma-separated.
  static func field(_ json: JSONOutput?, _ name: String) -> String {
    // `commitmentInfo.billingPeriodNumber`: a field of a nested object.
    if let dot = name.firstIndex(of: ".") {
      return field(json?[String(name[..<dot])], String(name[name.index(after: dot)...]))
    }
    switch json?[name] {
    case nil: return "absent"
    case .string(let s)?: return s
    case .int(let i)?: return String(i)
    case .number(let n)?: return n
    case .bool(let b)?: return b ? "true" : "false"
    case .null?: return "null"
    case .array(let items)?:
      return items.map { item -> String in
        if case .string(let t) = item { return t }; return item.rendered(pretty: false)
      }.joined(separator: ",")
    default: return json![name]!.rendered(pretty: false)
    }
  }

  /// nil when `actual` is `expected` (a date written as ISO 8601 matches its milliseconds),
  /// else "expected WRITTEN, got ACTUAL".
  static func compare(_ expected: String, _ actual: String, _ written: String) -> String? {
    same(expected, actual) ? nil : "expected \(written), got \(shown(expected, actual))"
  }

  static func same(_ expected: String, _ actual: String) -> Bool {
    if expected == actual { return true }
    if let e = try? ValueParsing.date(expected), let a = Int64(actual) {
      return e.epochMilliseconds == a
    }
    return false
  }

  /// The actual value in the form the expectation used: a date written as ISO 8601 is
  /// answered in ISO 8601 (as a day when the expectation gave a day and it is midnight).
  static func shown(_ expected: String, _ actual: String) -> String {
    guard Int64(expected) == nil, (try? ValueParsing.date(expected)) != nil, let ms = Int64(actual) else {
      return actual
    }
    let text = ISO8601.string(Date(timeIntervalSince1970: Double(ms) / 1000))
    if !expected.contains("T") && !expected.contains(" "), text.hasSuffix("T00:00:00Z") {
      return String(text.prefix(10))
    }
    return text
  }
}
