import Foundation

/// Reading subscriptions: groups, levels, periods, offers, billing plans.
extension Reader {
  mutating func readSubscription(
    _ node: JSONNode, path: String, groupID: SubscriptionGroupID
  ) throws(ConfigurationIssue) -> Product? {
    guard let m = node.members else {
      warn(path, node.location, "a subscription is \(node.value.kindDescription), expected an object; skipped")
      return nil
    }
    warnDuplicateKeys(m, path: path)
    let id = try requireProductID(node, path: path)
    warnSubscriptionType(node, path: path)
    warnDeclaredGroup(node, path: path, groupID: groupID)
    let level = readGroupLevel(node, path: path, id: id)
    let period = readRenewalPeriod(node, path: path, id: id)
    let intro = readIntroductoryOffer(node, path: path)
    let promotional = readOffers(node, "adHocOffers", .promotional, path: path)
    let codes = readOffers(node, "codeOffers", .code, path: path)
    let winBack = readOffers(node, "winbackOffers", .winBack, path: path)
    let plans = readBillingPlans(node, path: path)
    let (price, displayPrice) = readPrice(node, path: path, id: id)
    warnUnknownKeys(
      m,
      known: [
        "productID", "referenceName", "type", "displayPrice", "familyShareable", "familySharable",
        "isFamilyShareable", "internalID", "localizations", "subscriptionGroupID", "groupNumber",
        "recurringSubscriptionPeriod", "introductoryOffer", "introductoryOffers", "adHocOffers",
        "codeOffers", "winbackOffers", "billingPlans", "promotionalImageID",
      ], path: path, what: "subscription")
    return Product(
      id: id, type: .autoRenewable, referenceName: string(node["referenceName"], path: "\(path).referenceName") ?? "",
      price: price, displayPrice: displayPrice, isFamilyShareable: readFamilyShareable(node, path: path),
      internalID: string(node["internalID"], path: "\(path).internalID") ?? "",
      localizations: readLocalizations(node["localizations"], path: "\(path).localizations"),
      subscription: SubscriptionInfo(
        groupID: groupID, groupLevel: level, period: period, introductoryOffer: intro,
        promotionalOffers: promotional, offerCodes: codes, winBackOffers: winBack, billingPlans: plans))
  }

  /// Warns about a `type` other than Xcode's `RecurringSubscription` (the group decides).
  mutating func warnSubscriptionType(_ node: JSONNode, path: String) {
    if let typeNode = node["type"], let raw = string(typeNode, path: "\(path).type"), raw != "RecurringSubscription" {
      if ProductType(anyName: raw) == .autoRenewable {
        warn(
          "\(path).type", typeNode.location,
          "type '\(raw)' is not Xcode's spelling; read as an auto-renewable subscription")
      } else {
        warn(
          "\(path).type", typeNode.location,
          "type '\(raw)' inside a subscription group; the group wins: read as an auto-renewable subscription")
      }
    }
  }

  /// Warns about a `subscriptionGroupID` other than the enclosing group's (the group decides).
  mutating func warnDeclaredGroup(_ node: JSONNode, path: String, groupID: SubscriptionGroupID) {
    if let declared = string(node["subscriptionGroupID"], path: "\(path).subscriptionGroupID"), declared != groupID {
      warn(
        "\(path).subscriptionGroupID", node["subscriptionGroupID"]?.location,
        "subscriptionGroupID '\(declared)' differs from the enclosing group '\(groupID)'; the enclosing group wins")
    }
  }

  /// The level in the group (`groupNumber`), 1 when absent or invalid.
  mutating func readGroupLevel(_ node: JSONNode, path: String, id: ProductID) -> Int {
    var level = 1
    if let n = node["groupNumber"] {
      if let v = int(n, path: "\(path).groupNumber"), v >= 1 {
        level = v
      } else {
        warn("\(path).groupNumber", n.location, "groupNumber must be an integer of at least 1; read as 1")
      }
    } else {
      warn(path, node.location, "subscription '\(id)' has no groupNumber; read as level 1")
    }
    return level
  }

  /// The renewal period (`recurringSubscriptionPeriod`), a month when absent or invalid.
  mutating func readRenewalPeriod(_ node: JSONNode, path: String, id: ProductID) -> SubscriptionPeriod {
    var period = SubscriptionPeriod(value: 1, unit: .month)
    let periodNode = node["recurringSubscriptionPeriod"] ?? node["duration"]
    if let text = string(periodNode, path: "\(path).recurringSubscriptionPeriod"),
      let p = SubscriptionPeriod(iso8601: text)
    {
      period = p
      if !["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"].contains(p.iso8601) {
        warn(
          "\(path).recurringSubscriptionPeriod", periodNode?.location,
          "renewal period \(p) is not one of the App Store's six (P1W P1M P2M P3M P6M P1Y); the simulator uses it as written"
        )
      }
    } else {
      warn(
        path, periodNode?.location ?? node.location,
        "subscription '\(id)' has no valid recurringSubscriptionPeriod; it renews monthly")
    }
    return period
  }

  /// The introductory offer.
  mutating func readIntroductoryOffer(_ node: JSONNode, path: String) -> SubscriptionOffer? {
    // Introductory offer: prefer the 5.0 array (its BILLED_UPFRONT entry), then the single form.
    var intro: SubscriptionOffer?
    if let arrayNode = node["introductoryOffers"] {
      let items = array(arrayNode, path: "\(path).introductoryOffers")
      let pick =
        items.enumerated().first(where: {
          string($0.element["billingPlanType"], path: "").flatMap(BillingPlanType.init) != .monthly
        })
        ?? items.enumerated().first
      if let (i, item) = pick {
        _ = readBillingPlanType(item, path: "\(path).introductoryOffers[\(i)]")
        intro = readOffer(item, path: "\(path).introductoryOffers[\(i)]", type: .introductory)
      }
    } else if let single = node["introductoryOffer"], single.value != .null {
      intro = readOffer(single, path: "\(path).introductoryOffer", type: .introductory)
    }
    return intro
  }

  /// The offers of one kind listed under `key`.
  mutating func readOffers(
    _ node: JSONNode, _ key: String, _ type: OfferType, path: String
  ) -> [SubscriptionOffer] {
    guard let list = node[key] else { return [] }
    return array(list, path: "\(path).\(key)").enumerated().compactMap {
      readOffer($1, path: "\(path).\(key)[\($0)]", type: type)
    }
  }

  /// The billing plans (`billingPlans`).
  mutating func readBillingPlans(_ node: JSONNode, path: String) -> [BillingPlan] {
    var plans: [BillingPlan] = []
    if let list = node["billingPlans"] {
      for (i, item) in array(list, path: "\(path).billingPlans").enumerated() {
        let p = "\(path).billingPlans[\(i)]"
        plans.append(
          BillingPlan(
            type: readBillingPlanType(item, path: p),
            price: string(item["displayPrice"], path: "\(p).displayPrice").flatMap(Self.decimal) ?? 0,
            commitmentPrice: string(item["commitmentDisplayPrice"], path: "\(p).commitmentDisplayPrice").flatMap(
              Self.decimal),
            isEnabled: bool(item["isEnabled"], path: "\(p).isEnabled", fallback: true) ?? true))
      }
    }
    return plans
  }

  /// The `billingPlanType` of a billing plan or introductory offer; missing or unknown reads as
  /// billed up front (an unknown one with a warning).
  mutating func readBillingPlanType(_ node: JSONNode, path: String) -> BillingPlanType {
    let typePath = "\(path).billingPlanType"
    guard let text = string(node["billingPlanType"], path: typePath) else { return .billedUpfront }
    guard let type = BillingPlanType(rawValue: text) else {
      let fallback = BillingPlanType.billedUpfront
      warn(
        typePath, node["billingPlanType"]?.location, "unknown billingPlanType '\(text)'; read as \(fallback.rawValue)")
      return fallback
    }
    return type
  }

  mutating func readOffer(_ node: JSONNode, path: String, type: OfferType) -> SubscriptionOffer? {
    guard let m = node.members else {
      warn(path, node.location, "an offer is \(node.value.kindDescription), expected an object; skipped")
      return nil
    }
    guard let mode = readPaymentMode(node, path: path),
      let period = readOfferPeriod(node, path: path)
    else { return nil }
    let count = readPeriodCount(node, path: path)
    let price = readOfferPrice(node, path: path, mode: mode)
    let id = readOfferID(node, path: path, type: type)
    let eligibility = readEligibility(node, path: path)
    let known: Set<String> = [
      "internalID", "paymentMode", "subscriptionPeriod", "numberOfPeriods", "displayPrice",
      "billingPlanType", "offerID", "referenceName", "eligibility", "isStackable", "isEligible",
    ]
    warnUnknownKeys(m, known: known, path: path, what: "offer")
    return SubscriptionOffer(
      type: type, id: id, paymentMode: mode, period: period, periodCount: count, price: price,
      eligibility: eligibility, isEligible: bool(node["isEligible"], path: "\(path).isEligible", fallback: true) ?? true
    )
  }

  /// The offer's `paymentMode`; nil (with a warning) for one the App Store does not have.
  mutating func readPaymentMode(_ node: JSONNode, path: String) -> PaymentMode? {
    let modeText = string(node["paymentMode"], path: "\(path).paymentMode")
    switch modeText {
    case "free"?, "freeTrial"?: return .freeTrial
    case "payAsYouGo"?: return .payAsYouGo
    case "payUpFront"?: return .payUpFront
    default:
      warn(
        "\(path).paymentMode", node["paymentMode"]?.location ?? node.location,
        "offer payment mode '\(modeText ?? "missing")' is not free, payAsYouGo or payUpFront; the offer is ignored")
      return nil
    }
  }

  /// The offer's `subscriptionPeriod`; nil (with a warning) when missing or invalid.
  mutating func readOfferPeriod(_ node: JSONNode, path: String) -> SubscriptionPeriod? {
    guard let periodText = string(node["subscriptionPeriod"], path: "\(path).subscriptionPeriod"),
      let period = SubscriptionPeriod(iso8601: periodText)
    else {
      warn(
        "\(path).subscriptionPeriod", node["subscriptionPeriod"]?.location ?? node.location,
        "offer has no valid subscriptionPeriod; the offer is ignored")
      return nil
    }
    return period
  }

  /// The offer's `numberOfPeriods`, 1 when absent or invalid.
  mutating func readPeriodCount(_ node: JSONNode, path: String) -> Int {
    var count = 1
    if let n = node["numberOfPeriods"] {
      if let v = int(n, path: "\(path).numberOfPeriods"), v >= 1 {
        count = v
      } else {
        warn("\(path).numberOfPeriods", n.location, "numberOfPeriods must be a positive integer; read as 1")
      }
    }
    return count
  }

  /// The offer's `displayPrice`; 0 for a free trial.
  mutating func readOfferPrice(_ node: JSONNode, path: String, mode: PaymentMode) -> Decimal {
    var price: Decimal = 0
    if mode != .freeTrial {
      if let text = string(node["displayPrice"], path: "\(path).displayPrice"), let v = Self.decimal(text) {
        price = v
        if text.contains(",") {
          warn(
            "\(path).displayPrice", node["displayPrice"]?.location, "price '\(text)' uses a decimal comma; read as \(v)"
          )
        }
      } else {
        warn(path, node.location, "paid offer has no valid displayPrice; it charges 0")
      }
    }
    return price
  }

  /// The id the offer is redeemed by: none for an introductory offer, the reference name for an
  /// offer code, `offerID` otherwise.
  mutating func readOfferID(_ node: JSONNode, path: String, type: OfferType) -> String? {
    var id: String?
    switch type {
    case .introductory: id = nil
    case .code: id = string(node["referenceName"], path: "\(path).referenceName")
    case .promotional, .winBack:
      id = string(node["offerID"], path: "\(path).offerID")
      if id == nil || id!.isEmpty {
        id = string(node["referenceName"], path: "\(path).referenceName") ?? string(node["internalID"], path: "")
        warn(path, node.location, "offer has no offerID; it is redeemed as '\(id ?? "")'")
      }
    }
    return id
  }

  /// The offer code's customer eligibility (`eligibility`).
  mutating func readEligibility(_ node: JSONNode, path: String) -> [OfferCodeEligibility] {
    var eligibility: [OfferCodeEligibility] = []
    if let list = node["eligibility"] {
      for (i, e) in array(list, path: "\(path).eligibility").enumerated() {
        guard let s = string(e, path: "\(path).eligibility[\(i)]") else { continue }
        if let known = OfferCodeEligibility(rawValue: s) {
          eligibility.append(known)
        } else {
          warn("\(path).eligibility[\(i)]", e.location, "unknown offer-code eligibility '\(s)'; ignored")
        }
      }
    }
    return eligibility
  }
}
