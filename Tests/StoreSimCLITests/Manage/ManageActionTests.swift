import Foundation
import Testing

@testable import StoreSimCLI

/// Each key runs the CLI's command on the selected row: the change is saved as the command
/// saves it, and a refusal is the command's own message with nothing changed.
@Suite struct ManageActionTests {
  @Test func aApprovesTheSelectedAskToBuyRequest() throws {
    let m = try ManageFixture()
    m.select("request 1")
    m.press("a")
    #expect(m.model.message.hasPrefix("approved   request 1 for nonconsumable.racecar: transaction 2000000000000006"))
    #expect(m.model.selectedItem?.id == "2000000000000006")
    #expect(m.cli.run("pending").stdout == "(none)\n")
  }

  @Test func dDeclinesIt() throws {
    let m = try ManageFixture()
    m.select("request 1")
    m.press("d")
    #expect(m.model.message == "2026-02-01T00:00:00Z  Ask to Buy request 1 for nonconsumable.racecar declined")
    #expect(!m.model.items.contains { $0.id == "request 1" })
  }

  @Test func aRefusalIsTheCommandsOwnMessageAndChangesNothing() throws {
    let m = try ManageFixture()
    m.select("2000000000000002")
    let before = m.sessionBytes
    let expected = m.cli.run("cancel --transaction 2000000000000002").stderr
    for key in ["c", "a", "e", "+", "u", "i", "v"] {
      m.press(key)
      #expect(m.model.message.hasPrefix("error: "), "\(key)")
      #expect(m.sessionBytes == before, "\(key) changed the session")
      #expect(m.screen.contains(String(m.model.message.prefix(60))))
    }
    m.press("c")
    #expect(m.model.message + "\n" == expected)
  }

  @Test func rRefundsTheSelectedTransactionAsTheCommandDoes() throws {
    let m = try ManageFixture()
    m.select("2000000000000002")
    m.press("r")
    #expect(m.model.message.contains("transaction 2000000000000002 for consumable.fuel.octane87 revoked"))
    #expect(m.model.selectedItem?.state == "refunded")
    #expect(m.cli.run("transactions").stdout.contains("refunded 2026-02-01T00:00:00Z"))
    m.press("r")
    #expect(m.model.message.hasPrefix("error: "))
  }

  @Test func advancingAMonthShowsTheRenewal() throws {
    let m = try ManageFixture()
    m.press("@", "\"1mo\"", "Enter")
    #expect(
      m.model.lastOutput.contains("2026-03-01T00:00:00Z  renewed subscription.standard: transaction 2000000000000006"))
    let top = m.model.items.first { $0.productID == "subscription.standard" }
    #expect(top?.id == "2000000000000006")
    #expect(top?.state == "active")
    #expect(m.cli.run("now").stdout == "2026-03-01T00:00:00Z\n")
    m.press("t")
    #expect(m.cli.run("now").stdout == "2026-03-02T00:00:00Z\n")
  }

  @Test func bigTAdvancesToTheEndOfTheSelectedPeriod() throws {
    let m = try ManageFixture()
    m.select("2000000000000004")
    m.press("T")
    #expect(m.cli.run("now").stdout == "2026-03-01T00:00:00Z\n")
    m.select("2000000000000002")
    m.press("T")
    #expect(m.model.message == "error: select a subscription transaction: T advances to the end of its period")
  }

  @Test func anotherProcesssChangeAppearsWithoutAKey() throws {
    let m = try ManageFixture()
    m.select("2000000000000004")
    let unchanged = m.driver.refreshIfChanged()
    #expect(!unchanged)
    #expect(m.cli.run("buy consumable.fuel.octane89").code == 0)
    let changed = m.driver.refreshIfChanged()
    #expect(changed)
    #expect(m.model.items.contains { $0.id == "2000000000000006" })
    #expect(m.model.message == "updated by another process")
    #expect(m.model.selectedItem?.id == "2000000000000004")
  }

  @Test func buyingFromThePickerAsAnotherCustomer() throws {
    let m = try ManageFixture()
    m.press("C", "\"grandma\"", "Enter")
    #expect(m.model.acting == "grandma")
    m.press("b", "\"octane91\"")
    #expect(m.screen.contains("> consumable.fuel.octane91      consumable     $2.99"))
    m.press("Enter")
    #expect(m.model.message.hasPrefix("purchased  consumable.fuel.octane91"))
    #expect(m.cli.run("transactions --customer grandma").stdout.contains("consumable.fuel.octane91"))
    m.press("b", "\"with intro\"", "Enter")
    #expect(m.model.message.hasPrefix("purchased  subscription.pro"))
    #expect(m.cli.run("latest subscription.pro --customer grandma --json").stdout.contains("\"offerType\": 1"))
  }

  @Test func settingsToggleThroughTheSettingsCommand() throws {
    let m = try ManageFixture()
    m.press("o", "Enter")
    #expect(m.model.message == "ask-to-buy = on")
    #expect(m.screen.contains("ask-to-buy:on"))
    #expect(m.cli.run("settings ask-to-buy").stdout == "on\n")
  }

  @Test func colonRunsAnyCommandAndRefusesTheInteractiveOnes() throws {
    let m = try ManageFixture()
    m.press(":", "\"now\"", "Enter")
    #expect(m.model.message == "2026-02-01T00:00:00Z")
    m.press(":", "\"shell\"", "Enter")
    #expect(m.model.message.hasPrefix("error: 'shell' takes over the terminal"))
    m.press(":", "\"frobnicate\"", "Enter")
    #expect(m.model.message.hasPrefix("error: unknown command 'frobnicate'"))
  }

  @Test func xDeletesAnOriginalPurchaseWithItsRenewals() throws {
    let m = try ManageFixture()
    m.select("2000000000000003")
    m.press("x")
    #expect(m.model.message == "deleted transaction 2000000000000003 and its 1 renewal")
    #expect(!m.model.items.contains { $0.productID == "subscription.standard" })
    #expect(m.cli.run("delete 2000000000000003").stderr == "error: no transaction with id 2000000000000003\n")
  }

  @Test func refundRequestsAreAnsweredFromTheirTransaction() throws {
    let m = try ManageFixture()
    m.select("2000000000000002")
    m.press("R")
    #expect(m.model.selectedItem?.flags.contains("refund-requested") == true)
    m.press("d")
    #expect(m.model.message.contains("declined"))
    #expect(m.model.selectedItem?.flags.contains("refund-requested") == false)
    #expect(m.model.selectedItem?.state == "purchased")
  }

  @Test func theLastOutputIsShownWhole() throws {
    let m = try ManageFixture()
    m.press("@", "\"1mo\"", "Enter", "L")
    #expect(m.screen.contains("Output of the last command"))
    #expect(m.screen.contains("now 2026-03-01T00:00:00Z"))
  }
}
