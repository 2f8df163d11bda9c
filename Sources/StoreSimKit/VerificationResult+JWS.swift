import Foundation

extension VerificationResult where SignedType: JWSRepresentable {
  /// The JWS header bytes (the JSON object).
  public var headerData: Data { Self.decodedPart(0, of: jwsRepresentation) }

  /// The signature bytes of the JWS.
  public var signatureData: Data { Self.decodedPart(2, of: jwsRepresentation) }

  /// What the signature signs: the UTF-8 bytes of `header.payload`, as they appear in the JWS.
  public var signedData: Data {
    Data(
      jwsRepresentation.split(separator: ".", omittingEmptySubsequences: false).prefix(2).joined(separator: ".").utf8)
  }

  /// Part `index` of a compact JWS, base64url-decoded (empty if it is not there or not base64url).
  private static func decodedPart(_ index: Int, of jws: String) -> Data {
    let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
    guard index < parts.count else { return Data() }
    var text = parts[index].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    text += String(repeating: "=", count: (4 - text.count % 4) % 4)
    return Data(base64Encoded: text) ?? Data()
  }
}

extension Product.PurchaseOption {
  /// Whether a purchase goes on when the storefront changes while it runs: the storefront
  /// changes only by the test's hand, never during a purchase, so the closure is not called.
  public static func onStorefrontChange(
    shouldContinuePurchase: @escaping @Sendable (Storefront) -> Bool
  ) -> Product.PurchaseOption {
    .init(kind: .custom("onStorefrontChange", .bool(true)))
  }
}
