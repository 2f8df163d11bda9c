import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimHTTP
@testable import StoreSimSession

/// The control API keeps each session's store loaded between the commands it runs (issue 46,
/// item 10): a session file that only the control API changed is not read again, one another
/// process saved is read before the next command acts on it, and the sessions it made are saved
/// without flushing to the disk while `default` is saved as every command saves it.
@Suite struct ControlKeptSessionTests {
  static func buy(_ control: ControlAPI, _ id: String) -> HTTPResponse {
    control.answer(
      ControlAPITests.request(
        "POST", "/storesim/v1/sessions/\(id)/buy", #"{"arguments": ["consumable.fuel.octane87"]}"#))
  }

  static func transactions(_ control: ControlAPI, _ id: String) -> Int {
    let list = control.answer(ControlAPITests.request("POST", "/storesim/v1/sessions/\(id)/transactions"))
    guard case .array(let items)? = ControlAPITests.json(list)?.value else { return -1 }
    return items.count
  }

  /// Property control session not read when unchanged (storesim's own, not an App Store rule): commands in a row read the session file once;
  /// a purchase the command line saved in between is read, and kept, by the next command.
  @Test func controlSessionNotReadWhenUnchanged() throws {
    let cli = try CLIHarness()
    let control = try ControlAPITests.control(cli)
    let id = try ControlAPITests.make(control)
    let file = control.sessions.file(id)
    for _ in 0..<3 { #expect(Self.buy(control, id).status == 200) }
    #expect(Self.transactions(control, id) == 3)
    #expect(control.sessions.kept.reads(file) == 1, "the unchanged session was read again")
    let other = cli.run(["buy", "consumable.fuel.octane87", "--session", "sessions/\(id).json"])
    #expect(other.code == 0, "\(other.stderr)")
    #expect(Self.buy(control, id).status == 200)
    #expect(control.sessions.kept.reads(file) == 2)
    #expect(Self.transactions(control, id) == 5, "a purchase of the command line was lost")
    let seen = cli.run(["transactions", "--json", "--session", "sessions/\(id).json"])
    #expect(seen.stdout.components(separatedBy: "\"transactionId\"").count - 1 == 5, "\(seen.stdout)")
  }

  /// Property control sessions saved without flush (storesim's own, not an App Store rule): a session the control API made is disposable and
  /// saved without `fsync`; `default`, the session serve was started with, is flushed as always.
  @Test func controlSessionsSavedWithoutFlush() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    let control = try ControlAPITests.control(cli)
    let id = try ControlAPITests.make(control)
    #expect(Self.buy(control, id).status == 200 && Self.buy(control, "default").status == 200)
    #expect(control.sessions.kept.entry(control.sessions.file(id))?.durable == false)
    #expect(control.sessions.kept.entry(control.sessions.defaultLocation!.file)?.durable == true)
    // A deleted session is forgotten: one made again under its name starts afresh.
    #expect(control.answer(ControlAPITests.request("DELETE", "/storesim/v1/sessions/\(id)")).status == 200)
    #expect(control.sessions.kept.entry(control.sessions.file(id)) == nil)
  }
}
