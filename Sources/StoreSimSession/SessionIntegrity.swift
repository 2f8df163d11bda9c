import Foundation
import StoreSim

/// The checksums in a session header of version 3 or later, so that any damage to the file is noticed
/// instead of being read as a different session.
///
/// The state line is checksummed (`Checksum64`) in two parts: the state before the
/// notification outbox, and the outbox with the rest of the file. A reading command that skips
/// the outbox verifies only the part it decodes, so it stays as cheap as before; a command that
/// reads everything verifies both. The header's own fields and these four values are
/// checksummed too (`checksum`), so a changed configuration path, digest, version or length is
/// noticed. The lengths make a truncated or lengthened file fail with certainty.
///
///     {"checksum":"…","codec":"compact-1","configurationDigest":"…","configurationPath":"…",
///      "format":"storesim-session","outboxChecksum":"…","outboxLength":N,
///      "stateChecksum":"…","stateLength":N,"version":5}
package struct SessionIntegrity: Equatable {
  package static let keys = ["checksum", "stateLength", "stateChecksum", "outboxLength", "outboxChecksum"]

  /// Bytes of the state line before the outbox (from just after the header's newline).
  package var stateLength: Int
  package var stateChecksum: String
  /// Bytes from the outbox to the end of the file (the final newline included).
  package var outboxLength: Int
  package var outboxChecksum: String

  /// The checksums of a state line (the bytes after the header's newline, to the end of the
  /// file) whose outbox part starts at `outboxStart`.
  package init(stateLine: UnsafeRawBufferPointer, outboxStart: Int) {
    stateLength = outboxStart
    stateChecksum = Checksum64.hex(Checksum64.hash(UnsafeRawBufferPointer(rebasing: stateLine[..<outboxStart])))
    outboxLength = stateLine.count - outboxStart
    outboxChecksum = Checksum64.hex(Checksum64.hash(UnsafeRawBufferPointer(rebasing: stateLine[outboxStart...])))
  }

  /// The values read from a header; nil when one is missing or of the wrong kind.
  package init?(header: HeaderFields) {
    guard let stateLength = header.int("stateLength"), let stateChecksum = header.string("stateChecksum"),
      let outboxLength = header.int("outboxLength"), let outboxChecksum = header.string("outboxChecksum"),
      stateLength >= 0, outboxLength >= 0
    else { return nil }
    self.stateLength = stateLength
    self.stateChecksum = stateChecksum
    self.outboxLength = outboxLength
    self.outboxChecksum = outboxChecksum
  }

  /// The checksum of the header: its other fields and the four values above.
  package func headerChecksum(
    version: Int, codec: String, configurationPath: String, configurationDigest: String
  ) -> String {
    Checksum64.hex(
      Checksum64.hash(fields: [
        SessionFileFormat.formatName, String(version), codec, configurationPath, configurationDigest,
        String(stateLength), stateChecksum, String(outboxLength), outboxChecksum,
      ]))
  }

  /// The header fields to add to a header (version 3 or later) that has the others.
  package func headerFields(
    version: Int, codec: String, configurationPath: String, configurationDigest: String
  ) -> [String: HeaderFields.Value] {
    [
      "checksum": .string(
        headerChecksum(
          version: version, codec: codec, configurationPath: configurationPath, configurationDigest: configurationDigest
        )),
      "stateLength": .int(stateLength), "stateChecksum": .string(stateChecksum), "outboxLength": .int(outboxLength),
      "outboxChecksum": .string(outboxChecksum),
    ]
  }

  /// Whether a state line matches: header checksum, lengths, and the state part's checksum;
  /// the outbox's too unless `skippingOutbox`.
  package func verifies(
    _ stateLine: UnsafeRawBufferPointer, checksum: String, version: Int, codec: String, configurationPath: String,
    configurationDigest: String, skippingOutbox: Bool
  ) -> Bool {
    guard
      checksum
        == headerChecksum(
          version: version, codec: codec, configurationPath: configurationPath, configurationDigest: configurationDigest
        ),
      stateLength <= stateLine.count, stateLine.count - stateLength == outboxLength
    else { return false }
    guard Checksum64.hex(Checksum64.hash(UnsafeRawBufferPointer(rebasing: stateLine[..<stateLength]))) == stateChecksum
    else { return false }
    return skippingOutbox
      || Checksum64.hex(Checksum64.hash(UnsafeRawBufferPointer(rebasing: stateLine[stateLength...]))) == outboxChecksum
  }
}
