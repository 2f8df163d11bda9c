import Foundation
import StoreSim

/// The wire's `displayPrice` of each product (and `"<id> intro"` for an introductory offer),
/// read from the engine's JSON for a storefront: what the CLI and the server show.
enum WirePrices {
  static func displayPrices(_ url: URL, storefront: String) throws -> [String: String] {
    let loaded = try ConfigurationReader.read([UInt8](Data(contentsOf: url)))
    let front = try require_(StoreSim.Storefront.named(storefront))
    var result: [String: String] = [:]
    for product in loaded.configuration.products {
      let json = product.jsonRepresentation(locale: "en_US", storefront: front).rendered(pretty: false)
      let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
      result[product.id] = object?["displayPrice"] as? String
      let intro = (object?["subscription"] as? [String: Any])?["introductoryOffer"] as? [String: Any]
      if let price = intro?["displayPrice"] as? String { result[product.id + " intro"] = price }
    }
    return result
  }

  private static func require_<T>(_ value: T?) throws -> T {
    guard let value else { throw CocoaError(.coderValueNotFound) }
    return value
  }
}
