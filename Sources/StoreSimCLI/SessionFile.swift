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
struct SessionDocument: Codable {
  static let formatName = "storesim-session"
  static let currentVersion = 3

  var format: String
  var version: Int
  /// The configuration file the session was made from, as given to `init` (absolute).
  var configurationPath: String
  /// A digest of the configuration bytes, to notice edits.
  var configurationDigest: String
  var state: StoreState
}

enum SessionFile {
  /// A cheap content digest (FNV-1a 64) of configuration bytes.
  static func digest(_ data: Data) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in data {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return String(format: "%016llx", hash)
  }

  static func decoder() -> JSONDecoder {
    let d = JSONDecoder()
    d.dateDecodingStrategy = .millisecondsSince1970
    return d
  }

  /// Reads and checks a session file; the file is never modified on failure.
  /// Reads a session. `skippingNotifications` leaves the outbox unread (see
  /// `StateCodec.decode`): for commands that never look at it and never save. The file is
  /// mapped, so the parts not decoded are never read from disk.
  static func read(_ path: String, shownAs name: String, skippingNotifications: Bool = false) throws -> SessionDocument {
    guard FileManager.default.fileExists(atPath: path) else {
      throw CLIError.noInput("no session at \(name); start one with 'storesim init CONFIG.storekit'")
    }
    if access(path, R_OK) != 0 { throw SystemError.error("cannot read session file \(name)", errno: errno) }
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
      throw CLIError.noInput("cannot read session file \(name)")
    }
    let newline = data.firstIndex(of: 0x0A)
    let headerBytes = newline.map { data[data.startIndex..<$0] } ?? data[...]
    guard let header = try? JSONSerialization.jsonObject(with: headerBytes) as? [String: Any] else {
      throw CLIError.data("session file \(name) is corrupt or truncated (not a JSON object); it was left untouched — start over with 'storesim init CONFIG --force'")
    }
    guard header["format"] as? String == SessionDocument.formatName else {
      throw CLIError.data("\(name) is not a storesim session file; it was left untouched")
    }
    let version = header["version"] as? Int ?? 0
    if version > SessionDocument.currentVersion { throw newer(version, name) }
    if version == 1 {
      do {
        return try decoder().decode(SessionDocument.self, from: data)
      } catch {
        throw CLIError.data("session file \(name) is corrupt: \(describe(error)); it was left untouched")
      }
    }
    // Versions 2 and 3 have exactly these header fields (3 adds the checksums).
    let fields = ["format", "version", "codec", "configurationPath", "configurationDigest"] + (version == 3 ? SessionIntegrity.keys : [])
    guard version == 2 || version == 3, let newline, header.count == fields.count, fields.allSatisfy({ header[$0] != nil }),
      let codec = header["codec"] as? String, codec == StateCodec.name,
      let configurationPath = header["configurationPath"] as? String, let digest = header["configurationDigest"] as? String
    else {
      throw CLIError.data("session file \(name) is corrupt: incomplete header; it was left untouched")
    }
    let start = data.distance(from: data.startIndex, to: data.index(after: newline))
    if version == 3 {
      guard let integrity = SessionIntegrity(header: header), let checksum = header["checksum"] as? String else {
        throw CLIError.data("session file \(name) is corrupt: incomplete header; it was left untouched")
      }
      let intact = data.withUnsafeBytes { raw in
        integrity.verifies(
          UnsafeRawBufferPointer(rebasing: raw[start...]), checksum: checksum, version: version, codec: codec,
          configurationPath: configurationPath, configurationDigest: digest, skippingOutbox: skippingNotifications)
      }
      guard intact else {
        throw CLIError.data("session file \(name) is corrupt (checksum mismatch); it was left untouched — start over with 'storesim init CONFIG --force'")
      }
    }
    do {
      let state = try data.withUnsafeBytes { raw in
        try StateCodec.decode(UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[start...]), skippingNotifications: skippingNotifications)
      }
      return SessionDocument(format: SessionDocument.formatName, version: version, configurationPath: configurationPath, configurationDigest: digest, state: state)
    } catch {
      throw CLIError.data("session file \(name) is corrupt or truncated: \(error); it was left untouched")
    }
  }

  static func newer(_ version: Int, _ name: String) -> CLIError {
    CLIError.data("session file \(name) has version \(version), newer than this storesim understands (\(SessionDocument.currentVersion)); it was left untouched")
  }

  static func describe(_ error: any Error) -> String {
    if case DecodingError.keyNotFound(let key, let ctx)? = error as? DecodingError {
      return "missing '\(key.stringValue)' at \(ctx.codingPath.map(\.stringValue).joined(separator: "."))"
    }
    if case DecodingError.typeMismatch(_, let ctx)? = error as? DecodingError {
      return "wrong type at \(ctx.codingPath.map(\.stringValue).joined(separator: "."))"
    }
    if case DecodingError.dataCorrupted(let ctx)? = error as? DecodingError {
      return "bad value at \(ctx.codingPath.map(\.stringValue).joined(separator: "."))"
    }
    return "unreadable"
  }

  /// Writes atomically (see `AtomicFile`), keeping the file's mode, owner and symlinks.
  static func write(_ document: SessionDocument, to location: SessionLocation) throws {
    var data: Data
    do {
      var (stateLine, outboxStart) = try StateCodec.encodeSplit(document.state)
      stateLine.append(0x0A)
      let integrity = stateLine.withUnsafeBytes { SessionIntegrity(stateLine: $0, outboxStart: outboxStart) }
      var header: [String: Any] = [
        "format": SessionDocument.formatName, "version": SessionDocument.currentVersion, "codec": StateCodec.name,
        "configurationPath": document.configurationPath, "configurationDigest": document.configurationDigest,
      ]
      header.merge(
        integrity.headerFields(
          version: SessionDocument.currentVersion, codec: StateCodec.name, configurationPath: document.configurationPath,
          configurationDigest: document.configurationDigest)
      ) { old, _ in old }
      data = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
      data.append(0x0A)
      data.append(contentsOf: stateLine)
    } catch {
      throw CLIError.failed("cannot encode the session: \(error)")
    }
    let folder = (location.file as NSString).deletingLastPathComponent
    if !folder.isEmpty {
      try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    try AtomicFile.write(data, to: location)
  }
}
