import Foundation

/// Apple's App Store Server API errors: the HTTP status, Apple's `errorCode` (nil where
/// Apple's pages give none storesim could confirm, or for a path that is not an endpoint) and
/// a message. Messages are Apple's where Apple's libraries or pages give them.
package struct APIError: Error, Sendable, Equatable {
  package var status: Int
  package var code: Int?
  package var message: String

  package init(status: Int, code: Int?, message: String) {
    self.status = status
    self.code = code
    self.message = message
  }

  /// The same error with another message (to say which value was refused).
  package func saying(_ message: String) -> APIError { APIError(status: status, code: code, message: message) }

  // 400
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
    status: 400, code: 4_000_012, message: "Invalid request. The start date is earlier than the allowed start date.")
  package static let startDateAfterEndDate = APIError(
    status: 400, code: 4_000_013,
    message: "Invalid request. The end date precedes the start date or the dates are equal.")
  package static let invalidPaginationToken = APIError(
    status: 400, code: 4_000_014, message: "Invalid request. The pagination token is invalid.")
  package static let invalidStartDate = APIError(
    status: 400, code: 4_000_015, message: "Invalid request. The start date is not a timestamp value in milliseconds.")
  package static let invalidEndDate = APIError(
    status: 400, code: 4_000_016, message: "Invalid request. The end date is not a timestamp value in milliseconds.")
  package static let invalidNotificationType = APIError(
    status: 400, code: 4_000_018, message: "Invalid request. The notification type or subtype is invalid.")
  package static let multipleFiltersSupplied = APIError(
    status: 400, code: 4_000_019,
    message: "Invalid request. Supply either a transaction id or a notification type, but not both.")
  package static let invalidTestNotificationToken = APIError(
    status: 400, code: 4_000_020, message: "Invalid request. The test notification token is invalid.")
  package static let invalidSort = APIError(
    status: 400, code: 4_000_021, message: "Invalid request. The sort parameter is invalid.")
  package static let invalidProductType = APIError(
    status: 400, code: 4_000_022, message: "Invalid request. The product type parameter is invalid.")
  package static let invalidProductID = APIError(
    status: 400, code: 4_000_023, message: "Invalid request. The product id parameter is invalid.")
  package static let invalidSubscriptionGroupIdentifier = APIError(
    status: 400, code: 4_000_024, message: "Invalid request. The subscription group identifier parameter is invalid.")
  package static let invalidExcludeRevoked = APIError(
    status: 400, code: 4_000_025, message: "Invalid request. The exclude revoked parameter is invalid.")
  package static let invalidInAppOwnershipType = APIError(
    status: 400, code: 4_000_026, message: "Invalid request. The in-app ownership type parameter is invalid.")
  package static let invalidEmptyStorefrontCountryCodeList = APIError(
    status: 400, code: 4_000_027,
    message: "Invalid request. If provided, the list of storefront country codes must not be empty.")
  package static let invalidStorefrontCountryCode = APIError(
    status: 400, code: 4_000_028, message: "Invalid request. A storefront country code was invalid.")
  package static let invalidRevoked = APIError(
    status: 400, code: 4_000_030, message: "Invalid request. The revoked parameter is invalid.")
  package static let invalidStatus = APIError(
    status: 400, code: 4_000_031, message: "Invalid request. The status parameter is invalid.")
  package static let invalidAccountTenure = APIError(status: 400, code: 4_000_032, message: "Invalid account tenure.")
  package static let invalidAppAccountToken = APIError(
    status: 400, code: 4_000_033, message: "Invalid app account token.")
  package static let invalidConsumptionStatus = APIError(
    status: 400, code: 4_000_034, message: "Invalid consumption status.")
  package static let invalidCustomerConsented = APIError(
    status: 400, code: 4_000_035, message: "Invalid customer consented: it must be true.")
  package static let invalidDeliveryStatus = APIError(status: 400, code: 4_000_036, message: "Invalid delivery status.")
  package static let invalidLifetimeDollarsPurchased = APIError(
    status: 400, code: 4_000_037, message: "Invalid lifetime dollars purchased.")
  package static let invalidLifetimeDollarsRefunded = APIError(
    status: 400, code: 4_000_038, message: "Invalid lifetime dollars refunded.")
  package static let invalidPlatform = APIError(status: 400, code: 4_000_039, message: "Invalid platform.")
  package static let invalidPlayTime = APIError(status: 400, code: 4_000_040, message: "Invalid play time.")
  package static let invalidSampleContentProvided = APIError(
    status: 400, code: 4_000_041, message: "Invalid sample content provided.")
  package static let invalidUserStatus = APIError(status: 400, code: 4_000_042, message: "Invalid user status.")
  package static let invalidRefundPreference = APIError(
    status: 400, code: 4_000_044, message: "Invalid request. The refund preference field is invalid.")
  package static let invalidTransactionTypeNotSupported = APIError(
    status: 400, code: 4_000_047,
    message: "Invalid request. The transaction's product type is not supported by this endpoint.")
  package static let appTransactionIDNotSupported = APIError(
    status: 400, code: 4_000_048, message: "Invalid request. App transactions aren't supported by this endpoint.")
  package static let invalidAppAccountTokenUUID = APIError(
    status: 400, code: 4_000_183, message: "Invalid request. The app account token field must be a valid UUID.")
  package static let familyTransactionNotSupported = APIError(
    status: 400, code: 4_000_185,
    message: "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
  package static let transactionIDIsNotOriginalTransactionID = APIError(
    status: 400, code: 4_000_187, message: "Invalid request. The transaction id is not an original transaction id.")
  package static let consumptionPercentageAutoRenewable = APIError(
    status: 400, code: 4_000_209,
    message:
      "Invalid request. The consumption percentage field is not supported for auto-renewable subscription transactions."
  )
  /// ConsumptionPercentageOutOfRangeError: Apple's pages name it without its number, so
  /// storesim sends the 400 with no `errorCode` (what Apple calls a malformed request).
  package static let consumptionPercentageOutOfRange = APIError(
    status: 400, code: nil,
    message: "ConsumptionPercentageOutOfRangeError: consumptionPercentage must be 0 to 100000 milliunits.")
  /// UndeliveredConsumptionPercentageNonZeroError, as `consumptionPercentageOutOfRange`.
  package static let undeliveredConsumptionPercentageNonZero = APIError(
    status: 400, code: nil,
    message:
      "UndeliveredConsumptionPercentageNonZeroError: consumptionPercentage must be 0 when deliveryStatus is not DELIVERED."
  )

  // 403
  package static let subscriptionExtensionIneligible = APIError(
    status: 403, code: 4_030_004, message: "Forbidden - subscription state ineligible for extension.")
  package static let subscriptionMaxExtension = APIError(
    status: 403, code: 4_030_005, message: "Forbidden - subscription has reached maximum extension count.")
  package static let familySharedSubscriptionExtensionIneligible = APIError(
    status: 403, code: 4_030_007,
    message: "Subscriptions that users obtain through Family Sharing can't get a renewal date extension directly.")

  // 404
  package static let originalTransactionIDNotFound = APIError(
    status: 404, code: 4_040_005, message: "Original transaction id not found.")
  package static let serverNotificationURLNotFound = APIError(
    status: 404, code: 4_040_007,
    message: "No App Store Server Notifications V2 URL configured ('settings deliver-url').")
  package static let testNotificationNotFound = APIError(
    status: 404, code: 4_040_008,
    message: "Either the test notification token is expired or the notification and status are not yet available.")
  package static let statusRequestNotFound = APIError(
    status: 404, code: 4_040_009,
    message:
      "The server didn't find a subscription-renewal-date extension request for this requestIdentifier and productId combination."
  )
  package static let transactionIDNotFound = APIError(
    status: 404, code: 4_040_010, message: "Transaction id not found.")
  package static let appTransactionDoesNotExist = APIError(
    status: 404, code: 4_040_019, message: "No AppTransaction exists for the customer.")

  // 500
  package static let generalInternal = APIError(status: 500, code: 5_000_000, message: "An unknown error occurred.")

  /// A path that is not an App Store Server API endpoint: 404 without an `errorCode` (Apple's
  /// client would read any code as one of Apple's).
  package static func notFound(_ path: String) -> APIError {
    APIError(status: 404, code: nil, message: "Not found: \(path) is not an App Store Server API endpoint.")
  }

  /// A method the path does not take: 405 without an `errorCode`.
  package static func methodNotAllowed(_ method: String, _ path: String, allowed: [String]) -> APIError {
    APIError(
      status: 405, code: nil,
      message: "Method \(method) is not allowed on \(path); it takes \(allowed.joined(separator: ", ")).")
  }
}
