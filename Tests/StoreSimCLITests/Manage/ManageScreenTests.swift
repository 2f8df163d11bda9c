import Foundation
import Testing

@testable import StoreSimCLI
@testable import StoreSimTestSupport

/// The screens at 80x24, compared with golden files, and the keys that move and show.
@Suite struct ManageScreenTests {
  @Test func theListAt80x24MatchesTheGolden() throws {
    let m = try ManageFixture()
    assertGolden(m.screen, "manage-list.txt")
    for line in ManageScreen.render(m.model) { #expect(line.text.count <= 80) }
    #expect(ManageScreen.render(m.model).count == 24)
  }

  @Test func detailsOfASubscriptionShowThePayloadRenewalInfoAndTimeline() throws {
    let m = try ManageFixture()
    m.select("2000000000000004")
    m.press("Enter")
    assertGolden(m.screen, "manage-details.txt")
    let all = ManageDetails.lines(m.model).joined(separator: "\n")
    for field in ["originalTransactionId", "expiresDate", "autoRenewStatus", "renewalDate", "TIMELINE", "legend:"] {
      #expect(all.contains(field), "\(field)")
    }
    m.press("G")
    #expect(m.model.detailsTop > 0)
    m.press("Esc")
    #expect(!m.model.showingDetails)
  }

  @Test func theHelpOverlayListsEveryKey() throws {
    let m = try ManageFixture()
    m.press("?")
    assertGolden(m.screen, "manage-help.txt")
    let help = ManageOverlays.helpLines(200).joined(separator: "\n")
    for k in ManageActions.keyTable { #expect(help.contains(k.keys)) }
    m.press("Esc")
    #expect(m.model.overlay == nil)
  }

  @Test func theNotificationLogShowsEachNotificationNewestFirst() throws {
    let m = try ManageFixture()
    m.press("2")
    assertGolden(m.screen, "manage-notifications.txt")
    #expect(m.model.selectedItem?.id == "#5")
    m.press("Enter")
    #expect(ManageDetails.lines(m.model).contains("    transactionInfo"))
    #expect(m.screen.contains("NOTIFICATION #"))
  }

  @Test func movingSkipsHeadingsAndKeepsTheSelectionOnScreen() throws {
    let m = try ManageFixture()
    #expect(m.model.cursor == 1)  // row 0 is a group heading
    m.press("k")
    #expect(m.model.cursor == 1)
    m.press("j")
    #expect(m.model.item(at: m.model.cursor!) != nil)
    #expect(m.model.cursor! > 1)
    m.press("G")
    #expect(m.model.cursor == m.model.rows.count - 1)
    m.press("g")
    #expect(m.model.cursor == 1)
    m.press("PgDn")
    #expect(m.model.cursor == m.model.rows.count - 1)
    #expect(m.press("q") == [.quit])
    #expect(m.press("^Z") == [.suspend])
    #expect(m.press("^L") == [.redraw])
  }

  @Test func rowsAreNewestFirstGroupedWithTheirBadges() throws {
    let m = try ManageFixture()
    let items = m.model.items
    #expect(items.first?.id == "request 1")
    #expect(items.first?.state == "ask-to-buy")
    let byID = Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    #expect(byID["2000000000000001"]?.state == "refunded")
    #expect(byID["2000000000000004"]?.state == "active")
    #expect(byID["2000000000000003"]?.state == "expired")
    #expect(byID["2000000000000002"]?.flags == ["unfinished"])
    #expect(byID["2000000000000005"]?.customer == "kid")
    let headings = m.model.rows.compactMap {
      if case .heading(let g) = $0 { return m.model.groups[g].title } else { return nil }
    }
    #expect(headings.contains("Navigation Services (subscription group)"))
  }

  @Test func aFamilyMembersSharedSubscriptionShowsThePurchasersStateAsTheMembersStatusDoes() throws {
    var store = Fixtures.store {
      $0.shouldEnterBillingRetryOnRenewal = true
      $0.billingGracePeriodIsEnabled = true
    }
    try store.addFamilyMember("kid")
    let t = try store.buyProduct("monthly")
    let kid = try #require(store.customer("kid"))
    let copy = try #require(kid.transactions.first { $0.productID == "monthly" })
    #expect(ManageRows.transactionItem(copy, customer: kid, store: store).state == "active")
    try store.advance(to: t.expirationDate!)
    let member = try #require(store.customer("kid"))
    let shared = try #require(store.statuses(forGroup: "G1", customer: "kid").first { $0.isFamilyShared })
    #expect(shared.state == .inGracePeriod)
    let item = ManageRows.transactionItem(shared.transaction, customer: member, store: store)
    #expect(item.state == "grace-period")
    #expect(item.flags.contains("family-shared"))
  }

  @Test func everyBadgeOfTheListComesFromTheStateItNames() throws {
    // Billing retry without grace, an upgrade, a family revocation and an interrupted purchase.
    var store = Fixtures.store { $0.shouldEnterBillingRetryOnRenewal = true }
    try store.addFamilyMember("kid")
    let basic = try store.buyProduct("basic")
    _ = try store.buyProduct("pro")
    let me = try #require(store.customer(.default))
    let upgraded = try #require(me.transaction(basic.id))
    #expect(ManageRows.transactionItem(upgraded, customer: me, store: store).state == "upgraded")
    let car = try store.buyProduct("car")
    let pro = try #require(store.status())
    try store.advance(to: pro.transaction.expirationDate!)
    let later = try #require(store.customer(.default))
    let retrying = try #require(later.transaction(pro.transaction.id))
    #expect(ManageRows.transactionItem(retrying, customer: later, store: store).state == "billing-retry")
    #expect(ManageRows.transactionItem(car, customer: later, store: store).state == "purchased")
    try store.removeFamilyMember("kid")
    let kid = try #require(store.customer("kid"))
    let revoked = try #require(kid.transactions.first { $0.productID == "car" })
    let item = ManageRows.transactionItem(revoked, customer: kid, store: store)
    #expect(item.state == "revoked")
    #expect(item.flags.contains("family-shared"))
    store.settings.interruptedPurchasesEnabled = true
    _ = try store.purchase("fuel")
    let request = try #require(store.state.pendingRequests.firstIndex { $0.kind == .interrupted })
    let ref = ManageRef(kind: .request, customer: 0, index: Int32(request), id: 0, ms: 0)
    #expect(ManageRows.item(ref, store).state == "interrupted")
  }

  @Test func aScreenBelow80x24AsksForMoreAndOnlyQuits() throws {
    let m = try ManageFixture()
    m.driver.model.resize(width: 60, height: 20)
    #expect(m.screen.contains("needs 80x24 or more (now 60x20)"))
    #expect(m.press("j") == [ManageEffect.none])
    #expect(m.press("q") == [.quit])
  }

  @Test func keysDecodeFromTerminalBytes() {
    var d = ManageKeyDecoder()
    #expect(d.decode(Array("jq".utf8)) == [.character("j"), .character("q")])
    #expect(d.decode([0x1B, 0x5B, 0x41, 0x1B, 0x5B, 0x42]) == [.up, .down])
    #expect(d.decode([0x1B, 0x5B, 0x36, 0x7E, 0x1B, 0x5B, 0x35, 0x7E]) == [.pageDown, .pageUp])
    #expect(d.decode([0x1B, 0x4F, 0x48]) == [.home])
    #expect(d.decode([0x1B]) == [.escape])
    #expect(d.decode([13, 3, 26, 127, 9]) == [.enter, .control("c"), .control("z"), .backspace, .tab])
    #expect(d.decode([0xC3]) == [])
    #expect(d.decode([0xA9]) == [.character("é")])
  }
}

/// docs/manage.md's key table and screen are the program's.
@Suite struct ManageReadmeTests {
  static let readme =
    (try? String(contentsOf: CLIHarness.projectRoot.appendingPathComponent("docs/manage.md"), encoding: .utf8)) ?? ""

  @Test func theReadmeKeyTableIsTheProgramsKeyTable() {
    var table = "| keys | what they do | storesim command |\n|---|---|---|\n"
    for k in ManageActions.keyTable {
      let command = k.command.isEmpty ? "" : "`\(k.command.replacingOccurrences(of: "|", with: "\\|"))`"
      table += "| `\(k.keys)` | \(k.action) | \(command) |\n"
    }
    #expect(Self.readme.contains(table), "docs/manage.md must hold the key table of ManageActions.keyTable:\n\(table)")
  }

  @Test func theReadmeScreenIsACapturedScreen() throws {
    let url = CLIHarness.projectRoot.appendingPathComponent("Tests/StoreSimCLITests/Golden/manage-tmux/04-renewed.txt")
    let screen = try String(contentsOf: url, encoding: .utf8)
    #expect(Self.readme.contains("```\n" + screen + "```\n"), "docs/manage.md must show manage-tmux/04-renewed.txt")
  }
}
