import Foundation
import StoreSim
import StoreSimCrypto
import StoreSimServer

/// `storesim buy PRODUCT`: a purchase, with StoreKit's purchase options.
struct BuyCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "buy", group: "Purchases",
    abstract: "Buy a product (upgrades, downgrades and crossgrades too)",
    arguments: "<product-id>",
    discussion: """
      Prints the outcome: purchased (a transaction), pending (an Ask to Buy or interrupted
      request id; exit 0), userCancelled (exit 1), or failed (an error name; exit 1). Buying an
      owned non-consumable or the active plan returns the existing transaction ('already
      purchased', 'already subscribed'). Buying another plan of a subscribed group is an upgrade
      (now), or a downgrade or different-duration crossgrade at the next renewal ('scheduled NEW
      from DATE'). --quantity is refused for non-consumables and auto-renewables.
      --billing-plan monthly buys a one-year subscription's commitment plan (its enabled MONTHLY
      billing plan): twelve monthly billing periods, each its own transaction (billingPeriodNumber
      1 to 12 in commitmentInfo); cancel then turns off only the commitment's renewal. It fails
      (productUnavailable) on a product without the plan or while subscribed in the group, and
      takes no --offer. --intro-eligibility JWS is StoreKit's introductoryOfferEligibility: a
      JWS the developer signed (aud introductory-offer-eligibility, productId,
      allowIntroductoryOffer, transactionId) whose allowIntroductoryOffer grants or withholds the
      introductory offer for this purchase; one that does not verify is ignored (normal
      eligibility applies; a note on standard error says why), or fails the purchase with
      invalidOfferSignature under 'settings strict-eligibility on'.
      """,
    example: "storesim buy subscription.pro --offer intro", answersPurchaseResult: true)

  @Arguments(1...1, "product id")
  var arguments: [String]
  @Option("<n>", help: "1 to 10 (consumables and non-renewing subscriptions)", parse: BuyCommand.quantity)
  var quantity: Int?
  @Option("<uuid>", help: "the appAccountToken purchase option", parse: BuyCommand.appAccountToken)
  var appAccountToken: UUID?
  @Option("<offer>", help: "intro, promotional:ID, code:REFERENCE or win-back:ID", parse: BuyCommand.offer)
  var offer: OfferRequest?
  @Option(
    "<signature>",
    help: "with promotional:ID, the developer's signature: a compact JWS, or KEYID,NONCE,TIMESTAMP,BASE64 (StoreKit 1)",
    parse: BuyCommand.offerSignature)
  var offerSignature: OfferSignature?
  @Option(
    "<jws>",
    help: "the developer's introductory-offer eligibility, a compact JWS: allowIntroductoryOffer decides this purchase",
    parse: BuyCommand.introEligibility)
  var introEligibility: String?
  @Flag(help: "the customer dismisses the sheet (userCancelled)")
  var cancel: Bool
  @Option("<date>", help: "back-date the purchase; renewals are filled in up to now", parse: ValueParsing.dateOption)
  var at: Date?
  @Option(
    "<plan>", help: "upfront (default) or monthly: a 12-month commitment billed monthly",
    parse: BuyCommand.billingPlan)
  var billingPlan: BillingPlanType?

  init() {}

  var productID: ProductID { arguments[0] }

  var configurationReferences: [ConfigurationReference] {
    [.product(productID), .quantity(quantity ?? 1, of: productID)]
  }

  var options: PurchaseOptions {
    var options = PurchaseOptions()
    if let quantity { options.quantity = quantity }
    options.appAccountToken = appAccountToken
    options.offer = offer
    options.billingPlanType = billingPlan == .monthly ? .monthly : nil
    options.offerSignature = offerSignature
    options.introductoryOfferEligibility = introEligibility
    return options
  }

  func validate() throws {
    if offerSignature != nil, case .promotional = offer {
    } else if offerSignature != nil {
      throw CLIError.usage("--offer-signature goes with --offer promotional:ID", command: "buy")
    }
  }

  /// Three non-empty base64url parts joined by dots.
  static func isCompactJWS(_ text: String) -> Bool {
    let dots = text.split(separator: ".", omittingEmptySubsequences: false)
    return dots.count == 3 && dots.allSatisfy { !$0.isEmpty && JWS.decodeBase64URL($0) != nil }
  }

  /// `--intro-eligibility`: a compact JWS.
  static func introEligibility(_ text: String, _ context: ParseContext) throws -> String {
    guard isCompactJWS(text) else {
      throw CLIError.usage(
        "invalid introductory-offer eligibility; give a compact JWS (HEADER.PAYLOAD.SIGNATURE)", command: "buy")
    }
    return text
  }

  /// `--offer-signature`: a compact JWS (three base64url parts), or StoreKit 1's four fields.
  static func offerSignature(_ text: String, _ context: ParseContext) throws -> OfferSignature {
    if isCompactJWS(text) { return .compactJWS(text) }
    let fields = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    guard fields.count == 4, !fields[0].isEmpty, let nonce = UUID(uuidString: fields[1]),
      let timestamp = Int64(fields[2]), !fields[3].isEmpty
    else {
      throw CLIError.usage(
        "invalid offer signature; give a compact JWS or KEYID,NONCE,TIMESTAMP,BASE64 (timestamp in ms)", command: "buy")
    }
    return .separated(keyID: fields[0], nonce: nonce, timestamp: timestamp, signature: fields[3])
  }

  static let billingPlans = ["upfront", "monthly"]

  static func billingPlan(_ text: String, _ context: ParseContext) throws -> BillingPlanType {
    switch text {
    case "upfront": return .billedUpfront
    case "monthly": return .monthly
    default:
      throw CLIError.usage(
        Suggest.orValues("unknown billing plan '\(text)'", for: text, in: billingPlans), command: "buy")
    }
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let options = self.options
    return try SessionContext.with(inv, mutating: true) { store in
      let customer = SessionContext.customer(inv)
      try checkQuantity(options.quantity, of: productID, in: store, command: "buy")
      let ignored = introEligibility.flatMap {
        store.strictIntroductoryOfferEligibility
          ? nil : store.introductoryOfferEligibilityRefusal($0, customer: customer, productID: productID)
      }
      let outcome = try store.purchase(productID, options: options, customer: customer, cancel: cancel, at: at)
      // Rule introductory-offer-eligibility-jws-sets-eligibility: say why a JWS was ignored.
      if let ignored {
        inv.err("note: the --intro-eligibility JWS was ignored (\(ignored)); normal eligibility applied")
      }
      let report = PurchaseReport(outcome, productID: productID, store: store, customer: customer)
      inv.emit(json: .object(report.json)) {
        inv.out(TerminalText.field(report.line))
        let other = outcome.events.filter {
          if case .transactionCreated(_, _, .purchaseResult) = $0.kind { return false }
          if case .askToBuyRequested = $0.kind { return false }
          return true
        }
        reportEvents(inv, other, store: store)
      }
      return purchaseExitCode(inv, outcome.value, productID: productID)
    }
  }

  static func quantity(_ q: String, _ context: ParseContext) throws -> Int {
    guard let n = Int(q) else { throw CLIError.usage("quantity must be a whole number, not '\(q)'", command: "buy") }
    return n
  }

  static func appAccountToken(_ token: String, _ context: ParseContext) throws -> UUID {
    guard let uuid = UUID(uuidString: token) else {
      throw CLIError.usage("app account token '\(token)' is not a UUID", command: "buy")
    }
    return uuid
  }

  static func offer(_ offer: String, _ context: ParseContext) throws -> OfferRequest {
    guard let o = OfferRequest(userInput: offer) else {
      throw CLIError.usage(
        "invalid offer '\(offer)'; use intro, promotional:ID, code:REFERENCE or win-back:ID", command: "buy")
    }
    return o
  }
}

/// (rule quantity-only-for-consumables-and-non-renewing)
func checkQuantity(_ quantity: Int, of productID: ProductID, in store: Store, command: String?) throws {
  if quantity != 1, let product = store.configuration.product(productID),
    product.type != .consumable && product.type != .nonRenewable
  {
    throw CLIError.usage(
      "--quantity applies to consumables and non-renewing subscriptions; '\(productID)' is \(product.type.rawValue.lowercased()) and is bought one at a time",
      command: command)
  }
}

/// What `buy` prints for a purchase's result: one text line, or the fields of its JSON object.
private struct PurchaseReport {
  var json: [String: JSONOutput]
  var line: String

  init(_ outcome: Outcome<PurchaseResult>, productID: ProductID, store: Store, customer: CustomerID) {
    json = ["result": .string(outcome.value.name)]
    switch outcome.value {
    case .success(let t, let verification):
      line = ""
      transaction(
        t, verification: verification, outcome: outcome, productID: productID, store: store, customer: customer)
    case .pending(let id):
      json["requestId"] = .string(id)
      line = "pending    request \(id) for \(productID)"
    case .userCancelled:
      line = "userCancelled"
    case .failed(let error):
      json["error"] = .string(error.description)
      line = "failed     \(error)"
    }
  }

  /// A transaction: scheduled for the next renewal, already owned, or newly purchased.
  private mutating func transaction(
    _ t: Transaction, verification: SimulatedError?, outcome: Outcome<PurchaseResult>, productID: ProductID,
    store: Store, customer: CustomerID
  ) {
    json["transaction"] = store.payload(t, customer: customer)
    if let verification { json["verificationError"] = .string(verification.description) }
    let created = outcome.events.contains {
      if case .transactionCreated(let id, _, _) = $0.kind { return id == t.id }
      return false
    }
    if t.productID != productID {
      // A downgrade or crossgrade at the next renewal: the current plan stays until then.
      let when = t.expirationDate.map(ISO8601.string) ?? "the next renewal"
      json["scheduledChange"] = .object([
        "productId": .string(productID), "fromProductId": .string(t.productID),
        "effectiveDate": t.expirationDate.map { .int($0.epochMilliseconds) } ?? .null,
      ])
      line =
        "scheduled  \(productID)  from \(when), when \(t.productID) renews  (transaction \(t.id) of \(t.productID) stays until then)"
    } else if !created {
      json["alreadyOwned"] = .bool(true)
      let what = t.productType == .autoRenewable ? "already subscribed" : "already purchased"
      line = "\(what)  \(t.productID)  transaction \(t.id)"
      if let e = t.expirationDate { line += "  expires \(ISO8601.string(e))" }
      line += "  (no new purchase)"
    } else {
      line = "purchased  \(t.productID)  transaction \(t.id)  \(Render.price(t))"
      if let e = t.expirationDate { line += "  expires \(ISO8601.string(e))" }
      let notes = Render.flags(t)
      if !notes.isEmpty { line += "  (\(notes))" }
    }
    if let verification { line += "  unverified: \(verification)" }
  }
}

/// Failed and cancelled purchases say so on stderr and exit 1.
private func purchaseExitCode(_ inv: Invocation, _ result: PurchaseResult, productID: ProductID) -> ExitCode {
  switch result {
  case .failed(let error):
    inv.err("error: purchase of '\(productID)' failed: \(error)")
    return .failure
  case .userCancelled:
    inv.err("error: purchase of '\(productID)' did not go through: the customer cancelled")
    return .failure
  case .success, .pending:
    return .success
  }
}
