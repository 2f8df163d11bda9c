import Foundation
import StoreSim

/// Order ids: every purchase (not a renewal) has one, derived from its transaction id, in the
/// shape of Apple's (`M` and base-36 capitals: `MQ8YV0J3K1`).
package enum OrderID {
  package static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")

  package static func hasOrder(_ t: Transaction) -> Bool {
    t.reason == .purchase && t.ownershipType == .purchased
  }

  package static func of(_ t: Transaction) -> String? {
    guard hasOrder(t) else { return nil }
    return string(t.id)
  }

  package static func string(_ id: TransactionID) -> String {
    var n = id
    var out: [Character] = []
    repeat {
      out.append(digits[Int(n % 36)])
      n /= 36
    } while n > 0
    return "M" + String(out.reversed())
  }

  package static func transactionID(_ order: String) -> TransactionID? {
    guard order.hasPrefix("M"), order.count > 1, order.count <= 14 else { return nil }
    var n: TransactionID = 0
    for ch in order.dropFirst() {
      guard let d = digits.firstIndex(of: ch) else { return nil }
      let (m, o1) = n.multipliedReportingOverflow(by: 36)
      let (s, o2) = m.addingReportingOverflow(TransactionID(d))
      if o1 || o2 { return nil }
      n = s
    }
    return n
  }
}
