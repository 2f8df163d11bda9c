import Foundation
import StoreSim

extension SessionFileFormat {
  /// Writes a session file of the current version through `emit`, the same bytes `encode`
  /// returns, holding about a mebibyte of them at a time: the state is encoded twice, once for
  /// the checksums the header carries and once to write it (encoding is cheaper than a second
  /// copy of a large session in memory). `written` holds the rows of the state's first
  /// notifications when they were written out (`OutboxFile`). Returns the file's index (`SessionIndex`): where each
  /// customer's row begins, found while the checksums are.
  @discardableResult
  package static func write(
    _ state: StoreState, configurationPath: String, configurationDigest: String, written: OutboxFile? = nil,
    to emit: (UnsafeRawBufferPointer) throws -> Void
  ) throws -> SessionIndex {
    var stateSum = Checksum64.Stream()
    var outboxSum = Checksum64.Stream()
    var rows: [Int] = []
    rows.reserveCapacity(state.customers.count)
    try StateCodec.encode(state, customerRow: { rows.append($0) }, written: written) { bytes, outbox in
      if outbox { outboxSum.update(bytes) } else { stateSum.update(bytes) }
    }
    let newline: [UInt8] = [0x0A]
    newline.withUnsafeBytes { outboxSum.update($0) }
    let integrity = SessionIntegrity(
      stateLength: stateSum.count, stateChecksum: Checksum64.hex(stateSum.finish()), outboxLength: outboxSum.count,
      outboxChecksum: Checksum64.hex(outboxSum.finish()))
    var header = headerBytes(integrity, configurationPath: configurationPath, configurationDigest: configurationDigest)
    header.append(0x0A)
    try header.withUnsafeBytes(emit)
    try StateCodec.encode(state, written: written) { bytes, _ in try emit(bytes) }
    try newline.withUnsafeBytes(emit)
    return SessionIndex(
      checksum: integrity.headerChecksum(
        version: currentVersion, codec: StateCodec.name, configurationPath: configurationPath,
        configurationDigest: configurationDigest),
      customers: state.customers, rows: rows)
  }

  /// The header line (without its newline) of a state line with these checksums.
  static func headerBytes(
    _ integrity: SessionIntegrity, configurationPath: String, configurationDigest: String,
    version: Int = currentVersion
  )
    -> [UInt8]
  {
    var header: [String: HeaderFields.Value] = [
      "format": .string(formatName), "version": .int(version), "codec": .string(StateCodec.name),
      "configurationPath": .string(configurationPath), "configurationDigest": .string(configurationDigest),
    ]
    header.merge(
      integrity.headerFields(
        version: version, codec: StateCodec.name, configurationPath: configurationPath,
        configurationDigest: configurationDigest)
    ) { old, _ in old }
    return HeaderFields.encode(header)
  }
}

extension SessionIntegrity {
  /// Values computed elsewhere (while the state line is written).
  init(stateLength: Int, stateChecksum: String, outboxLength: Int, outboxChecksum: String) {
    self.stateLength = stateLength
    self.stateChecksum = stateChecksum
    self.outboxLength = outboxLength
    self.outboxChecksum = outboxChecksum
  }
}
