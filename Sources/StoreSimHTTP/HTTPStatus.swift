/// HTTP status codes as the status line writes them.
package enum HTTPStatus {
  /// The reason phrase of a status (RFC 9110), "Status N" for one not listed.
  package static func reason(_ status: Int) -> String {
    switch status {
    case 200: return "OK"
    case 201: return "Created"
    case 202: return "Accepted"
    case 204: return "No Content"
    case 400: return "Bad Request"
    case 401: return "Unauthorized"
    case 403: return "Forbidden"
    case 404: return "Not Found"
    case 405: return "Method Not Allowed"
    case 408: return "Request Timeout"
    case 409: return "Conflict"
    case 422: return "Unprocessable Content"
    case 413: return "Content Too Large"
    case 429: return "Too Many Requests"
    case 431: return "Request Header Fields Too Large"
    case 500: return "Internal Server Error"
    case 501: return "Not Implemented"
    case 503: return "Service Unavailable"
    default: return "Status \(status)"
    }
  }
}
