import StoreSimCrypto

/// An imported notification as Apple sent it: its `notificationUUID` and its `signedPayload`,
/// kept so `notifications replay` can post it again verbatim (docs/import.md).
///
/// Kept compactly: an App Store JWS carries its certificate chain in its header, and the
/// `signedTransactionInfo` and `signedRenewalInfo` inside its payload carry the same header
/// again, base64url'd a second time. The payload is kept as its JSON text with each copy of the
/// header's segment replaced by U+0001 (a character JSON text never holds raw), so the chain is
/// kept once, not three times and a third larger. `signedPayload` gives the JWS back, byte for
/// byte; a JWS for which that does not hold is kept as it came (`isCompact` false).
package struct OriginalNotification: Sendable, Hashable, Codable {
  /// `notificationUUID`, as the payload had it.
  package var notificationUUID: String?
  /// The JWS's first segment (its header), or the whole JWS when not compact.
  package var header: String
  /// The payload's JSON text, the header's copies marked (compact), or nothing.
  package var payload: String
  /// The JWS's third segment (its signature), or nothing when not compact.
  package var signature: String
  /// Whether `payload` is the compact form.
  package var isCompact: Bool

  /// The parts as kept (the session file's row).
  package init(notificationUUID: String?, header: String, payload: String, signature: String, isCompact: Bool) {
    self.notificationUUID = notificationUUID
    self.header = header
    self.payload = payload
    self.signature = signature
    self.isCompact = isCompact
  }

  /// The mark that stands for the header's segment in a compact payload.
  static let mark: UInt8 = 1

  /// `signedPayload` kept compactly when its payload is JSON text that gives the same segment
  /// back, else as it came.
  package init(signedPayload jws: String, notificationUUID: String?) {
    self.init(raw: jws, notificationUUID: notificationUUID)
    let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let text = JWS.decodeBase64URL(parts[1]), !text.contains(Self.mark),
      let utf8 = String(validating: text, as: UTF8.self)
    else { return }
    let head = Array(parts[0].utf8)
    let marked = Self.replacing(Array(utf8.utf8), head, with: [Self.mark])
    let candidate = OriginalNotification(
      notificationUUID: notificationUUID, header: String(parts[0]), payload: String(decoding: marked, as: UTF8.self),
      signature: String(parts[2]), isCompact: true)
    if candidate.signedPayload == jws { self = candidate }
  }

  private init(raw: String, notificationUUID: String?) {
    self.init(notificationUUID: notificationUUID, header: raw, payload: "", signature: "", isCompact: false)
  }

  /// The JWS as it came, byte for byte.
  package var signedPayload: String {
    guard isCompact else { return header }
    let text = Self.replacing(Array(payload.utf8), [Self.mark], with: Array(header.utf8))
    return header + "." + JWS.base64URL(text) + "." + signature
  }

  /// `bytes` with every copy of `pattern` (not empty) replaced by `replacement`, left to right.
  static func replacing(_ bytes: [UInt8], _ pattern: [UInt8], with replacement: [UInt8]) -> [UInt8] {
    guard !pattern.isEmpty, bytes.count >= pattern.count else { return bytes }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    let first = pattern[0]
    var i = 0
    while i < bytes.count {
      if bytes[i] == first, i + pattern.count <= bytes.count, bytes[i..<(i + pattern.count)].elementsEqual(pattern) {
        out.append(contentsOf: replacement)
        i += pattern.count
      } else {
        out.append(bytes[i])
        i += 1
      }
    }
    return out
  }
}
