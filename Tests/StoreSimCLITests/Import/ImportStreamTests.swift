import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI

/// Import reads a file a piece at a time (issue 49, item 7): a webhook log of any size imports
/// in bounded memory, and the pieces give the same store as the whole.
@Suite struct ImportStreamTests {
  typealias T = ImportCommandTests

  static func emptyStore() throws -> Store {
    let data = try Data(contentsOf: CLIHarness.projectRoot.appendingPathComponent("Configurations/Premium.storekit"))
    let loaded = try ConfigurationReader.read(Array(data))
    return Store(
      configuration: loaded.configuration, start: Date(timeIntervalSince1970: 1_767_225_600), environment: .sandbox)
  }

  /// A webhook log and a history response of the subscriber of `ImportCommandTests`.
  static func data() throws -> (log: [UInt8], history: String) {
    let cli = try CLIHarness()
    T.subscriber(cli)
    let log = cli.run("notifications --signed --session a.json").stdout
    return (Array(log.utf8), T.api(cli, "/inApps/v2/history/2000000000000001", session: "a.json"))
  }

  /// Feeds `bytes` as one file in pieces of `size`.
  static func imported(_ name: String, _ bytes: [UInt8], pieces size: Int) throws -> Store {
    var store = try emptyStore()
    var data = AppleDataImport(bundleID: store.state.bundleID)
    data.begin(name)
    var start = 0
    while start < bytes.count {
      data.feed(bytes[start..<min(bytes.count, start + size)])
      start += size
    }
    _ = try store.importAppleData(data)
    return store
  }

  @Test func importStreamsAWebhookLogInBoundedMemory() throws {
    let (log, _) = try Self.data()
    let lines = log.split(separator: 10)
    #expect(lines.count >= 3)
    let longest = lines.map(\.count).max() ?? 0
    // Many copies of the log, as a long-running receiver's: what is held never grows with it.
    var big: [UInt8] = []
    for _ in 0..<20 { big += log }
    var reader = AppleDataReader(bundleID: "com.example.app", verify: nil)
    var stream = ImportStream(name: "webhook.log")
    var most = 0
    var start = 0
    while start < big.count {
      stream.feed(big[start..<min(big.count, start + 100)], into: &reader)
      most = max(most, stream.held)
      start += 100
    }
    stream.end(into: &reader)
    #expect(most <= longest + 100, "held \(most) bytes; the longest line is \(longest)")
    #expect(reader.items.notifications.count == lines.count * 20)
    #expect(reader.items.problems.isEmpty)
  }

  @Test func importInPiecesGivesTheSameStoreAsTheWhole() throws {
    let (log, history) = try Self.data()
    let whole = try Self.imported("webhook.log", log, pieces: log.count)
    for size in [1, 7, 4096] {
      #expect(try Self.imported("webhook.log", log, pieces: size).state == whole.state)
    }
    // A response printed over several lines is one document, whatever the pieces.
    let node = try JSONParser.parse(Array(history.utf8))
    let pretty = Array(T.pretty(node).utf8)
    #expect(pretty.contains(10))
    let compact = try Self.imported("history.json", Array(history.utf8), pieces: 1 << 20)
    #expect(try Self.imported("history.json", pretty, pieces: 5).state == compact.state)
    #expect(compact.allTransactions(customer: .default).count == 3)
  }

  @Test func importNamesTheLineOfAProblemInALog() throws {
    let (log, _) = try Self.data()
    var broken = log
    let lines = log.split(separator: 10)
    broken += Array("{\"signedPayload\": \"not-a-jws\"}\nnot json\n".utf8)
    var store = try Self.emptyStore()
    var data = AppleDataImport(bundleID: store.state.bundleID)
    data.begin("webhook.log")
    data.feed(broken[...])
    let before = store.state
    #expect {
      _ = try store.importAppleData(data)
    } throws: { error in
      guard let failure = error as? ImportFailure else { return false }
      let text = failure.problems.map(\.description)
      return text == [
        "webhook.log: line \(lines.count + 1): signedPayload: is not a JWS whose payload is a JSON object",
        "webhook.log: line \(lines.count + 2): is not JSON (\(Self.syntax("not json")))",
      ]
    }
    #expect(store.state == before)
  }

  static func syntax(_ text: String) -> String {
    do {
      _ = try JSONParser.parse(Array(text.utf8))
      return ""
    } catch {
      return error.message
    }
  }
}

extension ImportCommandTests {
  /// A JSON value printed over several lines (objects and arrays a member a line).
  static func pretty(_ n: JSONNode) -> String {
    switch n.value {
    case .array(let items): "[\n" + items.map(pretty).joined(separator: ",\n") + "\n]"
    case .object(let members):
      "{\n" + members.map { "\"\($0.key)\": \(pretty($0.value))" }.joined(separator: ",\n") + "\n}"
    default: flat(n)
    }
  }
}
