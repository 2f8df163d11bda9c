import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer

/// `notifications replay [FILE] --to URL`: posts notification bodies again, verbatim, in order
/// (docs/import.md). With FILE (a webhook log or a Get Notification History response), the
/// file's bodies; without it, the originals the session kept of the notifications it imported.
/// Nothing in the session changes: a replay is not a delivery of the session's.
extension NotificationsCommand {
  func replay(_ inv: Invocation, file: String?) throws -> ExitCode {
    guard inv.environment.pathPolicy == nil else {
      throw CLIError.usage(
        "notifications replay is for the command line: it posts to any URL on the server's behalf",
        command: "notifications")
    }
    guard let to else { throw CLIError.usage("replay needs --to <url>", command: "notifications") }
    let url = try Delivery.validate(to, command: "notifications")
    let bodies = try file.map { try Self.bodies(of: $0, inv) } ?? Self.keptBodies(inv)
    var posted: [(body: ReplayBodies.Body, attempt: HTTPAttempt)] = []
    let attempts = Delivery.post(
      bodies: bodies.enumerated().map { (index: $0.offset, body: String(decoding: $0.element.bytes, as: UTF8.self)) },
      to: url)
    for (body, attempt) in zip(bodies, attempts) { posted.append((body, attempt)) }
    let failed = posted.filter { !$0.attempt.succeeded }.count
    inv.emit(
      json: .array(
        posted.enumerated().map { i, p in
          .object([
            "index": .int(Int64(i)), "item": .string(p.body.item), "url": .string(url),
            "httpStatus": p.attempt.status.map { .int(Int64($0)) }, "error": p.attempt.error.map(JSONOutput.string),
            "bytes": .int(Int64(p.body.bytes.count)),
          ])
        })
    ) {
      for (i, p) in posted.enumerated() {
        let outcome = p.attempt.status.map { "HTTP \($0)" + (p.attempt.error.map { ": \($0)" } ?? "") }
        inv.out("#\(i) \(p.body.item) -> \(url): " + (outcome ?? "failed (\(p.attempt.error ?? "no answer"))"))
      }
      inv.out("replayed \(posted.count - failed), failed \(failed)")
    }
    return failed == 0 ? .success : .failure
  }

  /// The bodies of FILE, checked whole before anything is posted.
  static func bodies(of file: String, _ inv: Invocation) throws -> [ReplayBodies.Body] {
    let path = try inv.environment.resolve(file)
    var info = stat()
    guard stat(path, &info) == 0 else { throw CLIError.noInput("cannot read \(file): no such file") }
    guard info.st_mode & S_IFMT == S_IFREG else { throw CLIError.noInput("cannot read \(file): not a file") }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw SystemError.error("cannot read \(file)", errno: EACCES)
    }
    do {
      return try ReplayBodies.read(Array(data), file: file)
    } catch {
      throw CLIError.data(error.problems.map(\.description).joined(separator: "; "))
    }
  }

  /// The originals the session kept, in the outbox's order.
  static func keptBodies(_ inv: Invocation) throws -> [ReplayBodies.Body] {
    var bodies: [ReplayBodies.Body] = []
    _ = try SessionContext.with(inv, mutating: false) { store in
      for (i, n) in store.notifications.enumerated() {
        if let original = n.original {
          bodies.append(ReplayBodies.Body(item: "notification \(i)", bytes: ReplayBodies.body(original.signedPayload)))
        }
      }
      return .success
    }
    guard !bodies.isEmpty else {
      throw CLIError.refusedArgument(
        "no notification of this session keeps an original to replay (import a webhook log or Get Notification History, without --redact)"
      )
    }
    return bodies
  }
}
