import Foundation
import Testing

@testable import StoreSimCLI

@Suite struct CLIGoldenTests {
  static let storyText: [String] = [
    "init AppleSample.storekit --start 2026-01-01T00:00:00Z",
    "products",
    "buy nonconsumable.car",
    "buy consumable.fuel.octane87 --quantity 2",
    "buy subscription.standard",
    "buy nonRenewing.standard",
    "settings ask-to-buy on",
    "buy nonconsumable.racecar",
    "pending",
    "approve",
    "settings ask-to-buy off",
    "buy subscription.pro",
    "advance 2mo",
    "refund 2000000000000001 --reason developer-issue",
    "entitlements",
    "status",
    "transactions --unfinished",
    "latest subscription.pro",
    "cancel subscription.pro",
    "advance --next",
    "status",
    "notifications",
    "now",
  ]

  @Test func textOutputOfTheMainStoryMatchesTheGolden() throws {
    let cli = try CLIHarness()
    assertGolden(cli.transcript(Self.storyText), "story-text.txt")
  }

  @Test func jsonOutputOfTheMainStoryMatchesTheGolden() throws {
    let cli = try CLIHarness()
    let lines = Self.storyText.map { $0.hasPrefix("init") || $0.hasPrefix("settings") ? $0 : $0 + " --json" }
    assertGolden(cli.transcript(lines), "story-json.txt")
  }

  @Test func subscriptionLifecycleOutputMatchesTheGolden() throws {
    let cli = try CLIHarness()
    let lines = [
      "init Premium.storekit --start 2026-01-31T12:00:00Z --environment Sandbox",
      "buy com.example.premium.monthly",
      "advance 1w",
      "settings billing-retry on",
      "settings grace-period on",
      "advance 1mo",
      "status",
      "settings billing-retry off",
      "resolve com.example.premium.monthly",
      "buy com.example.premium.yearly",
      "price-increase com.example.premium.yearly request",
      "advance 1y",
      "status",
      "buy com.example.premium.monthly --offer win-back:premium.monthly.winback",
      "notifications --since 5",
    ]
    assertGolden(cli.transcript(lines), "lifecycle-text.txt")
  }

  @Test func refundsPriceIncreaseAndAnniversaryOutputMatchesTheGolden() throws {
    let cli = try CLIHarness()
    let lines = [
      "init Premium.storekit --start 2026-01-31T12:00:00Z --environment Sandbox",
      "buy com.example.coins.100",
      "finish --all",
      "refund request com.example.coins.100 --reason unintended-purchase",
      "pending",
      "refund approve 1",
      "refund reverse 2000000000000001",
      "buy com.example.premium.lifetime",
      "refund request com.example.premium.lifetime",
      "refund decline 2",
      "buy com.example.premium.monthly --offer code:FREEMONTH",
      "advance 3mo",
      "refund request com.example.premium.monthly --reason fulfillment-issue",
      "refund approve 3 --reason developer-issue",
      "refund reverse 2000000000000006",
      "resume com.example.premium.monthly",
      "price-increase com.example.premium.monthly request --price 12.99",
      "status",
      "price-increase com.example.premium.monthly accept",
      "advance --next",
      "cancel com.example.premium.monthly",
      "buy com.example.premium.quarterly",
      "advance --next",
      "transactions",
      "notifications --since 5",
      "notifications --decoded --since 10",
    ]
    assertGolden(cli.transcript(lines), "refunds-text.txt")
  }

  @Test func helpOverviewAndEveryCommandHelpMatchGoldens() throws {
    let cli = try CLIHarness()
    var text = cli.transcript(["--help"])
    for spec in CommandTable.standard.commands {
      text += cli.transcript(["help \(spec.name)"])
    }
    assertGolden(text, "help.txt")
  }
}
