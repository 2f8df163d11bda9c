import Foundation

/// `storesim manage`: the registration; the manager itself is `ManageApp`.
struct ManageCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "manage", group: "Scripts and exploration",
    abstract: "A full-screen transaction manager for the session (like Xcode's)",
    discussion: """
      Every customer's transactions and requests, newest first, grouped by subscription group and
      product, with their states; Enter shows what the app receives (the transaction and renewal
      info in Apple's field names, the status, the timeline); 2 shows the notification log with
      each delivery. Each action key runs the storesim command it names (approve, refund, cancel,
      advance, buy, ...) on the selected row, under the session's lock, and shows the command's
      own answer or refusal; ? lists the keys. Changes made by other processes appear within a
      second. Needs a terminal of 80x24 or more; NO_COLOR turns colour off.
      """,
    example: "storesim manage --session .storesim/session.json")

  @Arguments(0...0, "")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    guard inv.memory == nil else {
      throw CLIError.failed("manage takes over the terminal; run 'storesim manage' from a shell, not in a scenario")
    }
    return try ManageApp.run(inv)
  }
}
