import Foundation
import StoreSim
import Testing

@testable import StoreSimCLI
@testable import StoreSimSession

/// `populate` writes its notifications out as they are made (`OutboxFile`), so a large
/// population's memory does not hold them (issue 50, item 6): the store keeps only their places,
/// and the session saved is the same, byte for byte, as one saved from the notifications.
@Suite struct PopulateWrittenOutTests {
  /// Every event often, so that the rows hold every kind of notification and transaction.
  static var rates: PopulationPlan.Rates {
    var r = PopulationPlan.Rates()
    r.churn = 15
    r.billingFailure = 20
    r.refund = 10
    r.planChange = 10
    r.promotional = 50
    r.family = 20
    r.askToBuy = 10
    return r
  }

  @Test func notificationsWrittenOutAsTheyAreMadeSaveTheSameBytes() throws {
    let cli = try CLIHarness()
    cli.run(PopulateTests.initLine)
    // A notification from before the population is written out with the rest.
    #expect(cli.run("buy com.example.premium.monthly").code == 0)
    let location = try SessionLocation(shown: cli.folder + "/.storesim/session.json", resolve: { $0 })
    let document = try SessionFile.read(location.file, shownAs: "s")
    let plan = PopulationPlan(
      customers: 2500, months: 12, seed: 9, arrivalMonths: 12,
      mix: PopulationPlan.defaultMix(document.state.configuration), rates: Self.rates)
    func populated(writingOutTo written: OutboxFile?) throws -> (Data, Store) {
      var store = Store(state: document.state)
      var run = PopulationRun(plan: plan, start: store.state.startDate)
      try run.run(on: &store, writingOutTo: written)
      var saved = document
      saved.state = store.state
      try SessionFile.write(saved, to: location, written: written)
      return (try Data(contentsOf: URL(fileURLWithPath: location.file)), store)
    }
    let (kept, whole) = try populated(writingOutTo: nil)
    let written = OutboxFile(beside: location)
    let (out, store) = try populated(writingOutTo: written)
    #expect(out == kept)
    // More than a mebibyte of rows, in more than one batch: they went through the file.
    #expect(whole.notifications.count > 2 * PopulationRun.writtenOutAtOnce)
    #expect(kept.count > 2 << 20)
    // The store kept their places only, one shared stand-in.
    #expect(written.count == whole.notifications.count)
    #expect(store.notifications.count == whole.notifications.count)
    #expect(store.notifications.allSatisfy { $0.sequence == -1 })
    #expect(try SessionFile.read(location.file, shownAs: "s").state == whole.state)
  }

  /// The command, which writes them out, saves the session a population that kept its
  /// notifications saves.
  @Test func populateSavesWhatAPopulationKeepingItsNotificationsSaves() throws {
    let cli = try CLIHarness()
    cli.run(PopulateTests.initLine)
    let options = "--customers 150 --months 6 --seed 4 --family 20 --refund 10"
    #expect(cli.run("populate \(options)").code == 0)
    let bytes = try PopulateTests.file(cli, ".storesim/session.json")
    let location = try SessionLocation(shown: cli.folder + "/.storesim/session.json", resolve: { $0 })
    try? FileManager.default.removeItem(atPath: cli.folder + "/.storesim")
    cli.run(PopulateTests.initLine)
    var document = try SessionFile.read(location.file, shownAs: "s")
    var store = Store(state: document.state)
    var plan = PopulationPlan(
      customers: 150, months: 6, seed: 4, arrivalMonths: 6, mix: PopulationPlan.defaultMix(store.configuration),
      rates: PopulationPlan.Rates())
    plan.rates.family = 20
    plan.rates.refund = 10
    var run = PopulationRun(plan: plan, start: store.state.startDate)
    try run.run(on: &store)
    document.state = store.state
    try SessionFile.write(document, to: location)
    #expect(try PopulateTests.file(cli, ".storesim/session.json") == bytes)
  }
}
