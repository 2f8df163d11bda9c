import Foundation
import StoreSim

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The session file, versioned:
/// - version 3 (written now): as version 2, and the header also carries checksums of the state
///   line and of itself (`SessionIntegrity`), so any damage is refused instead of read;
/// - version 2 (still read): line 1 is a JSON header (`format`, `version`, `codec`,
///   `configurationPath`, `configurationDigest`); line 2 is the state in `StateCodec`'s compact
///   JSON form, read by a strict streaming reader;
/// - version 1 (still read): one JSON object with the header fields and `state` in `Codable` form.
///
/// Saving is atomic (write a temporary file beside it, flush, rename over the old one), and
/// every command holds an exclusive `flock` on `<session>.lock` from load to save, so parallel
/// calls on one session are serialised and never lose an update.
package struct SessionDocument: Codable, Sendable {
  package static let formatName = SessionFileFormat.formatName
  package static let currentVersion = SessionFileFormat.currentVersion

  package var format: String
  package var version: Int
  /// The configuration file the session was made from, as given to `init` (absolute).
  package var configurationPath: String
  /// A digest of the configuration bytes, to notice edits.
  package var configurationDigest: String
  package var state: StoreState

  package init(format: String, version: Int, configurationPath: String, configurationDigest: String, state: StoreState)
  {
    self.format = format
    self.version = version
    self.configurationPath = configurationPath
    self.configurationDigest = configurationDigest
    self.state = state
  }
}

/// Session files on disk: the bytes are `SessionFileFormat`'s; this maps files, names them in
/// errors, and saves atomically.
package enum SessionFile {
  /// Reads and checks a session file; the file is never modified on failure.
  /// `skippingNotifications` leaves the outbox unread (see `StateCodec.decode`): for commands
  /// that never look at it and never save. The file is mapped, so the parts not decoded are
  /// never read from disk.
  package static func read(
    _ path: String, shownAs name: String, skippingNotifications: Bool = false
  ) throws -> SessionDocument {
    let data = try mapped(path, shownAs: name)
    do {
      let (header, state) = try SessionFileFormat.decode(data, skippingNotifications: skippingNotifications)
      return SessionDocument(
        format: SessionDocument.formatName, version: header.version, configurationPath: header.configurationPath,
        configurationDigest: header.configurationDigest, state: state)
    } catch {
      throw message(error, name)
    }
  }

  /// `read` of `base` and the row of the customer holding transaction `id` only (of `base`
  /// alone when `id` is nil), checked as a read skipping the notifications is
  /// (`SessionFileFormat.decode(_:onlyCustomerHolding:)`), found through the index beside the
  /// file when it has one for this version of it (`SessionIndex`); nil when no customer holds it
  /// or the file is older than version 3. Such a document must never be saved.
  package static func read(
    _ path: String, shownAs name: String, onlyCustomerHolding id: TransactionID?
  ) throws -> SessionDocument? {
    let data = try mapped(path, shownAs: name)
    do {
      let (header, state) = try SessionFileFormat.decode(
        data, onlyCustomerHolding: id, index: id == nil ? nil : index(of: path))
      return state.map {
        SessionDocument(
          format: SessionDocument.formatName, version: header.version, configurationPath: header.configurationPath,
          configurationDigest: header.configurationDigest, state: $0)
      }
    } catch {
      throw message(error, name)
    }
  }

  /// The file, mapped (its pages are read from disk only when touched).
  private static func mapped(_ path: String, shownAs name: String) throws -> Data {
    guard FileManager.default.fileExists(atPath: path) else {
      throw SessionStoreError(.noInput, "no session at \(name); start one with 'storesim init CONFIG.storekit'")
    }
    if access(path, R_OK) != 0 { throw SessionStoreError.system("cannot read session file \(name)", errno: errno) }
    var status = stat()
    if stat(path, &status) == 0, Int(status.st_size) > SessionBounds.largestFile {
      throw SessionStoreError(
        .badData,
        "session file \(name) has \(status.st_size) bytes, more than the \(SessionBounds.largestFile >> 30) GiB a session may have; it was left untouched"
      )
    }
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
      throw SessionStoreError(.noInput, "cannot read session file \(name)")
    }
    return data
  }

  /// The one-line error for a session file that cannot be read.
  package static func message(_ failure: SessionFileFormat.Failure, _ name: String) -> SessionStoreError {
    switch failure {
    case .notJSON:
      return SessionStoreError(
        .badData,
        "session file \(name) is corrupt or truncated (not a JSON object); it was left untouched — start over with 'storesim init CONFIG --force'"
      )
    case .notASession:
      return SessionStoreError(.badData, "\(name) is not a storesim session file; it was left untouched")
    case .newer(let version):
      return newer(version, name)
    case .incompleteHeader:
      return SessionStoreError(.badData, "session file \(name) is corrupt: incomplete header; it was left untouched")
    case .checksumMismatch:
      return SessionStoreError(
        .badData,
        "session file \(name) is corrupt (checksum mismatch); it was left untouched — start over with 'storesim init CONFIG --force'"
      )
    case .corrupt(let version, let reason):
      return version == 1
        ? SessionStoreError(.badData, "session file \(name) is corrupt: \(reason); it was left untouched")
        : SessionStoreError(.badData, "session file \(name) is corrupt or truncated: \(reason); it was left untouched")
    }
  }

  package static func newer(_ version: Int, _ name: String) -> SessionStoreError {
    SessionStoreError(
      .badData,
      "session file \(name) has version \(version), newer than this storesim understands (\(SessionDocument.currentVersion)); it was left untouched"
    )
  }

  /// Writes atomically (see `AtomicFile`), keeping the file's mode, owner and symlinks.
  /// A session of more records than `streamingThreshold` (transactions and notifications) is
  /// written while it is encoded (`SessionFileFormat.write(_:to:)`), not encoded into memory
  /// first: a population of 100,000 customers would otherwise hold its file twice over.
  /// `durable: false` leaves the flushing to the disk to the system (see `AtomicFile.write`);
  /// `rows` are the rows of the last save of this session, to copy those that did not change;
  /// `again: true` says this process saved or read the file just before (its folder is there,
  /// and was swept of dead processes' temporary files), so neither is done again. A file written
  /// while encoded gets its index beside it (`SessionIndex`); `streamingAbove` is for tests.
  /// `written` holds the rows of the state's notifications written out (`OutboxFile`): the file
  /// is then written while encoded, whatever its size.
  package static func write(
    _ document: SessionDocument, to location: SessionLocation, durable: Bool = true, reusing rows: EncodedRows? = nil,
    again: Bool = false, streamingAbove: Int = streamingThreshold, written: OutboxFile? = nil
  ) throws {
    let folder = (location.file as NSString).deletingLastPathComponent
    let state = document.state
    let records = state.notifications.count + state.customers.reduce(0) { $0 + $1.transactions.count }
    let data: Data?
    do {
      data =
        records > streamingAbove || written != nil
        ? nil
        : try SessionFileFormat.encode(
          state, configurationPath: document.configurationPath, configurationDigest: document.configurationDigest,
          reusing: rows)
    } catch {
      throw SessionStoreError(.failed, "cannot encode the session: \(error)")
    }
    if !folder.isEmpty && !again {
      try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    if let data { return try AtomicFile.write(data, to: location, durable: durable, sweeping: !again) }
    var index: SessionIndex?
    try AtomicFile.write(to: location, durable: durable, sweeping: !again) { emit in
      do {
        index = try SessionFileFormat.write(
          state, configurationPath: document.configurationPath, configurationDigest: document.configurationDigest,
          written: written, to: emit)
      } catch let error as SessionStoreError {
        throw error
      } catch {
        throw SessionStoreError(.failed, "cannot encode the session: \(error)")
      }
    }
    // The index is a help, not a part of the session: one that cannot be written is left out
    // (or left stale, and then not used: it names another version of the file).
    if let index, records > streamingAbove {
      try? index.bytes.write(to: URL(fileURLWithPath: SessionIndex.path(of: location.file)), options: .atomic)
    }
  }

  /// The index beside a session file (`SessionIndex`), when there is one that reads.
  static func index(of path: String) -> SessionIndex? {
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: SessionIndex.path(of: path)), options: .alwaysMapped)
    else { return nil }
    return SessionIndex(bytes: data)
  }

  /// Above this many transactions and notifications, a session is written while it is encoded.
  package static let streamingThreshold = 50_000
}
