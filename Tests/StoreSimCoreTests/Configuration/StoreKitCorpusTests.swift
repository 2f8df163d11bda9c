import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

/// Loads every real `.storekit` file of `../shared/corpus/storekit` (skipped when absent).
@Suite struct StoreKitCorpusTests {
  @Test(.enabled(if: StoreKitCorpus.isPresent, "shared/corpus/storekit is not beside the clone"))
  func everyJSONFileLoadsAndEveryOtherFileGivesACleanLocatedError() throws {
    var loaded = 0, refused = 0
    for file in StoreKitCorpus.files {
      let data = try Data(contentsOf: file)
      let isJSON = (try? JSONSerialization.jsonObject(with: data)) != nil
      do {
        let result = try ConfigurationReader.read(data)
        #expect(isJSON, "\(file.lastPathComponent) loaded but is not JSON")
        // Every product read is named, once, and a product storesim skips is not also loaded.
        let ids = result.configuration.products.map(\.id)
        #expect(!ids.contains(""), "\(file.lastPathComponent) has a product without an id")
        #expect(Set(ids).count == ids.count, "\(file.lastPathComponent) loaded a product twice")
        #expect(Set(ids).isDisjoint(with: result.configuration.unsupportedProductIDs))
        loaded += 1
      } catch {
        #expect(!isJSON, "\(file.lastPathComponent): \(error.issue)")
        #expect(error.issue.location != nil)
        #expect(!error.issue.message.contains("\n"))
        refused += 1
      }
    }
    #expect(loaded >= 78)
    #expect(refused == 2)
  }

  @Test(.enabled(if: StoreKitCorpus.isPresent, "shared/corpus/storekit is not beside the clone"))
  func appleWWDCSampleHasItsCatalogue() throws {
    let file = StoreKitCorpus.folder.appendingPathComponent("cntrump__SKDemo__SKDemo_Products__ac351cb.storekit")
    let c = try ConfigurationReader.read(try Data(contentsOf: file)).configuration
    #expect(c.products.count == 10)
    #expect(c.product("subscription.pro")?.subscription?.groupLevel == 1)
    #expect(c.product("subscription.pro")?.subscription?.introductoryOffer?.paymentMode == .payUpFront)
    #expect(c.product("nonRenewing.standard")?.type == .nonRenewable)
    #expect(c.settings.timeRate == .monthlyRenewalEveryThirtySeconds)
  }

  @Test(.enabled(if: StoreKitCorpus.isPresent, "shared/corpus/storekit is not beside the clone"))
  func everyLoadableCorpusFileRunsAPurchaseOfEachProductWithoutThrowing() throws {
    for file in StoreKitCorpus.files {
      guard let loaded = try? ConfigurationReader.read(try Data(contentsOf: file)) else { continue }
      var store = Store(configuration: loaded.configuration, start: Fixtures.start)
      store.settings.timeRate = .realTime  // accelerated files would renew every few seconds
      for product in loaded.configuration.products {
        _ = try store.purchase(product.id)
      }
      try store.advance(by: 86_400 * 400)
    }
  }
}
