import Foundation
import StoreSim

/// The width and height of a PNG without transparency (Upload Image's rule), or `InvalidImage`.
struct PNGHeader {
  var width: Int
  var height: Int

  static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  init(_ bytes: [UInt8]) throws {
    guard bytes.count >= 33, Array(bytes[0..<8]) == Self.signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
      throw APIError.invalidImage.saying("Invalid request. The image is invalid: not a PNG.")
    }
    func u32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    width = u32(16)
    height = u32(20)
    // Colour types 4 and 6 carry alpha; a tRNS chunk makes another type transparent.
    let colourType = bytes[25]
    var transparent = colourType == 4 || colourType == 6
    var at = 8
    while !transparent, at + 8 <= bytes.count {
      let length = u32(at)
      let type = Array(bytes[at + 4..<at + 8])
      if type == Array("tRNS".utf8) { transparent = true }
      if type == Array("IDAT".utf8) || type == Array("IEND".utf8) { break }
      at += 12 + length
    }
    if transparent { throw APIError.invalidImage.saying("Invalid request. The image is invalid: it has transparency.") }
  }
}
