import Foundation
import StoreSim

// The delivery log (`StoreState.deliveryLog`), every attempt to post a notification, as rows:
// a retry storm of 10,000 notifications makes 60,000 attempts, and as `Codable` objects in
// `base` they were 21 MB read back at JSONEncoder's pace. Each row is nine fields, its texts
// (URL, error, `sendAttemptResult`, origin, fault) numbers into one list of the distinct texts,
// as the attempts of a run repeat a handful of them:
//
//     "deliveries":[[text…],[[index,url,httpStatus,error,date,result,origin,fault,nextAttempt]…]]
//
// It follows `base` (session file version 4), before the customers: part of the state that
// every reader reads, as the log was in `base`.

extension StateCodec.Writer {
  /// `[[text…],[row…]]`, as above.
  mutating func deliveries(_ log: [NotificationDelivery]) {
    var numbers: [String: Int] = [:]
    var texts: [String] = []
    func number(_ text: String?) -> Int? {
      guard let text else { return nil }
      if let n = numbers[text] { return n }
      numbers[text] = texts.count
      texts.append(text)
      return texts.count - 1
    }
    let rows = log.map { d in
      (d, number(d.url)!, number(d.error), number(d.result), number(d.origin?.rawValue), number(d.fault))
    }
    array { w in
      w.strings(texts)
      w.array { w in
        for (d, url, error, result, origin, fault) in rows {
          w.array { w in
            w.int(d.index)
            w.int(url)
            w.optInt(d.httpStatus)
            w.optInt(error)
            w.date(d.date)
            w.optInt(result)
            w.optInt(origin)
            w.optInt(fault)
            w.optDate(d.nextAttempt)
          }
        }
      }
    }
  }
}

extension StateCodec.Reader {
  /// `,"deliveries":…` after `base`, when there and allowed (`deliveriesAsRows`); anything else
  /// is left to the next key's reading.
  mutating func deliveryRows(_ state: inout StoreState) throws(StateCodec.DecodingError) {
    guard deliveriesAsRows else { return }
    let (start, separated) = (scanner.index, needsSeparator)
    guard (try? separator()) != nil, (try? text()) == "deliveries" else {
      (scanner.index, needsSeparator) = (start, separated)
      return
    }
    try expect(UInt8(ascii: ":"))
    needsSeparator = false
    guard state.deliveryLog == nil else { throw fail("a delivery log in base and as rows") }
    state.deliveryLog = try deliveries()
  }

  /// What `Writer.deliveries` writes.
  mutating func deliveries() throws(StateCodec.DecodingError) -> [NotificationDelivery] {
    try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
      let texts = try r.list { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in try r.string() }
      return try r.list { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
        try r.row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
          let index = try r.smallInt()
          let url = try r.text(in: texts)
          let status = try r.null() ? nil : try r.smallInt()
          let error = try r.null() ? nil : try r.text(in: texts)
          let date = try r.date()
          let result = try r.null() ? nil : try r.text(in: texts)
          let originAt = r.i
          let origin = try r.null() ? nil : try r.text(in: texts)
          let fault = try r.null() ? nil : try r.text(in: texts)
          let next = try r.optDate()
          var delivery = NotificationDelivery(
            index: index, url: url, httpStatus: status, error: error, date: date, result: result, fault: fault,
            nextAttempt: next)
          if let origin {
            guard let known = DeliveryOrigin(rawValue: origin) else {
              throw r.fail("unknown delivery origin '\(origin)'", at: originAt)
            }
            delivery.origin = known
          }
          return delivery
        }
      }
    }
  }

  /// A number into `texts`, the text it numbers.
  mutating func text(in texts: [String]) throws(StateCodec.DecodingError) -> String {
    let at = i
    let n = try smallInt()
    guard n < texts.count else { throw fail("no text \(n)", at: at) }
    return texts[n]
  }
}
