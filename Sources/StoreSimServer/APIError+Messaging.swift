import Foundation

/// The Retention Messaging API's errors (Apple's numbers from its libraries' `APIError`;
/// messages Apple's where its error pages give them).
extension APIError {
  // 400
  package static let invalidImage = APIError(
    status: 400, code: 4_000_161, message: "Invalid request. The image is invalid.")
  package static let headerTooLong = APIError(
    status: 400, code: 4_000_162, message: "Invalid request. The header text is too long (at most 66 characters).")
  package static let bodyTooLong = APIError(
    status: 400, code: 4_000_163, message: "Invalid request. The body text is too long (at most 144 characters).")
  package static let invalidLocale = APIError(
    status: 400, code: 4_000_164, message: "Invalid request. The locale is invalid.")
  package static let altTextTooLong = APIError(
    status: 400, code: 4_000_175, message: "Invalid request. The alt text is too long (at most 150 characters).")
  package static let invalidPerformanceTestRequest = APIError(
    status: 400, code: 4_000_211, message: "Invalid request. The performance test request is invalid.")
  package static let invalidRequestID = APIError(
    status: 400, code: 4_000_212, message: "Invalid request. The request id is invalid.")
  package static let badRequestRealtimeURL = APIError(
    status: 400, code: 4_000_215, message: "Invalid request. The url is invalid.")
  package static let badRequestImageSize = APIError(
    status: 400, code: 4_000_216, message: "Invalid request. The image's size is invalid.")
  package static let tooManyBulletPoints = APIError(
    status: 400, code: 4_000_218, message: "Invalid request. The number of bullet points is too many.")
  package static let bulletPointTextTooLong = APIError(
    status: 400, code: 4_000_219, message: "Invalid request. The bullet point text is too long (at most 66 characters)."
  )
  package static let aboveImageRequiresAnImage = APIError(
    status: 400, code: 4_000_224, message: "Invalid request. headerPosition ABOVE_IMAGE requires an image.")

  // 403
  package static let maximumNumberOfImagesReached = APIError(
    status: 403, code: 4_030_014, message: "Forbidden. The maximum number of images (2000) is reached.")
  package static let maximumNumberOfMessagesReached = APIError(
    status: 403, code: 4_030_016, message: "Forbidden. The maximum number of messages (2000) is reached.")
  package static let messageNotApproved = APIError(
    status: 403, code: 4_030_017, message: "Forbidden. The message is not approved.")
  package static let imageNotApproved = APIError(
    status: 403, code: 4_030_018, message: "Forbidden. An image of the message is not approved.")
  package static let imageInUse = APIError(
    status: 403, code: 4_030_019, message: "Forbidden. The image is in use by a message.")
  package static let forbiddenNoPassingTest = APIError(
    status: 403, code: 4_030_026,
    message: "Forbidden. A passing performance test is required before a production realtime URL can be set.")

  // 404
  package static let imageNotFound = APIError(status: 404, code: 4_040_014, message: "The image was not found.")
  package static let messageNotFound = APIError(status: 404, code: 4_040_015, message: "The message was not found.")
  package static let performanceTestRunNotFound = APIError(
    status: 404, code: 4_040_018, message: "The performance test run was not found.")
  package static let defaultMessageNotFound = APIError(
    status: 404, code: 4_040_020, message: "No default message is configured for this product and locale.")
  package static let realtimeURLNotFound = APIError(
    status: 404, code: 4_040_021, message: "No realtime URL is configured.")

  // 409
  package static let imageAlreadyExists = APIError(
    status: 409, code: 4_090_000, message: "The image identifier is already in use.")
  package static let messageAlreadyExists = APIError(
    status: 409, code: 4_090_001, message: "The message identifier is already in use.")
}
