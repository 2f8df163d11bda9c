/// An App Store storefront: country code, Apple's storefront id and its currency.
public struct Storefront: Sendable, Hashable, Codable {
  /// ISO 3166-1 alpha-3 country code (`countryCode`).
  public var countryCode: String
  /// Apple's numeric storefront id as a string (`storefrontId` on the wire).
  public var id: String
  /// ISO 4217 currency of prices in this storefront.
  public var currency: String

  /// The storefront for a country code, or nil when storesim does not know it.
  public static func named(_ code: String) -> Storefront? {
    let upper = table[code] != nil ? code : code.uppercased()
    guard let entry = table[upper] else { return nil }
    return Storefront(countryCode: upper, id: entry.id, currency: entry.currency)
  }

  /// The United States storefront, the default.
  public static let usa = Storefront(countryCode: "USA", id: "143441", currency: "USD")

  /// Every country code storesim knows.
  public static var knownCodes: [String] { table.keys.sorted() }

  private static let table: [String: (id: String, currency: String)] = [
    "USA": ("143441", "USD"), "FRA": ("143442", "EUR"), "DEU": ("143443", "EUR"),
    "GBR": ("143444", "GBP"), "AUT": ("143445", "EUR"), "BEL": ("143446", "EUR"),
    "FIN": ("143447", "EUR"), "GRC": ("143448", "EUR"), "IRL": ("143449", "EUR"),
    "ITA": ("143450", "EUR"), "LUX": ("143451", "EUR"), "NLD": ("143452", "EUR"),
    "PRT": ("143453", "EUR"), "ESP": ("143454", "EUR"), "CAN": ("143455", "CAD"),
    "SWE": ("143456", "SEK"), "NOR": ("143457", "NOK"), "DNK": ("143458", "DKK"),
    "CHE": ("143459", "CHF"), "AUS": ("143460", "AUD"), "NZL": ("143461", "NZD"),
    "JPN": ("143462", "JPY"), "HKG": ("143463", "HKD"), "SGP": ("143464", "SGD"),
    "CHN": ("143465", "CNY"), "KOR": ("143466", "KRW"), "IND": ("143467", "INR"),
    "MEX": ("143468", "MXN"), "RUS": ("143469", "RUB"), "TWN": ("143470", "TWD"),
    "VNM": ("143471", "VND"), "ZAF": ("143472", "ZAR"), "MYS": ("143473", "MYR"),
    "PHL": ("143474", "PHP"), "THA": ("143475", "THB"), "IDN": ("143476", "IDR"),
    "PAK": ("143477", "PKR"), "POL": ("143478", "PLN"), "SAU": ("143479", "SAR"),
    "TUR": ("143480", "TRY"), "ARE": ("143481", "AED"), "HUN": ("143482", "HUF"),
    "CHL": ("143483", "CLP"), "CZE": ("143489", "CZK"), "ISR": ("143491", "ILS"),
    "UKR": ("143492", "UAH"), "EGY": ("143516", "EGP"), "BRA": ("143503", "BRL"),
    "COL": ("143501", "COP"), "PER": ("143507", "PEN"), "ROU": ("143487", "RON"),
    "ARG": ("143505", "USD"), "NGA": ("143561", "NGN"), "KAZ": ("143517", "KZT"),
    "QAT": ("143498", "QAR"),
  ]
}
