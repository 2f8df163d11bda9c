import Foundation
import Testing

@testable import StoreSimCLI

/// `/`: the list narrows as you type; customer:, product: and state: terms; Esc clears.
@Suite struct ManageFilterTests {
  @Test func typingNarrowsTheListAtEachKeyAndEnterKeepsIt() throws {
    let m = try ManageFixture()
    let all = m.model.itemCount
    m.press("/", "\"state:unfin\"")
    #expect(m.model.prompt != nil)
    #expect(m.model.items.allSatisfy { $0.flags.contains("unfinished") })
    #expect(m.model.itemCount < all)
    m.press("Enter")
    #expect(m.model.prompt == nil)
    #expect(m.model.filter.text == "state:unfin")
    #expect(m.screen.contains("filter: state:unfin"))
    #expect(m.screen.contains("\(m.model.itemCount) of \(all) rows"))
    m.press("Esc")
    #expect(m.model.filter.isEmpty)
    #expect(m.model.itemCount == all)
  }

  @Test func termsMatchCustomerProductStateAndPlainWordsMatchIdOrProduct() throws {
    let m = try ManageFixture()
    func ids(_ text: String) -> [String] {
      m.driver.model.setFilter(text)
      return m.model.items.map(\.id).sorted()
    }
    #expect(ids("customer:kid") == ["2000000000000005"])
    #expect(ids("state:refunded") == ["2000000000000001"])
    #expect(ids("product:subscription") == ["2000000000000003", "2000000000000004"])
    #expect(ids("000000000004") == ["2000000000000004"])
    #expect(ids("racecar") == ["request 1"])
    #expect(ids("state:active product:standard") == ["2000000000000004"])
    #expect(ids("nothing-like-this") == [])
    #expect(m.screen.contains("(no row matches the filter; Esc clears it)"))
  }

  @Test func escWhileTypingDropsTheFilter() throws {
    let m = try ManageFixture()
    m.press("/", "\"car\"", "Esc")
    #expect(m.model.prompt == nil)
    #expect(m.model.filter.isEmpty)
  }

  @Test func theSelectionStaysOnItsRowWhenTheFilterChanges() throws {
    let m = try ManageFixture()
    m.select("2000000000000004")
    m.press("/", "\"subscription\"", "Enter")
    #expect(m.model.selectedItem?.id == "2000000000000004")
    m.press("Esc")
    #expect(m.model.selectedItem?.id == "2000000000000004")
  }

  @Test func theNotificationsTabHasItsOwnFilter() throws {
    let m = try ManageFixture()
    m.press("2", "/", "\"DID_RENEW\"", "Enter")
    #expect(m.model.items.map(\.state) == ["DID_RENEW"])
    m.press("1")
    #expect(m.model.filter.isEmpty)
  }
}
