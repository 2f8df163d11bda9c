import Foundation

// The string forms StoreKit gives its iOS 15 and 16 callers (before the typed properties), and
// the debug description.
extension Transaction: CustomDebugStringConvertible {
  /// `storefront.countryCode` (ISO 3166-1 alpha-3).
  public var storefrontCountryCode: String { storefront.countryCode }
  /// "Production", "Sandbox" or "Xcode".
  public var environmentStringRepresentation: String { environment.rawValue }
  /// "PURCHASE" or "RENEWAL".
  public var reasonStringRepresentation: String { reason.rawValue }
  /// "FREE_TRIAL", "PAY_AS_YOU_GO" or "PAY_UP_FRONT", for a transaction with an offer.
  public var offerPaymentModeStringRepresentation: String? { offer?.paymentMode?.rawValue }
  /// The offer's period in ISO 8601 ("P1M", "P2W"), for a transaction with an offer.
  public var offerPeriodStringRepresentation: String? {
    offer?.period.map { period in
      switch period.unit {
      case .day: return "P\(period.value)D"
      case .week: return "P\(period.value)W"
      case .month: return "P\(period.value)M"
      case .year: return "P\(period.value)Y"
      }
    }
  }
  /// The JSON payload, as StoreKit's debug description shows it.
  public var debugDescription: String { String(decoding: jsonRepresentation, as: UTF8.self) }
}
