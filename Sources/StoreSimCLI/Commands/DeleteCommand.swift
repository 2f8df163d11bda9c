import Foundation
import StoreSim

/// `storesim delete TXN`: `SKTestSession.deleteTransaction(identifier:)`, which Xcode's
/// Transaction Manager offers on a row.
/// `delete`: `SKTestSession.deleteTransaction(identifier:)`.
struct DeleteCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "delete", group: "Purchases",
    abstract: "Delete a transaction (deleteTransaction(identifier:)), so a test can run again",
    arguments: "<transaction-id>",
    discussion:
      "An original subscription purchase takes its renewals and the subscription with it, and makes the group's "
      + "introductory offer available again; family-shared copies go too. No notification is sent and the app is "
      + "not told (as in Xcode).",
    example: "storesim delete 2000000000000001")

  @Arguments(1...1, "transaction id")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    let id = try ValueParsing.transactionID(arguments[0])
    return try SessionContext.with(inv, mutating: true) { store in
      let customer = SessionContext.customer(inv)
      let before = Set(store.customer(customer)?.transactions.map(\.id) ?? [])
      try store.deleteTransaction(id, customer: customer)
      let after = Set(store.customer(customer)?.transactions.map(\.id) ?? [])
      let deleted = before.subtracting(after).sorted()
      let others = deleted.count - 1
      inv.emit(
        json: .object(["deleted": .array(deleted.map { .string(String($0)) })]),
        line: "deleted transaction \(id)" + (others > 0 ? " and its \(others) renewal\(others == 1 ? "" : "s")" : ""))
      return .success
    }
  }
}
