import Foundation
import StoreSim

/// Where a session's configuration came from (the CLI session header's fields).
struct SessionOrigin: Sendable {
  var configurationPath: String
  var configurationDigest: String
}

/// Reads and writes the CLI's session files (version 1 and 2), so a session prepared with
/// scenarios can be loaded into a test and saved back. Kept small and isolated: the format
/// belongs to the CLI (Sources/StoreSimCLI/SessionFile.swift); this mirrors its header.
enum SessionFileCodec {
  static let formatName = "storesim-session"
  static let version = 2

  /// FNV-1a 64 of the configuration bytes, as the CLI's `SessionFile.digest`.
  static func digest(_ data: Data) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in data {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return String(format: "%016llx", hash)
  }

  static func read(_ data: Data) throws -> (StoreState, SessionOrigin) {
    let newline = data.firstIndex(of: 0x0A)
    let headerBytes = newline.map { data[data.startIndex..<$0] } ?? data[...]
    guard let header = try? JSONSerialization.jsonObject(with: headerBytes) as? [String: Any],
      header["format"] as? String == formatName
    else { throw SKTestError(.invalidAction, "not a storesim session file") }
    let version = header["version"] as? Int ?? 0
    let origin = SessionOrigin(
      configurationPath: header["configurationPath"] as? String ?? "",
      configurationDigest: header["configurationDigest"] as? String ?? "")
    if version == 1 {
      struct V1: Decodable { var state: StoreState }
      let decoder = JSONDecoder()
      decoder.dateDecodingStrategy = .millisecondsSince1970
      do { return (try decoder.decode(V1.self, from: data).state, origin) } catch {
        throw SKTestError(.invalidAction, "session file is corrupt")
      }
    }
    guard version == 2, let newline else {
      throw SKTestError(.invalidAction, "session file version \(version) is not supported (\(self.version) is)")
    }
    do {
      return (try StateCodec.decode([UInt8](data[data.index(after: newline)...])), origin)
    } catch {
      throw SKTestError(.invalidAction, "session file is corrupt or truncated: \(error)")
    }
  }

  static func write(_ state: StoreState, origin: SessionOrigin) throws -> Data {
    let header: [String: Any] = [
      "format": formatName, "version": version, "codec": StateCodec.name,
      "configurationPath": origin.configurationPath, "configurationDigest": origin.configurationDigest,
    ]
    var data = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
    data.append(0x0A)
    data.append(contentsOf: try StateCodec.encode(state))
    data.append(0x0A)
    return data
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
