import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimSession
@testable import StoreSimTestSupport

/// Change lines (session file version 6; issue 46, item 10): a front end that keeps a session
/// loaded saves a change by appending a line that says what changed, and every reader of the
/// file reads the same state as from a whole save.
@Suite struct ChangeLinesTests {
  typealias Folder = SessionFileMutationTests.Folder

  /// A kept unit of work's change: a purchase of fuel, Ask to Buy off.
  static func buy(_ store: Store) throws -> Store {
    var store = store
    store.settings.askToBuyEnabled = false
    _ = try store.buyProduct("fuel")
    return store
  }

  /// The state `line` turns `state` into, as a reader of the file applies it.
  static func applied(
    _ line: [UInt8], to state: StoreState, skippingNotifications: Bool = false
  ) throws
    -> StoreState
  {
    var state = state
    try line.withUnsafeBufferPointer { (bytes) throws(StateCodec.DecodingError) in
      try StateCodec.applyChanges(bytes, to: &state, skippingNotifications: skippingNotifications)
    }
    return state
  }

  /// Property a change line says the whole change (storesim's own, not an App Store rule): for
  /// a purchase, a subscription, a refund of an old transaction, a move of the clock with
  /// renewals, a new customer, a delivery attempt, changed settings and a cleared delivery log,
  /// the line applied to the state before gives the state after, with and without its
  /// notifications.
  @Test func aChangeLineTurnsTheStateBeforeIntoTheStateAfter() throws {
    var store = Store(state: SessionFileMutationTests.document.state)
    store.settings.askToBuyEnabled = false
    let steps: [(String, (inout Store) throws -> Void)] = [
      ("a purchase", { _ = try $0.buyProduct("fuel") }),
      ("a subscription", { _ = try $0.buyProduct("monthly", customer: "bob") }),
      ("a refund of an old transaction", { try $0.refund($0.allTransactions().first { $0.productID == "fuel" }!.id) }),
      ("the clock", { try $0.advance(by: Fixtures.days(35)) }),
      ("a new customer", { try $0.addCustomer("carol") }),
      ("a new customer's purchase", { _ = try $0.buyProduct("car", customer: "carol") }),
      (
        "a delivery attempt",
        {
          $0.recordDelivery(
            NotificationDelivery(
              index: 2, url: "http://localhost:8080/notify", httpStatus: 500, error: nil, date: $0.now))
        }
      ),
      ("settings", { $0.settings.shouldEnterBillingRetryOnRenewal = false }),
      (
        "no delivery URL and no log",
        {
          $0.setDeliveryURL(nil)
          $0.state.deliveryLog = nil
        }
      ),
    ]
    for (name, step) in steps {
      let before = store.state
      try step(&store)
      #expect(store.state != before, "\(name) changed nothing")
      let line = try #require(try StateCodec.changeLine(from: before, to: store.state), "\(name): no line")
      #expect(line.last == 0x0A && line.dropLast().firstIndex(of: 0x0A) == nil, "\(name): not one line")
      #expect(try Self.applied(line, to: before) == store.state, "\(name)")
      var partialBefore = before
      partialBefore.notifications = []
      var partialAfter = store.state
      partialAfter.notifications = []
      #expect(try Self.applied(line, to: partialBefore, skippingNotifications: true) == partialAfter, "\(name)")
    }
  }

  /// Property a kept session's save appends a line (storesim's own, not an App Store rule): 30
  /// purchases through `perform(keeping:)` append 30 lines and write the file whole only once;
  /// after each, a reader of the file (another process) reads the kept state; a purchase's line
  /// does not grow with the session.
  @Test func aKeptSessionsSaveAppendsALineEveryReaderReads() throws {
    let folder = try Folder()
    let location = SessionLocation(resolvedFile: folder.file)
    try SessionFile.write(SessionFileMutationTests.document, to: location)
    let work = SessionWork(location: location, warn: { _ in })
    var kept = SessionWork.Kept()
    var sizes: [Int64] = []
    for _ in 0..<30 {
      let store = try work.perform(keeping: &kept, mutating: true, Self.buy)
      sizes.append(FileIdentity(folder.file)!.size)
      #expect(try SessionFile.read(folder.file, shownAs: "s").state == store.state)
    }
    #expect(kept.appends == 29, "\(kept.appends) appends over 30 saves")
    let growth = zip(sizes.dropFirst(), sizes.dropFirst(2)).map { $1 - $0 }
    #expect(growth.max()! - growth.min()! < 64, "a purchase's line grew: \(growth)")
    #expect(kept.reads == 1)
  }

  /// Property change lines stay bounded (storesim's own, not an App Store rule): once the lines
  /// outgrow `changeLinesAllowed` the file is written whole again, without them; a save of
  /// another process (the command line) writes it whole, and the keeper reads it again and then
  /// saves whole before it appends.
  @Test func linesAreDroppedByAWholeSave() throws {
    let folder = try Folder()
    let location = SessionLocation(resolvedFile: folder.file)
    try SessionFile.write(SessionFileMutationTests.document, to: location)
    let work = SessionWork(location: location, warn: { _ in })
    var kept = SessionWork.Kept()
    let whole = Int(FileIdentity(folder.file)!.size)
    var largest = 0
    for _ in 0..<400 {
      try work.perform(keeping: &kept, mutating: true, Self.buy)
      largest = max(largest, Int(FileIdentity(folder.file)!.size))
    }
    #expect(kept.appends < 399 && kept.appends > 100, "\(kept.appends) appends")
    // At most the last whole save (no larger than the final state's) and its allowance of lines.
    let final = try SessionFileFormat.encode(
      kept.snapshot!.store.state, configurationPath: "/tmp/some where/Products.storekit",
      configurationDigest: "0123456789abcdef"
    ).count
    #expect(whole < final)
    #expect(largest <= 2 * final + SessionWork.changeLinesAllowed, "the file reached \(largest) bytes")

    // Another process's unit of work writes the file whole.
    _ = try work.perform(mutating: true, { store in try store.buyProduct("car") }, plan: { _, _ in () })
    let data = try Data(contentsOf: URL(fileURLWithPath: folder.file))
    #expect(data.split(separator: 0x0A).count == 2, "lines survived a whole save")
    let appendsBefore = kept.appends
    try work.perform(keeping: &kept, mutating: true, Self.buy)
    #expect(kept.appends == appendsBefore && kept.reads == 2)
    try work.perform(keeping: &kept, mutating: true, Self.buy)
    #expect(kept.appends == appendsBefore + 1)
  }

  /// Property a kept store appends only to the file it wrote (storesim's own, not an App Store
  /// rule): serve's App Store Server API reads another process's file without the lock
  /// (`refresh`); that file may end in a line another keeper was killed in the middle of, so
  /// the next save of the store read from it writes the file whole, and every reader reads it.
  @Test func aKeptStoreAppendsOnlyToTheFileItWrote() throws {
    let folder = try Folder()
    let location = SessionLocation(resolvedFile: folder.file)
    try SessionFile.write(SessionFileMutationTests.document, to: location)
    let work = SessionWork(location: location, warn: { _ in })
    var kept = SessionWork.Kept()
    try work.perform(keeping: &kept, mutating: true, Self.buy)
    try work.perform(keeping: &kept, mutating: true, Self.buy)
    #expect(kept.appends == 1)
    // Another keeper saves, and is killed while it appends its next line.
    var other = SessionWork.Kept()
    try work.perform(keeping: &other, mutating: true, Self.buy)
    try work.perform(keeping: &other, mutating: true, Self.buy)
    let handle = try #require(FileHandle(forWritingAtPath: folder.file))
    handle.seekToEndOfFile()
    handle.write(Data(StateCodec.changePrefix + Array("0123".utf8)))
    handle.closeFile()
    #expect(try work.refresh(keeping: &kept, needsNotifications: true) == .read)
    let store = try work.perform(keeping: &kept, mutating: true, Self.buy)
    #expect(kept.appends == 1, "a line was appended to a file this store did not write")
    #expect(try SessionFile.read(folder.file, shownAs: "s").state == store.state)
  }

  /// Property a cut-short save is not read and damage is refused (storesim's own, not an App
  /// Store rule): a last line without its newline is a save still being written and is left
  /// out; a whole line with one byte changed, or other bytes after the lines, make the file
  /// refused as corrupt; one customer's row alone is never read from a file with lines.
  @Test func aLineCutShortIsLeftOutAndDamageIsRefused() throws {
    let folder = try Folder()
    let location = SessionLocation(resolvedFile: folder.file)
    try SessionFile.write(SessionFileMutationTests.document, to: location)
    let work = SessionWork(location: location, warn: { _ in })
    var kept = SessionWork.Kept()
    try work.perform(keeping: &kept, mutating: true, Self.buy)
    let first = try work.perform(keeping: &kept, mutating: true, Self.buy)
    let one = try Data(contentsOf: URL(fileURLWithPath: folder.file))
    let second = try work.perform(keeping: &kept, mutating: true, Self.buy)
    let two = try Data(contentsOf: URL(fileURLWithPath: folder.file))
    #expect(two.count > one.count)
    #expect(try SessionFileFormat.decode(two).1 == second.state)
    // A read of one customer's row (serve's early answer) does not stand for a file with lines:
    // the row in the state line may be older than a line's.
    let buyer = try #require(
      second.state.customers.first { $0.transactions.count > 1 && $0.transactions.last?.productID == "fuel" })
    let id = try #require(buyer.transactions.first?.id)
    #expect(try SessionFileFormat.decode(two, onlyCustomerHolding: id).1 == nil)
    for cut in [1, 20, (two.count - one.count) / 2, two.count - one.count - 1] {
      #expect(try SessionFileFormat.decode(two.prefix(one.count + cut)).1 == first.state, "cut at \(cut)")
    }
    var damaged = two
    damaged[one.count + (two.count - one.count) / 2] ^= 0x01
    #expect(throws: SessionFileFormat.Failure.self) { try SessionFileFormat.decode(damaged) }
    #expect(throws: SessionFileFormat.Failure.self) { try SessionFileFormat.decode(two + Data("x".utf8)) }
    #expect(throws: SessionFileFormat.Failure.self) { try SessionFileFormat.decode(two + Data("x\n".utf8)) }
  }
}
