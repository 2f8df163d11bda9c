import Foundation
import StoreSim
import StoreSimSession

/// Where a session's configuration came from (the CLI session header's fields).
struct SessionOrigin: Sendable {
  var configurationPath: String
  var configurationDigest: String
}

/// Reads and writes the CLI's session files through the engine's `SessionFileFormat` (every
/// version the CLI reads; checksums verified), so a session prepared with scenarios can be
/// loaded into a test and saved back.
enum SessionFileCodec {
  static func read(_ data: Data) throws -> (StoreState, SessionOrigin) {
    do {
      let (header, state) = try SessionFileFormat.decode(data)
      return (
        state,
        SessionOrigin(configurationPath: header.configurationPath, configurationDigest: header.configurationDigest)
      )
    } catch {
      switch error {
      case .notJSON, .notASession: throw SKTestError(.invalidAction, "not a storesim session file")
      case .newer(let version):
        throw SKTestError(
          .invalidAction,
          "session file version \(version) is newer than this StoreSimKit reads (\(SessionFileFormat.currentVersion))")
      case .incompleteHeader: throw SKTestError(.invalidAction, "session file is corrupt: incomplete header")
      case .checksumMismatch: throw SKTestError(.invalidAction, "session file is corrupt (checksum mismatch)")
      case .corrupt(_, let reason): throw SKTestError(.invalidAction, "session file is corrupt or truncated: \(reason)")
      }
    }
  }

  static func write(_ state: StoreState, origin: SessionOrigin) throws -> Data {
    try SessionFileFormat.encode(
      state, configurationPath: origin.configurationPath, configurationDigest: origin.configurationDigest)
  }
}

extension SKTestSession {
  /// Not in StoreKitTest: a session loaded from a storesim session file (made with the CLI, for
  /// example by a scenario); read only from the URL given.
  public convenience init(sessionFileURL url: URL) throws {
    let data: Data
    do { data = try Data(contentsOf: url) } catch { throw SKTestError(.fileNotFound, "cannot read \(url.path)") }
    let (state, origin) = try SessionFileCodec.read(data)
    self.init(store: Store(state: state), origin: origin)
  }

  /// Not in StoreKitTest: the session as a storesim session file the CLI can go on with.
  public func sessionFileData() throws -> Data {
    try SessionFileCodec.write(core.read { $0.state }, origin: origin)
  }

  /// Not in StoreKitTest: writes the session file to a URL (atomically).
  public func save(to url: URL) throws {
    try sessionFileData().write(to: url, options: .atomic)
  }
}
