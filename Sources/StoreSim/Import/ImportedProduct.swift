import Foundation

/// The minimal product `import --add-products` makes for one the data names and the
/// configuration lacks: the type and price the transaction carries (family-shareable when the
/// transaction is `FAMILY_SHARED`); an auto-renewable joins its `subscriptionGroupIdentifier` (made if new) at level 1,
/// with the period its dates span (a week, a month or a year, the nearest).
enum ImportedProduct {
  static func minimal(_ id: ProductID, like p: Transaction.Fields.Purchase, expires: Date?) -> Product {
    var info: SubscriptionInfo?
    if p.productType == .autoRenewable {
      let days = expires.map { $0.timeIntervalSince(p.purchaseDate) / 86_400 } ?? 30
      let period: SubscriptionPeriod =
        days < 15
        ? .init(value: 1, unit: .week) : days < 200 ? .init(value: 1, unit: .month) : .init(value: 1, unit: .year)
      info = SubscriptionInfo(groupID: p.subscriptionGroupID ?? "imported", groupLevel: 1, period: period)
    }
    // A family-shared transaction's product is family-shareable.
    return Product(
      id: id, type: p.productType, referenceName: id, price: p.price,
      isFamilyShareable: p.ownershipType == .familyShared, subscription: info)
  }
}

extension StoreConfiguration {
  /// This configuration with a product added (and its subscription group, if new).
  func adding(_ product: Product) -> StoreConfiguration {
    var groups = subscriptionGroups
    if let group = product.subscription?.groupID {
      if let i = groups.firstIndex(where: { $0.id == group }) {
        groups[i].productIDs.append(product.id)
      } else {
        groups.append(SubscriptionGroup(id: group, name: group, productIDs: [product.id]))
      }
    }
    var copy = StoreConfiguration(
      identifier: identifier, formatVersion: formatVersion, products: products + [product],
      subscriptionGroups: groups, settings: settings, unsupportedProductIDs: unsupportedProductIDs)
    copy.subscriptionOffersKey = subscriptionOffersKey
    return copy
  }
}
