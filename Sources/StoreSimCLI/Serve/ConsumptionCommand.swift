import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer

/// `storesim consumption`.
struct ConsumptionCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "consumption", group: "Server",
    abstract: "Consumption information sent through the Server API",
    discussion: """
      Lists what PUT /inApps/v1|v2/transactions/consumption/{transactionId} recorded: the
      transaction, the body's version and fields, and the refund request (CONSUMPTION_REQUEST)
      it answered, if one was pending.
      """,
    example: "storesim consumption --json")

  @Arguments(0...0, "")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    try inspecting(inv, needsNotifications: false) { store, _ in
      let list = store.serverRecords.consumption
      inv.emit(
        json: .array(
          list.map { c in
            .object([
              "transactionId": .string(String(c.transactionID)), "customer": .string(c.customer.rawValue),
              "version": .int(Int64(c.version)),
              "date": .int(c.date.epochMilliseconds),
              "refundRequestId": c.refundRequestID.map(JSONOutput.string),
              "fields": .object(c.fields.mapValues { JSONOutput.number($0) }),
            ])
          })
      ) {
        guard !list.isEmpty else { return inv.out("(none)") }
        inv.out(
          Table.render(
            [["TRANSACTION", "CUSTOMER", "SENT", "VERSION", "ANSWERS", "FIELDS"]]
              + list.map { c in
                [
                  String(c.transactionID), c.customer.rawValue, ISO8601.string(c.date), "v\(c.version)",
                  c.refundRequestID ?? "-",
                  c.fields.keys.sorted().map { "\($0)=\(c.fields[$0]!)" }.joined(separator: " "),
                ]
              }))
      }
      return .success
    }
  }
}
