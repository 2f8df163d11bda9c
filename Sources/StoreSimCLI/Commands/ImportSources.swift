import Foundation
import StoreSim
import StoreSimSession

/// One argument of `storesim import`: a file, read a piece at a time (a webhook log of any size
/// imports in bounded memory), or a response written on the line itself (an argument that
/// starts with `{`, as `--scenario` writes them).
struct ImportSource {
  /// As the user wrote it, or `argument N` for a response on the line.
  let shown: String
  private let path: String?
  private let inline: String?

  /// The size of the pieces a file is read in.
  static let pieceSize = 1 << 20

  init(_ text: String, index: Int, _ inv: Invocation) throws {
    if text.hasPrefix("{") {
      shown = "argument \(index + 1)"
      path = nil
      inline = text
      return
    }
    let absolute = try inv.environment.resolve(text)
    var info = stat()
    guard stat(absolute, &info) == 0 else {
      if errno == EACCES { throw SystemError.error("cannot read \(text)", errno: EACCES) }
      throw CLIError.noInput("cannot read \(text): no such file")
    }
    guard info.st_mode & S_IFMT == S_IFREG else { throw CLIError.noInput("cannot read \(text): not a file") }
    guard access(absolute, R_OK) == 0 else { throw SystemError.error("cannot read \(text)", errno: EACCES) }
    shown = text
    path = absolute
    inline = nil
  }

  /// Feeds the source to `data`, a piece at a time.
  func feed(into data: inout AppleDataImport) throws {
    data.begin(shown)
    defer { data.end() }
    if let inline { return data.feed(Array(inline.utf8)[...]) }
    guard let path, let handle = FileHandle(forReadingAtPath: path) else {
      throw CLIError.noInput("cannot read \(shown)")
    }
    defer { try? handle.close() }
    while true {
      let piece: Data?
      do {
        piece = try handle.read(upToCount: Self.pieceSize)
      } catch {
        throw CLIError.noInput("cannot read \(shown)")
      }
      guard let piece, !piece.isEmpty else { return }
      data.feed(Array(piece)[...])
    }
  }
}

/// `import --scenario OUT.storesim`: the store after the import as a scenario that recreates
/// it: `init` with the session's configuration, start and environment, then one `import` whose
/// arguments are the store's data as Apple's server would answer it (each customer's history
/// and statuses, every notification's body), signed by the session's chain, and the session's
/// settings. Running it in a fresh session gives the same history, statuses, notifications and
/// settings (save `signedDate`).
enum ImportScenario {
  struct Target {
    let shown: String
    let file: String
    /// The configuration as the scenario's `init` names it (relative to the scenario's folder).
    let configuration: String

    init(_ path: String, _ inv: Invocation) throws {
      guard inv.memory == nil else {
        throw CLIError.usage("--scenario needs a session file; it cannot be used inside a scenario", command: "import")
      }
      shown = path
      file = try inv.environment.resolve(path)
      let location = try SessionLocation(shown: SessionContext.path(inv), environment: inv.environment)
      let header = Self.configurationPath(location.file) ?? "Configuration.storekit"
      configuration = Self.relative(header, from: (file as NSString).deletingLastPathComponent)
    }

    /// The `configurationPath` of a session file's header line, if it has one.
    static func configurationPath(_ session: String) -> String? {
      guard let handle = FileHandle(forReadingAtPath: session) else { return nil }
      defer { try? handle.close() }
      guard let head = try? handle.read(upToCount: 1 << 16) else { return nil }
      let line = head.prefix { $0 != 10 }
      return HeaderFields(line)?.string("configurationPath")
    }

    /// `path` relative to the folder `base` (both absolute), or `path` when they share no folder.
    static func relative(_ path: String, from base: String) -> String {
      guard path.hasPrefix("/") else { return path }
      let a = path.split(separator: "/"), b = base.split(separator: "/")
      var common = 0
      while common < min(a.count - 1, b.count), a[common] == b[common] { common += 1 }
      guard common > 0 else { return path }
      return (Array(repeating: "..", count: b.count - common) + a[common...].map(String.init)).joined(separator: "/")
    }

    func write(_ store: Store, sources: [String], redacted: Bool, addedProducts: Bool) throws {
      let text = ImportScenario.text(
        store, configuration: configuration, sources: sources, redacted: redacted, addedProducts: addedProducts)
      do {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
      } catch {
        throw CLIError(code: .cannotCreate, message: "cannot write the scenario to \(shown)")
      }
    }
  }

  /// A word a scenario line reads back as it is: single quotes (JSON and JWS hold none).
  static func quoted(_ s: String) -> String {
    s.isEmpty || s.contains(where: { $0 == " " || $0 == "#" || $0 == "\"" }) ? "'\(s)'" : s
  }

  static func text(
    _ store: Store, configuration: String, sources: [String], redacted: Bool, addedProducts: Bool = false
  ) -> String {
    let state = store.state
    var lines = [
      "# Recreates the store storesim import made from \(sources.joined(separator: ", "))"
        + (redacted ? " (redacted: ids and app account tokens are pseudonyms)." : "."),
      "# The import line holds the data as Apple's server would answer it, signed by the session's chain.",
    ]
    var initLine = "init \(quoted(configuration)) --start \(ISO8601.string(state.startDate))"
    initLine += " --environment \(state.environment.rawValue)"
    if state.bundleID != "com.example.app" { initLine += " --bundle-id \(state.bundleID)" }
    lines.append(initLine)
    var arguments: [String] = []
    // A stand-in purchaser of a family-shared subscription is rebuilt from the member's data.
    for name in store.customerIDs where !name.isImportedPurchaser {
      guard let customer = store.customer(name), !customer.transactions.isEmpty else { continue }
      let ordered = customer.transactions.sorted { ($0.modificationOrder, $0.id) < ($1.modificationOrder, $1.id) }
      let history: [String: JSONOutput] = [
        "bundleId": .string(state.bundleID), "environment": .string(state.environment.rawValue),
        "hasMore": .bool(false),
        "signedTransactions": .array(ordered.map { .string(store.signed($0, customer: name)) }),
      ]
      arguments.append(quoted(JSONOutput.object(history).rendered(pretty: false)))
      var groups: [JSONOutput] = []
      for g in store.configuration.subscriptionGroups {
        let list = store.statuses(forGroup: g.id, customer: name)
        guard !list.isEmpty else { continue }
        groups.append(
          .object([
            "subscriptionGroupIdentifier": .string(g.id),
            "lastTransactions": .array(
              list.map { s in
                .object([
                  "status": .int(Int64(s.state.serverStatus)),
                  "originalTransactionId": .string(String(s.transaction.originalID)),
                  "signedTransactionInfo": .string(store.signed(s.transaction, customer: name)),
                  "signedRenewalInfo": .string(store.signed(s.renewalInfo, customer: name)),
                ])
              }),
          ]))
      }
      // The statuses link to the history by their original transactions.
      if !groups.isEmpty {
        let statuses: [String: JSONOutput] = [
          "bundleId": .string(state.bundleID), "environment": .string(state.environment.rawValue),
          "data": .array(groups),
        ]
        arguments.append(quoted(JSONOutput.object(statuses).rendered(pretty: false)))
      }
    }
    for n in store.notifications { arguments.append(quoted(store.signedBody(n).rendered(pretty: false))) }
    if !arguments.isEmpty {
      lines.append(
        "import --now \(ISO8601.string(state.now)) " + (addedProducts ? "--add-products " : "")
          + arguments.joined(separator: " "))
    }
    // The session's settings, after the import (whose notifications were sent before).
    lines += settingsLines(store)
    for name in store.customerIDs {
      guard let customer = store.customer(name), !customer.transactions.isEmpty else { continue }
      let count = store.allTransactions(customer: name).count
      lines.append("expect transactions \(count) --customer \(quoted(name.rawValue))")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
