import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimSession

/// The delivery log as rows after `base` (session version 4; issue 47, item 11): a
/// retry storm's attempts cost a few dozen bytes each in the session file instead of a `Codable`
/// object each, every field of an attempt survives, and version 3's log in `base` still reads.
@Suite struct DeliveryLogRowsTests {
  static let url = "http://127.0.0.1:8080/notifications"

  /// The busy session with `count` failed attempts, as a Production retry storm records them.
  static func storm(_ count: Int) -> StoreState {
    var state = SessionFileMutationTests.document.state
    let start = state.now
    state.deliveryLog = (0..<count).map { n in
      NotificationDelivery(
        index: n % state.notifications.count, url: url, httpStatus: 401,
        error: "HTTP 401 is not a success for the App Store (200-206)", date: start.addingTimeInterval(Double(n)),
        result: "UNSUCCESSFUL_HTTP_RESPONSE_CODE", nextAttempt: start.addingTimeInterval(Double(n + 3600)))
    }
    return state
  }

  static func encoded(_ state: StoreState, version: Int = SessionFileFormat.currentVersion) throws -> Data {
    let document = SessionFileMutationTests.document
    return try SessionFileFormat.encode(
      state, configurationPath: document.configurationPath, configurationDigest: document.configurationDigest,
      version: version)
  }

  /// Property delivery log is compact (storesim's own, not an App Store rule): each attempt of a retry storm adds at most 64 bytes to the
  /// session file (a `Codable` object in `base` was about 300), and the file reads back the same.
  @Test func deliveryLogIsCompact() throws {
    let attempts = 6000
    var quiet = Self.storm(0)
    quiet.deliveryLog = nil
    let storm = Self.storm(attempts)
    let perAttempt = (try Self.encoded(storm).count - (try Self.encoded(quiet).count)) / attempts
    #expect(perAttempt <= 64, "\(perAttempt) bytes per attempt")
    let (header, read) = try SessionFileFormat.decode(try Self.encoded(storm))
    #expect(header.version == SessionFileFormat.currentVersion)
    #expect(read == storm, "\(SessionFileMutationTests.difference(read, storm))")
  }

  /// Every field of an attempt survives the rows: absent status, error, result, next attempt;
  /// the tester's resend and an injected duplicate; a fault; texts with quotes and non-ASCII.
  @Test func everyFieldOfAnAttemptSurvivesTheRows() throws {
    var state = Self.storm(0)
    let date = state.now
    state.deliveryLog = [
      NotificationDelivery(index: 0, url: Self.url, httpStatus: 200, error: nil, date: date, result: "SUCCESS"),
      NotificationDelivery(
        index: 1, url: "https://exämple.com/\"hook\"", httpStatus: nil, error: "connection refused", date: date,
        result: nil, origin: .resend),
      NotificationDelivery(
        index: 1, url: Self.url, httpStatus: 500, error: "HTTP 500", date: date, result: "OTHER",
        origin: .duplicate, fault: "delayed 25min; outage", nextAttempt: date.addingTimeInterval(3600)),
    ]
    for skipping in [false, true] {
      let (_, read) = try SessionFileFormat.decode(try Self.encoded(state), skippingNotifications: skipping)
      #expect(read.deliveryLog == state.deliveryLog)
    }
    var empty = state
    empty.deliveryLog = []
    #expect(try SessionFileFormat.decode(try Self.encoded(empty)).1.deliveryLog == [])
  }

  /// A version 3 file keeps its log in `base`: it still reads, and is saved again as rows.
  @Test func aVersionThreeLogInBaseStillReads() throws {
    let storm = Self.storm(12)
    let old = try Self.encoded(storm, version: 3)
    #expect(!String(decoding: old, as: UTF8.self).contains(#""deliveries""#))
    let (header, read) = try SessionFileFormat.decode(old)
    #expect(header.version == 3 && read == storm)
    #expect(String(decoding: try Self.encoded(read), as: UTF8.self).contains(#""deliveries":[["#))
  }

  /// Rows in a file that says version 3 are refused (a version 3 reader would not know them).
  @Test func deliveryRowsInAVersionThreeStateAreRefused() throws {
    let bytes = try StateCodec.encode(Self.storm(3))
    #expect(throws: StateCodec.DecodingError.self) {
      _ = try bytes.withUnsafeBufferPointer { try StateCodec.decode($0, deliveriesAsRows: false) }
    }
    #expect(try StateCodec.decode(bytes) == Self.storm(3))
  }
}
