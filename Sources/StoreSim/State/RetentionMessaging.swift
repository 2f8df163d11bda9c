import Foundation

/// What the Retention Messaging API keeps for an app: the images and messages uploaded, the
/// default message of each product and locale, the realtime URL, the performance tests run and
/// every Get Retention Message request storesim made (`storesim retention`).
///
/// Identifiers are UUIDs and are kept in lower case: Apple's Swift client sends them upper-case
/// and the Python client lower-case, and they name the same item (rule
/// retention-identifiers-ignore-case).
package struct RetentionMessaging: Sendable, Hashable, Codable {
  /// Apple's limit per app for images and for messages.
  package static let itemLimit = 2000

  package var images: [RetentionImage] = []
  package var messages: [RetentionMessage] = []
  package var defaultMessages: [RetentionDefaultMessage] = []
  /// The Get Retention Message endpoint (Configure Realtime URL), if set.
  package var realtimeURL: String?
  package var performanceTests: [RetentionPerformanceTest] = []
  /// Every realtime request made, in order.
  package var calls: [RetentionCall] = []

  package init() {}

  package func image(_ id: String) -> RetentionImage? { images.first { $0.identifier == id.lowercased() } }
  package func message(_ id: String) -> RetentionMessage? { messages.first { $0.identifier == id.lowercased() } }
  package func defaultMessage(productID: ProductID, locale: String) -> RetentionDefaultMessage? {
    defaultMessages.first { $0.productID == productID && $0.locale == locale }
  }

  /// Whether a performance test against `url` has passed.
  package func hasPassingTest(of url: String) -> Bool {
    performanceTests.contains { $0.result == "PASS" && $0.target == url }
  }

  /// Whether a message and every image it shows are `APPROVED`.
  package func isShowable(_ m: RetentionMessage) -> Bool {
    m.state == .approved && m.imageIdentifiers.allSatisfy { image($0)?.state == .approved }
  }
}

/// `imageState` / `messageState`: `PENDING` after upload, then `APPROVED` or `REJECTED`; the
/// sandbox approves at once, and so does storesim.
package enum RetentionReviewState: String, Sendable, Hashable, Codable, CaseIterable {
  case pending = "PENDING"
  case approved = "APPROVED"
  case rejected = "REJECTED"
}

/// An uploaded image.
package struct RetentionImage: Sendable, Hashable, Codable {
  package var identifier: String
  /// `imageSize`: `FULL_SIZE` or `BULLET_POINT`.
  package var size: String
  package var state: RetentionReviewState
  package var width: Int
  package var height: Int

  package init(identifier: String, size: String, state: RetentionReviewState, width: Int, height: Int) {
    self.identifier = identifier.lowercased()
    self.size = size
    self.state = state
    self.width = width
    self.height = height
  }
}

/// An image in a message or a bullet point, with its alternative text.
package struct RetentionMessageImage: Sendable, Hashable, Codable {
  package var imageIdentifier: String
  package var altText: String

  package init(imageIdentifier: String, altText: String) {
    self.imageIdentifier = imageIdentifier.lowercased()
    self.altText = altText
  }
}

/// One of a message's bullet points.
package struct RetentionBulletPoint: Sendable, Hashable, Codable {
  package var text: String
  package var image: RetentionMessageImage

  package init(text: String, image: RetentionMessageImage) {
    self.text = text
    self.image = image
  }
}

/// An uploaded message (`UploadMessageRequestBody`).
package struct RetentionMessage: Sendable, Hashable, Codable {
  package var identifier: String
  package var header: String
  package var body: String
  package var image: RetentionMessageImage?
  /// `ABOVE_BODY` (the default) or `ABOVE_IMAGE`; nil when not sent.
  package var headerPosition: String?
  package var bulletPoints: [RetentionBulletPoint]
  package var state: RetentionReviewState

  package init(
    identifier: String, header: String, body: String, image: RetentionMessageImage?, headerPosition: String?,
    bulletPoints: [RetentionBulletPoint], state: RetentionReviewState
  ) {
    self.identifier = identifier.lowercased()
    self.header = header
    self.body = body
    self.image = image
    self.headerPosition = headerPosition
    self.bulletPoints = bulletPoints
    self.state = state
  }

  /// The images the message shows (its own and its bullet points').
  package var imageIdentifiers: [String] {
    (image.map { [$0.imageIdentifier] } ?? []) + bulletPoints.map(\.image.imageIdentifier)
  }
}

/// The message shown for a product and locale when the realtime request fails.
package struct RetentionDefaultMessage: Sendable, Hashable, Codable {
  package var productID: ProductID
  package var locale: String
  package var messageIdentifier: String

  package init(productID: ProductID, locale: String, messageIdentifier: String) {
    self.productID = productID
    self.locale = locale
    self.messageIdentifier = messageIdentifier.lowercased()
  }
}

/// A performance test of the realtime URL and its result.
package struct RetentionPerformanceTest: Sendable, Hashable, Codable {
  package var requestID: String
  package var originalTransactionID: TransactionID
  /// The URL tested.
  package var target: String
  package var maxConcurrentRequests: Int
  package var totalRequests: Int
  /// Milliseconds.
  package var totalDuration: Int
  /// Milliseconds.
  package var responseTimeThreshold: Int
  /// Percent.
  package var successRateThreshold: Int
  /// `PASS` or `FAIL` (storesim runs a test to its end before answering).
  package var result: String
  /// Percent of requests answered correctly in time.
  package var successRate: Int
  /// Response times of the answered requests, in milliseconds, in order.
  package var responseTimes: [Int]
  /// `SendAttemptResult` → count, for the requests that failed.
  package var failures: [String: Int]

  package init(
    requestID: String, originalTransactionID: TransactionID, target: String, maxConcurrentRequests: Int,
    totalRequests: Int, totalDuration: Int, responseTimeThreshold: Int, successRateThreshold: Int, result: String,
    successRate: Int, responseTimes: [Int], failures: [String: Int]
  ) {
    self.requestID = requestID
    self.originalTransactionID = originalTransactionID
    self.target = target
    self.maxConcurrentRequests = maxConcurrentRequests
    self.totalRequests = totalRequests
    self.totalDuration = totalDuration
    self.responseTimeThreshold = responseTimeThreshold
    self.successRateThreshold = successRateThreshold
    self.result = result
    self.successRate = successRate
    self.responseTimes = responseTimes
    self.failures = failures
  }
}

/// One Get Retention Message request (the customer opened the cancel flow) and its outcome.
package struct RetentionCall: Sendable, Hashable, Codable {
  /// `requestIdentifier` of the signed request.
  package var requestIdentifier: String
  /// `signedDate` (virtual).
  package var date: Date
  package var customer: CustomerID
  package var originalTransactionID: TransactionID
  /// The subscription's current product (`productId` of the request).
  package var productID: ProductID
  /// `userLocale`.
  package var locale: String
  /// Where it was POSTed (nil: no realtime URL configured, nothing was sent).
  package var url: String?
  /// `ok`, `timeout`, `failed: <why>` or `invalid: <rule>`; `no realtime URL` when none is set.
  package var outcome: String
  /// What was shown: `message`, `alternateProduct`, `promotionalOffer`, or nil (nothing).
  package var shown: String?
  /// The message shown.
  package var messageIdentifier: String?
  /// `alternateProduct`: the product offered.
  package var alternateProductID: ProductID?
  /// `promotionalOffer`: the product and offer.
  package var offerProductID: ProductID?
  package var offerIdentifier: String?
  /// nil when the realtime answer was shown; `default` or `none` when it failed.
  package var fallback: String?
  /// `accepted` or `declined` (nil: the customer closed the sheet).
  package var action: String?

  package init(
    requestIdentifier: String, date: Date, customer: CustomerID, originalTransactionID: TransactionID,
    productID: ProductID, locale: String, url: String?
  ) {
    self.requestIdentifier = requestIdentifier
    self.date = date
    self.customer = customer
    self.originalTransactionID = originalTransactionID
    self.productID = productID
    self.locale = locale
    self.url = url
    outcome = "ok"
  }
}
