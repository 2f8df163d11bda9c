import Foundation

/// Apple's App Store Server API errors (the `APIError` codes of Apple's libraries).
package struct APIError: Error, Sendable, Equatable {
  package var status: Int
  package var code: Int
  package var message: String

  package init(status: Int, code: Int, message: String) {
    self.status = status
    self.code = code
    self.message = message
  }

  package static let generalBadRequest = APIError(status: 400, code: 4_000_000, message: "Bad request.")
  package static let invalidRequestRevision = APIError(
    status: 400, code: 4_000_005, message: "Invalid request revision.")
  package static let invalidTransactionID = APIError(status: 400, code: 4_000_006, message: "Invalid transaction id.")
  package static let invalidOriginalTransactionID = APIError(
    status: 400, code: 4_000_008, message: "Invalid original transaction id.")
  package static let invalidExtendByDays = APIError(
    status: 400, code: 4_000_009, message: "Invalid extend by days value.")
  package static let invalidExtendReasonCode = APIError(
    status: 400, code: 4_000_010, message: "Invalid extend reason code.")
  package static let invalidRequestIdentifier = APIError(
    status: 400, code: 4_000_011, message: "Invalid request identifier.")
  package static let startDateTooFarInPast = APIError(
    status: 400, code: 4_000_012, message: "Start date too far in past.")
  package static let startDateAfterEndDate = APIError(
    status: 400, code: 4_000_013, message: "Start date after end date.")
  package static let invalidPaginationToken = APIError(
    status: 400, code: 4_000_014, message: "Invalid pagination token.")
  package static let invalidStartDate = APIError(status: 400, code: 4_000_015, message: "Invalid start date.")
  package static let invalidEndDate = APIError(status: 400, code: 4_000_016, message: "Invalid end date.")
  package static let invalidNotificationType = APIError(
    status: 400, code: 4_000_018, message: "Invalid notification type.")
  package static let multipleFiltersSupplied = APIError(
    status: 400, code: 4_000_019, message: "Multiple filters supplied.")
  package static let invalidTestNotificationToken = APIError(
    status: 400, code: 4_000_020, message: "Invalid test notification token.")
  package static let invalidSort = APIError(status: 400, code: 4_000_021, message: "Invalid sort.")
  package static let invalidProductType = APIError(status: 400, code: 4_000_022, message: "Invalid product type.")
  package static let invalidProductID = APIError(status: 400, code: 4_000_023, message: "Invalid product id.")
  package static let invalidSubscriptionGroupIdentifier = APIError(
    status: 400, code: 4_000_024, message: "Invalid subscription group identifier.")
  package static let invalidInAppOwnershipType = APIError(
    status: 400, code: 4_000_026, message: "Invalid in-app ownership type.")
  package static let invalidRevoked = APIError(status: 400, code: 4_000_030, message: "Invalid revoked.")
  package static let invalidStatus = APIError(status: 400, code: 4_000_031, message: "Invalid status.")
  package static let invalidDeliveryStatus = APIError(status: 400, code: 4_000_036, message: "Invalid delivery status.")
  package static let invalidSampleContentProvided = APIError(
    status: 400, code: 4_000_041, message: "Invalid sample content provided.")
  package static let invalidAppAccountToken = APIError(
    status: 400, code: 4_000_183, message: "Invalid app account token.")
  package static let accountNotFound = APIError(status: 404, code: 4_040_001, message: "Account not found.")
  package static let originalTransactionIDNotFound = APIError(
    status: 404, code: 4_040_005, message: "Original transaction id not found.")
  package static let serverNotificationURLNotFound = APIError(
    status: 404, code: 4_040_007, message: "No App Store Server Notifications V2 URL configured.")
  package static let testNotificationNotFound = APIError(
    status: 404, code: 4_040_008, message: "Test notification not found.")
  package static let statusRequestNotFound = APIError(
    status: 404, code: 4_040_009, message: "Mass extension request not found.")
  package static let transactionIDNotFound = APIError(
    status: 404, code: 4_040_010, message: "Transaction id not found.")
  package static let generalInternal = APIError(status: 500, code: 5_000_000, message: "An unknown error occurred.")

  package static func notFound(_ path: String) -> APIError {
    APIError(status: 404, code: 4_040_000, message: "Not found: \(path) is not an App Store Server API endpoint.")
  }
  package static func methodNotAllowed(_ method: String, _ path: String) -> APIError {
    APIError(status: 405, code: 4_050_000, message: "Method \(method) is not allowed on \(path).")
  }
  package static func notSupported(_ what: String) -> APIError {
    APIError(status: 501, code: 5_010_000, message: "storesim does not support \(what).")
  }
}
