import Foundation
import StoreSim

/// The bytes of a storesim session file, without the file: what the CLI writes and reads, and
/// what `StoreSimKit` loads and saves. Versions:
/// - 6 (written now): as 5, and change lines may follow the state line: a front end that
///   keeps the session loaded appends one per save (`StateCodec+Changes`); the header's
///   lengths and checksums cover the state line alone;
/// - 5: as 4, and a notification's row may end with the original of an imported
///   notification (`OriginalNotification`), which a reader of version 4 would refuse as corrupt;
/// - 4: as 3, and the delivery log is rows after `base` (`StateCodec`);
/// - 3: line 1 a JSON header (`format`, `version`, `codec`, `configurationPath`,
///   `configurationDigest` and the checksums of `SessionIntegrity`); line 2 the state in
///   `StateCodec`'s compact form;
/// - 2: the same without checksums; 1: one JSON object with the header fields and `state`.
package enum SessionFileFormat {
  package static let formatName = "storesim-session"
  package static let currentVersion = 6

  /// Where the session's configuration came from.
  package struct Header: Sendable, Equatable {
    package var version: Int
    package var configurationPath: String
    package var configurationDigest: String

    package init(
      version: Int = SessionFileFormat.currentVersion, configurationPath: String, configurationDigest: String
    ) {
      self.version = version
      self.configurationPath = configurationPath
      self.configurationDigest = configurationDigest
    }
  }

  /// Why bytes are not a session this storesim can read.
  package enum Failure: Error, Equatable {
    /// Line 1 is not a JSON object.
    case notJSON
    /// A JSON object, but not a session file.
    case notASession
    /// Written by a newer storesim.
    case newer(Int)
    case incompleteHeader
    case checksumMismatch
    /// The state of a file of this version does not decode; the reason.
    case corrupt(version: Int, reason: String)
  }

  /// A cheap content digest (FNV-1a 64) of configuration bytes, to notice edits.
  package static func digest(_ data: some Sequence<UInt8>) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in data {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return String(format: "%016llx", hash)
  }

  /// Decodes a whole session file. `skippingNotifications` leaves the outbox unread (and
  /// unverified): for readers that never look at it and never save.
  package static func decode(_ data: Data, skippingNotifications: Bool = false) throws(Failure) -> (Header, StoreState)
  {
    guard let checked = try verified(data, skippingNotifications: skippingNotifications) else {
      return try decodeVersion1(data)
    }
    do {
      let state = try data.withUnsafeBytes { (raw) throws(StateCodec.DecodingError) -> StoreState in
        let bytes = raw.bindMemory(to: UInt8.self)
        var state = try StateCodec.decode(
          UnsafeBufferPointer(rebasing: bytes[checked.start..<checked.changesStart]),
          skippingNotifications: skippingNotifications, outboxStart: checked.outboxStart,
          deliveriesAsRows: checked.header.version >= 4)
        if checked.changesStart < bytes.count {
          try StateCodec.applyChanges(
            UnsafeBufferPointer(rebasing: bytes[checked.changesStart...]), to: &state,
            skippingNotifications: skippingNotifications)
        }
        return state
      }
      return (checked.header, state)
    } catch {
      throw .corrupt(version: checked.header.version, reason: String(describing: error))
    }
  }

  /// What the header of a file of version 2 or later says, checked (the checksums of the header
  /// and of the state, and of the outbox unless `skippingNotifications`), with where the state
  /// line starts, where its outbox part starts (version 3 and later) and where the change lines
  /// start (version 6; the end of the data before); nil for version 1.
  static func verified(
    _ data: Data, skippingNotifications: Bool
  ) throws(Failure) -> (header: Header, start: Int, outboxStart: Int?, checksum: String?, changesStart: Int)? {
    let newline = data.firstIndex(of: 0x0A)
    let headerBytes = newline.map { data[data.startIndex..<$0] } ?? data[...]
    guard let header = HeaderFields(headerBytes) else { throw .notJSON }
    guard header.string("format") == formatName else { throw .notASession }
    let version = header.int("version") ?? 0
    if version > currentVersion { throw .newer(version) }
    if version == 1 { return nil }
    let fields =
      ["format", "version", "codec", "configurationPath", "configurationDigest"]
      + (version >= 3 ? SessionIntegrity.keys : [])
    guard (2...6).contains(version), let newline, header.count == fields.count,
      fields.allSatisfy({ header.contains($0) }),
      let codec = header.string("codec"), codec == StateCodec.name,
      let configurationPath = header.string("configurationPath"),
      let digest = header.string("configurationDigest")
    else { throw .incompleteHeader }
    let start = data.distance(from: data.startIndex, to: data.index(after: newline))
    var outboxStart: Int?
    var headerChecksum: String?
    var changesStart = data.count
    if version >= 3 {
      guard let integrity = SessionIntegrity(header: header), let checksum = header.string("checksum") else {
        throw .incompleteHeader
      }
      if version >= 6 {
        let (length, overflow) = integrity.stateLength.addingReportingOverflow(integrity.outboxLength)
        if !overflow, length <= data.count - start { changesStart = start + length }
      }
      let intact = data.withUnsafeBytes { raw in
        integrity.verifies(
          UnsafeRawBufferPointer(rebasing: raw[start..<changesStart]), checksum: checksum, version: version,
          codec: codec,
          configurationPath: configurationPath, configurationDigest: digest, skippingOutbox: skippingNotifications)
      }
      guard intact else { throw .checksumMismatch }
      outboxStart = integrity.stateLength
      headerChecksum = checksum
    }
    return (
      Header(version: version, configurationPath: configurationPath, configurationDigest: digest), start, outboxStart,
      headerChecksum, changesStart
    )
  }

  /// The header and, of the state, `base`, the delivery log and the row of the customer holding
  /// transaction `id` only (none when `id` is nil; `StateCodec.decode(onlyCustomerHolding:)`),
  /// checked as `decode(skippingNotifications: true)` checks the file. The state is nil when no
  /// customer holds it, and for files before version 3 (whose header does not say where the
  /// customers' list ends).
  /// `index`, when it names this file's header checksum, says where that row begins (and that
  /// no customer holds an id it does not list); another is not used.
  package static func decode(
    _ data: Data, onlyCustomerHolding id: TransactionID?, index: SessionIndex? = nil
  ) throws(Failure) -> (Header, StoreState?) {
    guard let checked = try verified(data, skippingNotifications: true) else {
      return (try decodeVersion1(data).0, nil)
    }
    // A file with change lines is read whole: its customers' rows are not all in the state line.
    guard let end = checked.outboxStart, checked.changesStart == data.count else { return (checked.header, nil) }
    var row: Int?? = nil
    if let id, let index, index.checksum == checked.checksum {
      guard let found = index.row(of: id) else { return (checked.header, nil) }
      row = .some(found)
    }
    do {
      let state = try data.withUnsafeBytes { raw in
        try StateCodec.decode(
          UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[checked.start...]), onlyCustomerHolding: id,
          customersEnd: end, row: row ?? nil, deliveriesAsRows: checked.header.version >= 4)
      }
      return (checked.header, state)
    } catch {
      throw .corrupt(version: checked.header.version, reason: String(describing: error))
    }
  }

  /// Version 1: one JSON object, read as `JSONDecoder` read it (unknown keys ignored, trailing
  /// commas allowed, the first of duplicate keys read).
  private static func decodeVersion1(_ data: Data) throws(Failure) -> (Header, StoreState) {
    struct Version1: Decodable {
      var configurationPath: String
      var configurationDigest: String
      var state: StoreState
    }
    do {
      let node: JSONNode
      do {
        node = try JSONParser.parse(data, allowingTrailingCommas: true)
      } catch {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON."))
      }
      let document = try JSONNodeDecoder(bounded: true).decode(Version1.self, from: node)
      return (
        Header(
          version: 1, configurationPath: document.configurationPath, configurationDigest: document.configurationDigest),
        document.state
      )
    } catch {
      throw .corrupt(version: 1, reason: describe(error))
    }
  }

  /// Encodes a session file of the current version (or of version 3, for tests of older files),
  /// copying the rows of records unchanged since the encoding `rows` kept (`EncodedRows`).
  package static func encode(
    _ state: StoreState, configurationPath: String, configurationDigest: String, version: Int = currentVersion,
    reusing rows: EncodedRows? = nil
  ) throws -> Data {
    // The line ends with its newline as it is made (`rows` keep these bytes for the next save:
    // a newline appended here would copy them all).
    var stateLine: [UInt8]
    let outboxStart: Int
    if let rows {
      (stateLine, outboxStart) = try StateCodec.encodeSplit(state, reusing: rows, newline: true)
    } else {
      (stateLine, outboxStart) = try StateCodec.encodeSplit(state, deliveriesAsRows: version >= 4)
      stateLine.append(0x0A)
    }
    let integrity = stateLine.withUnsafeBytes { SessionIntegrity(stateLine: $0, outboxStart: outboxStart) }
    let header = headerBytes(
      integrity, configurationPath: configurationPath, configurationDigest: configurationDigest, version: version)
    var data = Data(capacity: header.count + 1 + stateLine.count)
    data.append(contentsOf: header)
    data.append(0x0A)
    data.append(contentsOf: stateLine)
    return data
  }

  /// A short reason for a `Codable` failure: what is missing or wrong, and where.
  static func describe(_ error: any Error) -> String {
    func path(_ context: DecodingError.Context) -> String {
      context.codingPath.map(\.stringValue).joined(separator: ".")
    }
    switch error as? DecodingError {
    case .keyNotFound(let key, let context)?: return "missing '\(key.stringValue)' at \(path(context))"
    case .typeMismatch(_, let context)?: return "wrong type at \(path(context))"
    case .dataCorrupted(let context)?: return "bad value at \(path(context))"
    default: return "unreadable"
    }
  }
}
