import Foundation
import StoreSim
import StoreSimSession
import StoreSimSync

/// Where a session's configuration came from (the CLI session header's fields).
struct SessionOrigin: Sendable {
  var configurationPath: String
  var configurationDigest: String
  /// The session file this session was read from or last saved to, and that file's identity
  /// then; nil for a session made from a configuration.
  let file = Mutex<(path: String, identity: FileIdentity?)?>(nil)
}

/// Writes the CLI's session files through the engine's `SessionFileFormat`, so a session
/// prepared with scenarios can be loaded into a test and saved back. Reading goes through
/// `SessionWork.read` (the session's lock and the configuration-reload rule, as the CLI reads).
enum SessionFileCodec {
  static func write(_ state: StoreState, origin: SessionOrigin) throws -> Data {
    try SessionFileFormat.encode(
      state, configurationPath: origin.configurationPath, configurationDigest: origin.configurationDigest)
  }
}

extension SKTestSession {
  /// Not in StoreKitTest: a session loaded from a storesim session file (made with the CLI, for
  /// example by a scenario); read only from the URL given.
  public convenience init(sessionFileURL url: URL) throws {
    // Read as the CLI reads it: under the session's lock, an edited configuration reloaded;
    // the identity kept is the one of the file read.
    let read: (document: SessionDocument, identity: FileIdentity?)
    do {
      let location = try SessionLocation(shown: url.path, resolve: { $0 })
      read = try SessionWork(location: location, warn: { KitDiagnostics.write("StoreSimKit: warning: \($0)\n") })
        .read()
    } catch let error as SessionStoreError {
      throw SKTestError(error.kind == .noInput ? .fileNotFound : .invalidAction, error.message)
    }
    let origin = SessionOrigin(
      configurationPath: read.document.configurationPath, configurationDigest: read.document.configurationDigest)
    origin.file.withLock { [identity = read.identity] in $0 = (url.path, identity) }
    self.init(store: Store(state: read.document.state), origin: origin)
  }

  /// Not in StoreKitTest: the session as a storesim session file the CLI can go on with.
  public func sessionFileData() throws -> Data {
    try SessionFileCodec.write(core.read { $0.state }, origin: origin)
  }

  /// Not in StoreKitTest: writes the session file to a URL, as the CLI saves it: under the
  /// session's lock (`<file>.lock`), atomically, keeping the file's mode. Saving over the file
  /// this session was read from (or last saved) refuses (`invalidAction`) when another process
  /// changed that file since: the save would silently undo that change. Read the file again and
  /// redo the change.
  public func save(to url: URL) throws {
    let data = try sessionFileData()
    do {
      let location = try SessionLocation(shown: url.path, resolve: { $0 })
      // The identity to find (nil inside: no file then); none to check for another file.
      var expected: FileIdentity?? = nil
      if let read = origin.file.current, read.path == location.file || read.path == url.path {
        expected = .some(read.identity)
      }
      let written = try SessionWork(location: location, warn: { _ in }).replace(with: data, ifStill: expected) {
        throw SKTestError(
          .invalidAction, "the session file \(url.path) changed since this session read it; read it again")
      }
      origin.file.withLock { $0 = (location.file, written) }
    } catch let error as SessionStoreError {
      throw SKTestError(.invalidAction, error.message)
    }
  }
}
