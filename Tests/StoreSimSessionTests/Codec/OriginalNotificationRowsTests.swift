import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimSession

/// The original of an imported notification (its JWS and notificationUUID, issue 49 item 3) at
/// the end of its row (session version 5): kept compactly, given back byte for byte, and
/// version 4 files (without originals) still read.
@Suite struct OriginalNotificationRowsTests {
  /// The busy session with each notification carrying, as its original, the JWS the session
  /// signs for it (an App Store-like JWS: the payload holds two more with the same header).
  static func imported() -> (state: StoreState, signed: [String]) {
    var state = SessionFileMutationTests.document.state
    let store = Store(state: state)
    var signed: [String] = []
    for i in state.notifications.indices {
      guard case .object(let body) = store.signedBody(state.notifications[i]),
        case .string(let jws)? = body["signedPayload"] ?? nil
      else { continue }
      signed.append(jws)
      state.notifications[i].original = OriginalNotification(
        signedPayload: jws, notificationUUID: "0b1c2d3e-0000-4000-8000-00000000000\(i % 10)")
    }
    return (state, signed)
  }

  /// Property imported notification keeps its original (storesim's own, docs/import.md): the
  /// JWS reads back byte for byte through the session file, and its notificationUUID is the
  /// one the notification answers with.
  @Test func importedNotificationKeepsItsOriginal() throws {
    let (state, signed) = Self.imported()
    #expect(signed.count == state.notifications.count && !signed.isEmpty)
    let bytes = try DeliveryLogRowsTests.encoded(state)
    let (header, read) = try SessionFileFormat.decode(bytes)
    #expect(header.version == SessionFileFormat.currentVersion)
    #expect(read == state, "\(SessionFileMutationTests.difference(read, state))")
    #expect(read.notifications.map { $0.original?.signedPayload } == signed)
    #expect(read.notifications[0].notificationUUID == "0b1c2d3e-0000-4000-8000-000000000000")
    // The outbox read on its own (the halves' and the streaming writer's paths) gives them too.
    var streamed: [UInt8] = []
    try StateCodec.encode(state, chunk: 512) { part, _ in streamed.append(contentsOf: part) }
    #expect(streamed == (try StateCodec.encode(state)))
  }

  /// Property original is kept compactly (storesim's own): the header's copies inside the
  /// payload are kept once, so the session keeps a notification's JWS in well under its length.
  @Test func originalIsKeptCompactly() throws {
    let (state, signed) = Self.imported()
    var plain = state
    for i in plain.notifications.indices { plain.notifications[i].original = nil }
    let added = try DeliveryLogRowsTests.encoded(state).count - DeliveryLogRowsTests.encoded(plain).count
    let total = signed.reduce(0) { $0 + $1.utf8.count }
    #expect(state.notifications.allSatisfy { $0.original?.isCompact == true })
    #expect(Double(added) < 0.6 * Double(total), "\(added) bytes kept for \(total) bytes of JWS")
  }

  /// A JWS whose payload does not give its segment back (a base64url with stray bits, a payload
  /// that is not JSON text) is kept as it came, and still given back byte for byte.
  @Test func originalThatIsNotCanonicalIsKeptAsItCame() throws {
    let (_, signed) = Self.imported()
    let parts = signed[0].split(separator: ".").map(String.init)
    // `e30` is `{}`; `e31` decodes to it too (stray low bits) but does not come back from it;
    // `bm90IGpzb24` is "not json", text all the same.
    for payload in ["e30", "e31", "bm90IGpzb24"] {
      let jws = parts[0] + "." + payload + "." + parts[2]
      let original = OriginalNotification(signedPayload: jws, notificationUUID: nil)
      #expect(original.signedPayload == jws)
      #expect(original.isCompact == (payload != "e31"), "\(payload)")
    }
    #expect(OriginalNotification(signedPayload: "not.a.jws!", notificationUUID: nil).signedPayload == "not.a.jws!")
  }

  /// A version 4 file (no originals) still reads, and is saved again as the current version.
  @Test func aVersionFourFileStillReads() throws {
    let state = SessionFileMutationTests.document.state
    let old = try DeliveryLogRowsTests.encoded(state, version: 4)
    let (header, read) = try SessionFileFormat.decode(old)
    #expect(header.version == 4 && read == state)
    #expect(
      try SessionFileFormat.decode(try DeliveryLogRowsTests.encoded(read)).0.version == SessionFileFormat.currentVersion
    )
  }
}
