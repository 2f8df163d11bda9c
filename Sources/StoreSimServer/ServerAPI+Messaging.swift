import Foundation
import StoreSim
import StoreSimHTTP

/// The Retention Messaging API's configuration endpoints under `/inApps/v1/messaging`: images,
/// messages, default messages and the realtime URL. Items are approved at once, as in the
/// sandbox; identifiers are UUIDs compared without regard to case.
extension ServerAPI {
  package static let messagingRoutes: [Route] = [
    .changes("PUT", "/inApps/v1/messaging/image/{imageIdentifier}") { r, s in try uploadImage(r, s) },
    .changes("DELETE", "/inApps/v1/messaging/image/{imageIdentifier}") { r, s in try deleteImage(r, s) },
    .reads("GET", "/inApps/v1/messaging/image/list") { _, s in imageList(s) },
    .changes("PUT", "/inApps/v1/messaging/message/{messageIdentifier}") { r, s in try uploadMessage(r, s) },
    .changes("DELETE", "/inApps/v1/messaging/message/{messageIdentifier}") { r, s in try deleteMessage(r, s) },
    .reads("GET", "/inApps/v1/messaging/message/list") { _, s in messageList(s) },
    .changes("PUT", "/inApps/v1/messaging/default/{productId}/{locale}") { r, s in try configureDefaultMessage(r, s) },
    .reads("GET", "/inApps/v1/messaging/default/{productId}/{locale}") { r, s in try defaultMessage(r, s) },
    .changes("DELETE", "/inApps/v1/messaging/default/{productId}/{locale}") { r, s in try deleteDefaultMessage(r, s) },
    .changes("PUT", "/inApps/v1/messaging/realtime/url") { r, s in try configureRealtimeURL(r, s) },
    .reads("GET", "/inApps/v1/messaging/realtime/url") { _, s in try realtimeURL(s) },
    .changes("DELETE", "/inApps/v1/messaging/realtime/url") { _, s in deleteRealtimeURL(s) },
    .changes("POST", "/inApps/v1/messaging/performanceTest") { r, s in try initiatePerformanceTest(r, s) },
    .reads("GET", "/inApps/v1/messaging/performanceTest/result/{requestId}") { r, s in
      try performanceTestResult(r["requestId"], s)
    },
  ]

  /// Apple's limits on message text, in characters.
  package static let headerLimit = 66
  package static let bodyLimit = 144
  package static let altTextLimit = 150
  package static let bulletPointLimit = 5
  package static let realtimeURLLimit = 256

  /// A path identifier, which must be a UUID, in lower case (400 otherwise).
  static func uuid(_ text: String, _ what: String) throws -> String {
    guard UUID(uuidString: text) != nil else {
      throw APIError.generalBadRequest.saying("Invalid request. The \(what) '\(text)' is not a UUID.")
    }
    return text.lowercased()
  }

  static func changing(_ store: Store, _ body: (inout RetentionMessaging) -> Void) -> APIResponse {
    var changed = store
    changed.updateRetentionMessaging(body)
    return .empty(200, changed)
  }

  // MARK: Images

  /// Upload Image: a PNG without transparency, `FULL_SIZE` 3840 × 160–2160 or `BULLET_POINT`
  /// 1024 × 1024; at most 2000; an identifier is used once.
  package static func uploadImage(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let id = try uuid(r["imageIdentifier"], "image identifier")
    let size = r.value("imageSize") ?? "FULL_SIZE"
    guard size == "FULL_SIZE" || size == "BULLET_POINT" else {
      throw APIError.badRequestImageSize.saying("Invalid request. imageSize must be FULL_SIZE or BULLET_POINT.")
    }
    let png = try PNGHeader(r.body)
    let fits =
      size == "FULL_SIZE"
      ? png.width == 3840 && (160...2160).contains(png.height) : png.width == 1024 && png.height == 1024
    guard fits else {
      throw APIError.invalidImage.saying(
        "Invalid request. A \(size) image must be "
          + (size == "FULL_SIZE" ? "3840 wide and 160 to 2160 high" : "1024 × 1024")
          + ", not \(png.width) × \(png.height).")
    }
    let messaging = store.retentionMessaging
    if messaging.image(id) != nil { throw APIError.imageAlreadyExists }
    if messaging.images.count >= RetentionMessaging.itemLimit { throw APIError.maximumNumberOfImagesReached }
    return changing(store) {
      $0.images.append(
        RetentionImage(identifier: id, size: size, state: .approved, width: png.width, height: png.height))
    }
  }

  package static func deleteImage(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let id = try uuid(r["imageIdentifier"], "image identifier")
    let messaging = store.retentionMessaging
    guard messaging.image(id) != nil else { throw APIError.imageNotFound }
    if messaging.messages.contains(where: { $0.imageIdentifiers.contains(id) }) { throw APIError.imageInUse }
    return changing(store) { $0.images.removeAll { $0.identifier == id } }
  }

  package static func imageList(_ store: Store) -> APIResponse {
    .json(
      .object([
        "imageIdentifiers": .array(
          store.retentionMessaging.images.map {
            .object([
              "imageIdentifier": .string($0.identifier), "imageState": .string($0.state.rawValue),
              "imageSize": .string($0.size),
            ])
          })
      ]))
  }

  // MARK: Messages

  /// Upload Message: `UploadMessageRequestBody` checked field by field with Apple's codes.
  package static func uploadMessage(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let id = try uuid(r["messageIdentifier"], "message identifier")
    let body = try RequestBody(r.body)
    let messaging = store.retentionMessaging
    let missing = APIError.generalBadRequest.saying("Invalid request. header and body are required strings.")
    guard let header = try body.string("header", missing, required: true),
      let text = try body.string("body", missing, required: true)
    else { throw missing }
    if header.count > headerLimit { throw APIError.headerTooLong }
    if text.count > bodyLimit { throw APIError.bodyTooLong }
    let image = try messageImage(body.node["image"], size: "FULL_SIZE", messaging)
    let position = try body.string(
      "headerPosition", APIError.generalBadRequest.saying("Invalid request. headerPosition must be a string."))
    if let position, position != "ABOVE_BODY" && position != "ABOVE_IMAGE" {
      throw APIError.generalBadRequest.saying("Invalid request. headerPosition must be ABOVE_BODY or ABOVE_IMAGE.")
    }
    if position == "ABOVE_IMAGE" && image == nil { throw APIError.aboveImageRequiresAnImage }
    var bullets: [RetentionBulletPoint] = []
    if let node = body.node["bulletPoints"], node.value != .null {
      guard case .array(let items) = node.value else {
        throw APIError.generalBadRequest.saying("Invalid request. bulletPoints must be an array.")
      }
      if items.count > bulletPointLimit { throw APIError.tooManyBulletPoints }
      for item in items {
        guard case .string(let line)? = item["text"]?.value else {
          throw APIError.generalBadRequest.saying("Invalid request. Every bullet point needs a text.")
        }
        if line.count > headerLimit { throw APIError.bulletPointTextTooLong }
        guard let picture = try messageImage(item, size: "BULLET_POINT", messaging) else {
          throw APIError.generalBadRequest.saying("Invalid request. Every bullet point needs an imageIdentifier.")
        }
        bullets.append(RetentionBulletPoint(text: line, image: picture))
      }
    }
    if messaging.message(id) != nil { throw APIError.messageAlreadyExists }
    if messaging.messages.count >= RetentionMessaging.itemLimit { throw APIError.maximumNumberOfMessagesReached }
    let message = RetentionMessage(
      identifier: id, header: header, body: text, image: image, headerPosition: position, bulletPoints: bullets,
      state: .approved)
    return changing(store) { $0.messages.append(message) }
  }

  /// `{imageIdentifier, altText}` of a message or bullet point: an uploaded image of `size`.
  static func messageImage(
    _ node: JSONNode?, size: String, _ messaging: RetentionMessaging
  ) throws -> RetentionMessageImage? {
    guard let node, node.value != .null else { return nil }
    guard case .string(let id)? = node["imageIdentifier"]?.value, UUID(uuidString: id) != nil else {
      throw APIError.generalBadRequest.saying("Invalid request. imageIdentifier must be a UUID.")
    }
    guard case .string(let alt)? = node["altText"]?.value else {
      throw APIError.generalBadRequest.saying("Invalid request. An image needs its altText.")
    }
    if alt.count > altTextLimit { throw APIError.altTextTooLong }
    guard let image = messaging.image(id) else { throw APIError.imageNotFound }
    if image.size != size {
      throw APIError.badRequestImageSize.saying(
        "Invalid request. The image's size is invalid: \(image.identifier) is \(image.size), this place takes \(size).")
    }
    return RetentionMessageImage(imageIdentifier: id, altText: alt)
  }

  /// Delete Message; the default messages that named it go with it.
  package static func deleteMessage(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let id = try uuid(r["messageIdentifier"], "message identifier")
    guard store.retentionMessaging.message(id) != nil else { throw APIError.messageNotFound }
    return changing(store) {
      $0.messages.removeAll { $0.identifier == id }
      $0.defaultMessages.removeAll { $0.messageIdentifier == id }
    }
  }

  package static func messageList(_ store: Store) -> APIResponse {
    .json(
      .object([
        "messageIdentifiers": .array(
          store.retentionMessaging.messages.map {
            .object(["messageIdentifier": .string($0.identifier), "messageState": .string($0.state.rawValue)])
          })
      ]))
  }

  // MARK: Default messages

  /// The product (an auto-renewable subscription of the catalogue) and locale of a path.
  static func productAndLocale(_ r: RouteRequest, _ store: Store) throws -> (ProductID, String) {
    let product = r["productId"]
    guard store.configuration.product(product)?.type == .autoRenewable else {
      throw APIError.invalidProductID.saying(
        "Invalid request. The product id parameter is invalid: '\(product)' is not an auto-renewable subscription.")
    }
    let locale = r["locale"]
    guard isLocale(locale) else { throw APIError.invalidLocale }
    return (product, locale)
  }

  /// `en-US`, `fr`, `zh-Hans-CN`: a language of 2–3 letters and subtags of 2–8 letters or digits.
  package static func isLocale(_ text: String) -> Bool {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard let language = parts.first, (2...3).contains(language.count),
      language.allSatisfy({ $0.isASCII && $0.isLetter })
    else { return false }
    return parts.dropFirst().allSatisfy { p in
      (2...8).contains(p.count) && p.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
  }

  /// Configure Default Message: `{messageIdentifier}` of an approved message; overwrites.
  package static func configureDefaultMessage(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let (product, locale) = try productAndLocale(r, store)
    let body = try RequestBody(r.body)
    guard let text = try body.string("messageIdentifier", .messageNotFound, required: true),
      UUID(uuidString: text) != nil
    else {
      throw APIError.generalBadRequest.saying("Invalid request. messageIdentifier must be a UUID.")
    }
    let messaging = store.retentionMessaging
    guard let message = messaging.message(text) else { throw APIError.messageNotFound }
    guard message.state == .approved else { throw APIError.messageNotApproved }
    guard messaging.isShowable(message) else { throw APIError.imageNotApproved }
    return changing(store) {
      $0.defaultMessages.removeAll { $0.productID == product && $0.locale == locale }
      $0.defaultMessages.append(
        RetentionDefaultMessage(productID: product, locale: locale, messageIdentifier: message.identifier))
    }
  }

  package static func defaultMessage(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let (product, locale) = try productAndLocale(r, store)
    guard let d = store.retentionMessaging.defaultMessage(productID: product, locale: locale) else {
      throw APIError.defaultMessageNotFound
    }
    return .json(.object(["messageIdentifier": .string(d.messageIdentifier)]))
  }

  package static func deleteDefaultMessage(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let (product, locale) = try productAndLocale(r, store)
    guard store.retentionMessaging.defaultMessage(productID: product, locale: locale) != nil else {
      throw APIError.defaultMessageNotFound
    }
    return changing(store) { $0.defaultMessages.removeAll { $0.productID == product && $0.locale == locale } }
  }

  // MARK: Realtime URL

  /// Why a realtime URL is refused (nil when it is usable): at most 256 characters, https, or
  /// plain http on a loopback host (a test server has no certificate).
  package static func realtimeURLProblem(_ text: String) -> String? {
    if text.count > realtimeURLLimit { return "it is longer than \(realtimeURLLimit) characters" }
    let url: HTTPURL
    do { url = try HTTPURL(text) } catch { return error.reason }
    if url.scheme == .http && !isLoopback(url.host) { return "plain http is taken only on loopback; use https" }
    return nil
  }

  /// `localhost`, 127.0.0.0/8 or ::1.
  package static func isLoopback(_ host: String) -> Bool {
    host == "localhost" || host == "::1" || host.hasPrefix("127.")
  }

  /// Configure Realtime URL: `{realtimeURL}`. In a Production session a URL is set, then
  /// tested, then active: the cancel flow calls it only once a performance test against it has
  /// passed, and an untested URL does not replace an active one (4030026; rule
  /// production-realtime-url-is-set-tested-then-active).
  package static func configureRealtimeURL(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let body = try RequestBody(r.body)
    guard let url = try body.string("realtimeURL", .badRequestRealtimeURL, required: true) else {
      throw APIError.badRequestRealtimeURL
    }
    if let problem = realtimeURLProblem(url) {
      throw APIError.badRequestRealtimeURL.saying("Invalid request. The url is invalid: \(problem).")
    }
    let messaging = store.retentionMessaging
    if store.state.environment == .production, let active = store.activeRealtimeURL, active != url,
      !messaging.hasPassingTest(of: url)
    {
      throw APIError.forbiddenNoPassingTest.saying(
        "Forbidden. \(active) passed a performance test and stays; delete it first to set and test another URL.")
    }
    return changing(store) { $0.realtimeURL = url }
  }

  package static func realtimeURL(_ store: Store) throws -> APIResponse {
    guard let url = store.retentionMessaging.realtimeURL else { throw APIError.realtimeURLNotFound }
    return .json(.object(["realtimeURL": .string(url)]))
  }

  package static func deleteRealtimeURL(_ store: Store) -> APIResponse {
    changing(store) { $0.realtimeURL = nil }
  }
}
