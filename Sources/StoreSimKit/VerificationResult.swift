import Foundation
import StoreSim
import StoreSimCrypto

/// Signed data: the result of verifying a JWS, as StoreKit's `VerificationResult`.
///
/// storesim signs with ES256 under the session's key and checks each value's signature against
/// the session's certificate; a value is `.unverified` when that check fails
/// (`.invalidSignature`) or a `.verification` error is simulated (`SKTestSession.setSimulatedError`).
public enum VerificationResult<SignedType: Sendable>: Sendable {
  /// The data failed verification.
  case unverified(SignedType, VerificationResult<SignedType>.VerificationError)
  /// The data passed verification.
  case verified(SignedType)

  /// Why verification failed.
  public enum VerificationError: Error, Sendable, Hashable {
    case revokedCertificate
    case invalidCertificateChain
    case invalidDeviceVerification
    case invalidEncoding
    case invalidSignature
    case missingRequiredProperties

    init(simulated name: String) {
      switch name {
      case "revokedCertificate": self = .revokedCertificate
      case "invalidCertificateChain": self = .invalidCertificateChain
      case "invalidDeviceVerification": self = .invalidDeviceVerification
      case "invalidEncoding": self = .invalidEncoding
      case "missingRequiredProperties": self = .missingRequiredProperties
      default: self = .invalidSignature
      }
    }
  }

  /// The verified value, or the verification error thrown.
  public var payloadValue: SignedType {
    get throws {
      switch self {
      case .verified(let value): return value
      case .unverified(_, let error): throw error
      }
    }
  }

  /// The value whether or not it was verified.
  public var unsafePayloadValue: SignedType {
    switch self {
    case .verified(let value), .unverified(let value, _): return value
    }
  }
}

extension VerificationResult: Equatable where SignedType: Equatable {}
extension VerificationResult: Hashable where SignedType: Hashable {}

/// A value that comes from compact JWS.
public protocol JWSRepresentable: Sendable {
  /// The compact JWS (`header.payload.signature`) the value was decoded from.
  var jwsRepresentation: String { get }
}

extension VerificationResult where SignedType: JWSRepresentable {
  /// The compact JWS of the signed value.
  public var jwsRepresentation: String { unsafePayloadValue.jwsRepresentation }

  /// The JWS payload bytes (the JSON object).
  public var payloadData: Data {
    JWS.payload(of: jwsRepresentation).map { Data($0) } ?? Data()
  }
}

extension Transaction: YieldedBySequence {
  func yielded(by link: SequenceLink) -> Transaction {
    var transaction = self
    transaction.link = link
    return transaction
  }
}

extension VerificationResult: YieldedBySequence where SignedType == Transaction {
  func yielded(by link: SequenceLink) -> VerificationResult {
    switch self {
    case .verified(let t): .verified(t.yielded(by: link))
    case .unverified(let t, let error): .unverified(t.yielded(by: link), error)
    }
  }
}
